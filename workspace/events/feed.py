"""The open streams of this process (ASGI), and one read per change for all of them.

A stream registers here, on the event loop, before its first read of the
storage, and keeps its last ids up to date. When one of its channels
changes (``watchers``: a local commit, or Redis), the feed reads what
follows each last id its streams stand at, once per distinct id, in a
worker thread, and wakes each stream when its read is done; the stream
takes the encoded events from that read (``chunk_after``), encoded once
for every stream at the same ids. So a thousand viewers of one thread cost
one query and one encoding per change, not a thousand. A stream that must
read from elsewhere (the id is gone, or more than a page came, or a page of
drafts that goes on) reads the storage itself. A stream that sent nothing for ``KEEP_ALIVE_SECONDS`` is
woken with no change, to send a keep-alive (one timer for all of them).
When the server stops (``workspace.events.shutdown``), every stream is woken to end.

A thread's drafts are read at most once per ``DRAFT_COALESCE_SECONDS``:
pieces that arrive in between go out together, one event per draft. Their
document is read with them (``order.read_with``), even when Redis brings
the two out of order.
"""

import asyncio
import functools
import weakref
from collections.abc import Iterable

from asgiref.sync import sync_to_async

from ..internals.django_eventstream import Event, EventDoesNotExist, make_id, sse_encode_event
from . import drafts, shutdown
from .channels import DRAFT_PREFIX
from .order import read_with
from .storage import ThreadEventStorage
from .watchers import watch

PAGE = 50  # events one shared read returns; more, and each stream reads its own
KEEP_ALIVE_SECONDS = 20
KEEP_ALIVE_CHECK_SECONDS = 5  # so a quiet stream's keep-alive comes 20 to 25 s after what it sent last
DRAFT_COALESCE_SECONDS = 0.05


class Listener:
    """One open stream: woken when one of its ``channels`` changed, once what
    follows its ``last_ids`` (kept up to date by the stream) has been read."""

    def __init__(self, feed: "Feed", channels: set[str]):
        self.feed = feed
        self.channels = channels
        self.last_ids: dict[str, int | str] = {}
        self.changed: set[str] = set()
        self.woken = asyncio.Event()
        self.sent_at = feed.loop.time()

    async def wait(self) -> set[str] | None:
        """The channels changed since the last call; none when a keep-alive is due.
        (A read done after the stream already took its news wakes it with none.)
        None once the server stops: the stream ends."""
        while True:
            if self.feed.stopping:
                return None
            await self.woken.wait()
            self.woken.clear()
            changed, self.changed = self.changed, set()
            if changed or self.feed.loop.time() - self.sent_at >= KEEP_ALIVE_SECONDS:
                return changed

    def again(self, channels: Iterable[str]) -> None:
        """Wake the stream for ``channels`` again: it left their news for its next round."""
        self.changed.update(channels)
        self.woken.set()

    def sent(self) -> None:
        self.sent_at = self.feed.loop.time()

    def close(self) -> None:
        self.feed.forget(self)


