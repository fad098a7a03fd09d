"""Live events over Server-Sent Events: the only package that imports django-eventstream.

- ``channels``: a thread's channels, and who may read them;
- ``storage``: where streams read events: the revision log for document
  changes, django-eventstream's tables for artifacts;
- ``sending``: after a commit, tell of the change;
- ``fanout``: the same across server processes, through Redis;
- ``watchers``: who hears of a change: the ``feed`` and the MCP subscriptions;
- ``feed``: the streams this process holds, and one read per change for them;
- ``stream``: the stream response of the API's view; ``body``: what a
  stream held by this process sends;
- ``grip``: behind Pushpin, publishing to it and answering its requests;
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
