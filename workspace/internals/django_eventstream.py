"""Every reach into django-eventstream beyond its documented settings and views.

Written against django-eventstream 5.3.4: an upgrade is this file to read.
What it relies on:

- ``storage.StorageBase`` and ``storage.EventDoesNotExist(message, current_id)``,
  the interface ``EVENTSTREAM_STORAGE_CLASS`` implements, and ``event.Event``;
- ``models.Event`` / ``models.EventCounter``: the library's own event tables,
  still used for artifact events, including the ``eid=0`` placeholder row its
  ``DjangoModelStorage.get_events`` resumes a new channel from;
- ``eventrequest.EventRequest`` (a stream request's channels, user and last
  ids) and ``eventstream.get_events`` (what follows them, access checked,
  reading the channels in the order of ``EventRequest.channels``): its
  ``eventresponse.EventResponse``, with ``channel_items`` (sent in their
  order), ``channel_last_ids`` (where each read began), ``channel_reset``
  and ``channel_more`` (whose ``EventRequest.channel_last_ids`` it moved to
  the last item read), ``EventPermissionError``;
  ``utils``' ``make_id``, ``sse_encode_event``, ``sse_encode_error`` and
  ``add_default_headers``: the streams this app holds speak the library's
  format without its view (``events.stream_body``);
- ``views.get_listener_manager()``: its ``redis_listener`` (what it starts
  on the first stream when ``EVENTSTREAM_REDIS`` is set), ``lock``,
  ``redis_listener_started`` and ``start_redis_listener()``, to start ours
  without the library's view; ``views.RedisListener``, its
  ``redis_client`` (an async ``redis.asyncio.Redis`` built from
  ``EVENTSTREAM_REDIS``) and ``listen()``, which ``start()`` awaits;
- behind a GRIP proxy (Pushpin): ``utils.sse_encode_event`` with ``escape``
  and the ``%I`` id that Pushpin's ``build-id`` filter fills in, and the
  proxy channel ``events-<quoted channel>`` that ``EventResponse.to_grip_response``
  holds a stream on (what its own ``utils.publish_event`` publishes); the
  ``es-meta`` parameter of the links it gives Pushpin: a JWT signed with
  SECRET_KEY (HS256) whose ``user`` is the stream's user's key, and ``exp``.
"""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

import jwt
from django.conf import settings
from django_eventstream.event import Event
from django_eventstream.eventrequest import EventRequest
from django_eventstream.eventresponse import EventResponse
from django_eventstream.eventstream import EventPermissionError, get_events
from django_eventstream.models import Event as StoredEvent
from django_eventstream.models import EventCounter
from django_eventstream.storage import EventDoesNotExist, StorageBase
from django_eventstream.utils import add_default_headers, make_id, sse_encode_error, sse_encode_event
from django_eventstream.views import RedisListener, get_listener_manager

__all__ = [
    "Event",
    "EventCounter",
    "EventDoesNotExist",
    "EventPermissionError",
    "EventRequest",
    "EventResponse",
    "StorageBase",
    "StoredEvent",
    "add_default_headers",
    "get_events",
    "grip_chunk_item",
    "grip_item",
    "link_user_key",
    "make_id",
    "replace_redis_listener",
    "sse_encode_error",
    "sse_encode_event",
    "start_redis_listener",
]


RedisListen = Callable[[Any], Awaitable[None]]  # given the library's async Redis client


class _ReplacedRedisListener(RedisListener):
    """The library's Redis listener (its client built from ``EVENTSTREAM_REDIS``)
    running ``listen`` in place of its own loop."""

    def __init__(self, listen: RedisListen):
        super().__init__()
        self.replacement = listen

    async def listen(self) -> None:
        await self.replacement(self.redis_client)


def replace_redis_listener(listen: RedisListen) -> None:
    """Have the library's Redis listener run ``listen(redis_client)`` instead of
    its own loop, before it starts (nothing to do without ``EVENTSTREAM_REDIS``)."""
    manager = get_listener_manager()
    current = manager.redis_listener
    if (
        current is not None and getattr(current, "replacement", None) != listen
    ):  # (bound methods are equal, not identical)
        manager.redis_listener = _ReplacedRedisListener(listen)


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


def grip_item(event: Event, previous_id: int | None) -> dict[str, Any]:
    """The item to publish to Pushpin for ``event``, as ``utils.publish_event``
    builds it; ``previous_id``: the id before it on its channel (None: unknown,
    delivered to every stream without checking for a gap)."""
    item: dict[str, Any] = {
        "channel": f"events-{quote(event.channel)}",
        "id": str(event.id),
        "formats": {
            "http-stream": {
                "content": sse_encode_event(event.type, event.data, event_id="%I", escape=True),
                "content-filters": ["build-id"],
            }
        },
    }
    if previous_id is not None:
        item["prev-id"] = str(previous_id)
    return item


def link_user_key(es_meta: str) -> str:
    """The key of the user whose stream a link's ``es-meta`` continues;
    ``jwt.InvalidTokenError`` when it is not one django-eventstream signed, or has expired."""
    meta = jwt.decode(es_meta, str(settings.SECRET_KEY).encode(), algorithms=["HS256"], options={"require": ["exp"]})
    return str(meta["user"])


def grip_chunk_item(channel: str, events: list[Event], event_id: int, previous_id: int) -> dict[str, Any]:
    """One item to publish to Pushpin for several ``events`` of ``channel`` at
    once (none: the stream's ids only move), shaped as ``grip_item``'s: each
    holder at ``previous_id`` gets them and stands at ``event_id`` after."""
    content = "".join(sse_encode_event(event.type, event.data, event_id="%I", escape=True) for event in events)
    return {
        "channel": f"events-{quote(channel)}",
        "id": str(event_id),
        "prev-id": str(previous_id),
        "formats": {"http-stream": {"content": content, "content-filters": ["build-id"]}},
    }
