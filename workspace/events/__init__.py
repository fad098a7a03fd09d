"""Live events over Server-Sent Events: the only package that uses django-eventstream
(its internals: ``workspace.internals.django_eventstream``).

- ``channels``: a thread's channels; ``channel_manager``: who may read them;
- ``order``: the order of a thread's events, which every reader and transport
  asks (a committed draft's end after its document event);
- ``storage``: where streams read events: the revision log for document
  changes (``replay``), django-eventstream's tables for artifacts, the drafts' tables for
  live drafts (``drafts``); ``encoding``: how event data is written;
- ``announce``: after a commit, tell every transport of the change;
- ``transports``: how changes travel, chosen from the settings in one place:
  in-process (``local``), across processes through Redis (``redis``), and to
  Pushpin (``pushpin``, its drafts coalesced by ``pushpin_drafts``);
- ``publisher``: the one background publisher (Redis and Pushpin each use one);
- ``redis_client``: the one builder of Redis clients;
- ``slots``: each user's open streams, counted against the limit;
- ``watchers``: who hears of a change: the ``feed`` and the MCP subscriptions;
- ``feed``: the streams this process holds, and one read per change for them
  (it ends them when the server stops: ``workspace.events.shutdown``);
- ``stream``: the stream response of the API's view; ``stream_body``: what a
  stream held by this process sends; ``reading``: one read of the storage
  for either; ``handover``:
  the ASGI wrapper that holds those streams once Django is done (and answers
  the lifespan Django refuses);
- ``link_authentication``: behind Pushpin, who may use the links it was given
  (``grip``: the old paths of these names, deprecated).

The settings name the classes by the short paths below. ``install()``
(from ``AppConfig.ready``) connects the receivers and prepares the
transports; importing a module of this package connects nothing.
"""

from . import announce, transports
from .channel_manager import ThreadChannelManager
from .channels import artifact_channel, document_channel, draft_channel
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
    "draft_channel",
    "install",
]


def install() -> None:
    """Connect the receivers of committed changes and prepare the transports
    (the Redis listener), from ``AppConfig.ready``."""
    announce.connect()
    transports.install()
