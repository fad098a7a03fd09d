"""Live events over Server-Sent Events: the only package that imports django-eventstream.

- ``channels``: a thread's channels, and who may read them;
- ``storage``: where streams read events: the revision log for document
  changes, django-eventstream's tables for artifacts;
- ``sending``: after a commit, wake the streams that should read it;
- ``fanout``: the same across server processes, through Redis;
- ``watchers``: who else hears of a change (the MCP subscriptions);
- ``stream``: the stream response of the API's view;
- ``library``: every reach into django-eventstream's internals.

The settings name the classes by the short paths below.
"""

from .channels import ThreadChannelManager, artifact_channel, document_channel
from .storage import ThreadEventStorage

CHANNEL_MANAGER = "workspace.events.ThreadChannelManager"
STORAGE = "workspace.events.ThreadEventStorage"

__all__ = [
    "CHANNEL_MANAGER",
    "STORAGE",
    "ThreadChannelManager",
    "ThreadEventStorage",
    "artifact_channel",
    "document_channel",
]


def install() -> None:
    """Connect the senders and mend the Redis listener (from ``AppConfig.ready``)."""
    from . import fanout, sending  # noqa: F401  (connects the receivers)

    fanout.install()
