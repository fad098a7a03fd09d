"""What a stream held by this process (ASGI) sends, in django-eventstream's
format: the opening padding and ``stream-open``, a ``stream-reset`` where
the client's last id is gone, then each event with the ids of every channel.

The stream reads the storage itself when it opens and after a gap; the
changes that wake it are read through the ``feed``, once for all the
streams of the process. It holds no thread while it waits. It ends when the
server stops (the feed says so).
"""

from collections.abc import AsyncGenerator
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections

from ..internals.asgiref import end_request_thread
from ..internals.django_eventstream import (
    EventPermissionError,
    EventRequest,
    EventResponse,
    make_id,
    sse_encode_error,
    sse_encode_event,
)
from . import feed, reading, slots
from .order import in_sending_order, must_wait

OPENING = b":" + b" " * 2048 + b"\n\nevent: stream-open\ndata:\n\n"
KEEP_ALIVE = b"event: keep-alive\ndata:\n\n"


async def stream_body(
    event_request: EventRequest, slot: slots.Slot, replayed_through: dict[str, int] | None = None
) -> AsyncGenerator[bytes, None]:
    """The stream's chunks for ``event_request`` (django-eventstream's
    ``EventRequest``: the channels, the user, the last ids the client gave),
    keeping the user's stream ``slot`` while it flows and freeing it after;
    the client's replay ends at ``replayed_through`` (``reading.read``)."""
    _give_back_the_request_thread()
    listener = feed.current().listen(event_request.channels)  # before reading: no change falls between
    # "stream-open" goes with the first read's answer, not before it: a client
    # that acts once the stream is open must see its change arrive, and a
    # stream that has not read where it starts would count the change as past.
    opening = OPENING
    try:
        while True:
            # Read the storage: at the start, after a gap, and page by page.
            try:
                response = await _read_storage(event_request, replayed_through)
            except EventPermissionError as error:
                yield opening + sse_encode_error("forbidden", str(error), extra={"channels": error.channels}).encode()
                return
            last_ids = dict(response.channel_last_ids)
            chunk = opening + _encode_read(response, last_ids)
            opening = b""
            event_request.channel_last_ids = listener.last_ids = last_ids
            if chunk:
                yield chunk
                listener.sent()
            if response.channel_more and not listener.feed.stopping:
                continue
            # Caught up: wait for changes, read through the feed.
            while True:
                changed = await listener.wait()
                if changed is None:  # the server stops: the body ends, the client reconnects elsewhere
                    return
                if not changed:
                    yield KEEP_ALIVE
                    listener.sent()
                    await slots.renew_if_due(slot)
                    continue
                chunk, last_ids, gap = await _news(listener, changed, last_ids)
                event_request.channel_last_ids = listener.last_ids = last_ids
                if chunk:
                    yield chunk
                    listener.sent()
                    await slots.renew_if_due(slot)
                if gap:
                    break
    finally:
        listener.close()
        await sync_to_async(slots.release, thread_sensitive=False)(slot)


async def _news(listener: feed.Listener, changed: set[str], last_ids: dict) -> tuple[bytes, dict, bool]:
    """The encoded events of the ``changed`` channels after ``last_ids``, through
    the feed, in sending order; the ids after them; and whether there is a gap
    (the stream must read the storage itself)."""
    chunks: list[bytes] = []
    ordered = in_sending_order(changed)
    for position, channel in enumerate(ordered):
        if must_wait(ordered, position, listener.changed):
            # A channel sent before this one changed while this round read it: its news goes first, next round.
            listener.again(ordered[position:])
            break
        encoded = await listener.feed.chunk_after(channel, last_ids)
        if encoded is None:
            return b"".join(chunks), dict(last_ids), True
        encoded_chunk, last_ids = encoded
        chunks.append(encoded_chunk)
    return b"".join(chunks), dict(last_ids), False


def _encode_read(response: EventResponse, last_ids: dict[str, Any]) -> bytes:
    """What a read of the storage (``reading.read``) sends: a ``stream-reset``
    where a last id is gone, then the events; ``last_ids`` moves past them."""
    chunk = ""
    if response.channel_reset:
        chunk += sse_encode_event(
            "stream-reset",
            {"channels": sorted(response.channel_reset)},
            event_id=make_id(last_ids),
            json_encode=True,
        )
    for channel, events in response.channel_items.items():  # in sending order
        chunk += feed.encode(events, channel, last_ids)
    return chunk.encode()


@sync_to_async(thread_sensitive=False)
def _read_storage(event_request: EventRequest, replayed_through: dict[str, int] | None) -> EventResponse:
    try:
        return reading.read(event_request, replayed_through)
    finally:
        close_old_connections()


def _give_back_the_request_thread() -> None:
    """Django runs an ASGI request's synchronous code in a thread kept for
    that request until its response ends: for a stream, as long as its
    viewer stays. Nothing here needs it (reads run in the loop's shared
    worker threads), so end it now (``internals.asgiref``)."""
    end_request_thread()