class Feed:
    """The listeners of one event loop, by channel, and the reads they share."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.listeners: dict[str, set[Listener]] = {}
        self.every_listener: set[Listener] = set()  # checked for keep-alives
        # channel -> the id read after -> the shared read; dropped at every change of the channel.
        self.reads: dict[str, dict[int, asyncio.Future]] = {}
        # channel -> the stream's last ids -> (the chunk, the ids after it); dropped likewise.
        self.chunks: dict[str, dict[tuple, tuple[bytes, dict]]] = {}
        # drafts channel -> when it was last read; and those held back until their window ends.
        self.drafts_read_at: dict[str, float] = {}
        self.drafts_held: set[str] = set()
        self.stopping = False
        watch(self.changed_threadsafe)  # for as long as the loop runs
        shutdown.on_shutdown(self._stop)
        loop.call_later(KEEP_ALIVE_CHECK_SECONDS, self._wake_the_quiet)

    def listen(self, channels: Iterable[str]) -> Listener:
        listener = Listener(self, set(channels))
        for channel in listener.channels:
            self.listeners.setdefault(channel, set()).add(listener)
        self.every_listener.add(listener)
        return listener

    def _stop(self) -> None:
        self.stopping = True
        for listener in self.every_listener:
            listener.woken.set()

    def forget(self, listener: Listener) -> None:
        self.every_listener.discard(listener)
        for channel in listener.channels:
            members = self.listeners.get(channel, set())
            members.discard(listener)
            if not members:
                self.listeners.pop(channel, None)
                self.reads.pop(channel, None)
                self.chunks.pop(channel, None)
                self.drafts_read_at.pop(channel, None)

    def changed_threadsafe(self, channel: str | None) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._changed, channel)

    def _changed(self, channel: str | None) -> None:
        if channel is not None and channel.startswith(DRAFT_PREFIX):
            self._drafts_changed(channel)
        else:
            self._read_for(list(self.listeners) if channel is None else [channel])

    def _drafts_changed(self, channel: str) -> None:
        """Read the drafts now, or when the window since their last read ends."""
        if channel in self.drafts_held:
            return
        wait = self.drafts_read_at.get(channel, -DRAFT_COALESCE_SECONDS) + DRAFT_COALESCE_SECONDS - self.loop.time()
        if wait > 0:
            self.drafts_held.add(channel)
            self.loop.call_later(wait, self._read_held_drafts, channel)
            return
        self._read_drafts(channel)

    def _read_held_drafts(self, channel: str) -> None:
        self.drafts_held.discard(channel)
        self._read_drafts(channel)

    def _read_drafts(self, channel: str) -> None:
        if channel in self.listeners:
            self.drafts_read_at[channel] = self.loop.time()
        self._read_for(read_with(channel))

    def _read_for(self, channels: list[str]) -> None:
        """Read what follows each last id the channels' streams stand at (one
        read per distinct id), and wake each stream once its read is done."""
        for name in channels:
            if name not in self.listeners:
                continue
            reads = self.reads[name] = {}  # what was read before this change is not the news
            self.chunks[name] = {}
            waiting: dict[int, list[Listener]] = {}
            for listener in self.listeners.get(name, ()):
                listener.changed.add(name)
                last_id = listener.last_ids.get(name)
                if last_id is None:  # still reading the storage itself
                    listener.woken.set()
                    continue
                after = int(last_id)
                if after not in reads:
                    reads[after] = asyncio.ensure_future(_read(name, after))
                    waiting[after] = []
                    reads[after].add_done_callback(functools.partial(_wake, waiting[after]))
                waiting[after].append(listener)

    def _wake_the_quiet(self) -> None:
        due = self.loop.time() - KEEP_ALIVE_SECONDS
        for listener in self.every_listener:
            if listener.sent_at <= due:
                listener.woken.set()
        self.loop.call_later(KEEP_ALIVE_CHECK_SECONDS, self._wake_the_quiet)

    async def chunk_after(self, channel: str, last_ids: dict) -> tuple[bytes, dict] | None:
        """The events of ``channel`` after the stream's ``last_ids``, encoded,
        and the ids after them; read and encoded once for every stream that
        asks between two changes. None when the stream must read for itself
        (the id is gone, or more than a page follows)."""
        key = tuple(last_ids.items())
        chunks = self.chunks.setdefault(channel, {})
        if key in chunks:
            return chunks[key]
        events = await self._events_after(channel, int(last_ids[channel]))
        if events is None:
            return None
        ids = dict(last_ids)
        encoded = encode(events, channel, ids).encode()
        if self.chunks.get(channel) is chunks:  # no change came while reading
            chunks[key] = encoded, ids
        return encoded, ids

    async def _events_after(self, channel: str, last_id: int) -> list[Event] | None:
        reads = self.reads.setdefault(channel, {})
        read = reads.get(last_id)
        if read is None:
            read = reads[last_id] = asyncio.ensure_future(_read(channel, last_id))
        try:
            events = read.result() if read.done() else await asyncio.shield(read)
        except EventDoesNotExist:
            return None
        except BaseException:
            if reads.get(last_id) is read and read.done():  # a failed read is not shared with later streams
                del reads[last_id]
            raise
        return events if len(events) <= PAGE and not drafts.is_partial(events) else None


def encode(events: list[Event], channel: str, last_ids: dict) -> str:
    """The events of ``channel`` in django-eventstream's format, each with the
    ids of every channel; ``last_ids`` moves past them."""
    chunk = ""
    for event in events:
        last_ids[channel] = event.id
        chunk += sse_encode_event(event.type, event.data, event_id=make_id(last_ids))
    return chunk


def _wake(listeners: list[Listener], read: "asyncio.Future[list[Event]]") -> None:
    for listener in listeners:
        listener.woken.set()


@sync_to_async(thread_sensitive=False)
def _read(channel: str, last_id: int) -> list[Event]:
    return ThreadEventStorage().get_events(channel, last_id, limit=PAGE + 1)


_feeds: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Feed]" = weakref.WeakKeyDictionary()


def current() -> Feed:
    """The feed of the running event loop."""
    loop = asyncio.get_running_loop()
    feed = _feeds.get(loop)
    if feed is None:
        feed = _feeds[loop] = Feed(loop)
    return feed
