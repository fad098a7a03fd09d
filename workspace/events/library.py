"""Every reach into django-eventstream beyond its documented settings and views.

Written against django-eventstream 5.3.4: an upgrade is this file to read.
What it relies on:

- ``storage.StorageBase`` and ``storage.EventDoesNotExist(message, current_id)``,
  the interface ``EVENTSTREAM_STORAGE_CLASS`` implements, and ``event.Event``;
- ``models.Event`` / ``models.EventCounter``: the library's own event tables,
  still used for artifact events, including the ``eid=0`` placeholder row its
  ``DjangoModelStorage.get_events`` resumes a new channel from;
- ``views.get_listener_manager()``: ``lock``, ``listeners_by_channel``,
  ``redis_listener``; each listener's ``overflow`` flag and
  ``wake_threadsafe()``. A woken listener whose ``overflow`` is set reads its
  channels from the storage again, after the last id it sent: that is how
  every event reaches a stream, in order, once;
- ``views.RedisListener``: what the manager starts on the first stream when
  ``EVENTSTREAM_REDIS`` is set; its ``redis_client`` and ``listen()``; the
  manager's ``redis_listener_started`` flag and ``start_redis_listener()``,
  to start it without a stream (for MCP subscriptions).
"""

import asyncio

from django_eventstream.event import Event
from django_eventstream.models import Event as StoredEvent
from django_eventstream.models import EventCounter
from django_eventstream.storage import EventDoesNotExist, StorageBase
from django_eventstream.views import RedisListener, get_listener_manager

__all__ = [
    "Event",
    "EventCounter",
    "EventDoesNotExist",
    "RedisListener",
    "StorageBase",
    "StoredEvent",
    "replace_redis_listener",
    "start_redis_listener",
    "wake_listeners",
]


def wake_listeners(channel: str | None = None) -> None:
    """Have every open stream of this process on ``channel`` (None: on any
    channel) read the storage for what it has not sent yet."""
    manager = get_listener_manager()
    with manager.lock:
        if channel is None:
            listeners = {listener for members in manager.listeners_by_channel.values() for listener in members}
        else:
            listeners = set(manager.listeners_by_channel.get(channel, ()))
        for listener in listeners:
            listener.overflow = True
    for listener in listeners:
        listener.wake_threadsafe()


def replace_redis_listener(listener_class: type) -> None:
    """Put ``listener_class`` in place of the library's Redis listener, before it starts."""
    manager = get_listener_manager()
    if manager.redis_listener is not None and not isinstance(manager.redis_listener, listener_class):
        manager.redis_listener = listener_class()


def start_redis_listener() -> None:
    """Start the Redis listener on the running event loop, as the first stream
    would (nothing to do without ``EVENTSTREAM_REDIS``, or once started)."""
    manager = get_listener_manager()
    if manager.redis_listener is None:
        return
    with manager.lock:
        if manager.redis_listener_started:
            return
        manager.redis_listener_started = True
    asyncio.get_running_loop().create_task(manager.start_redis_listener())
