"""The open streams of this process (ASGI), and one read per change for all of them.

A stream registers here, on the event loop, before its first read of the
storage, and keeps its last ids up to date. When one of its channels
changes (``watchers``: a local commit, or Redis), the feed reads what
follows each last id its streams stand at, once per distinct id, in a
worker thread, and wakes each stream when its read is done; the stream
takes the events from that read (``events_after``). So a thousand viewers
of one thread cost one query per change, not a thousand. A stream that
must read from elsewhere (the id is gone, or more than a page came) reads
the storage itself.
"""

import asyncio
import functools
import weakref

from asgiref.sync import sync_to_async

from .library import Event, EventDoesNotExist
from .storage import ThreadEventStorage
from .watchers import watch

PAGE = 50  # events one shared read returns; more, and each stream reads its own


class Listener:
    """One open stream: woken when one of its ``channels`` changed, once what
    follows its ``last_ids`` (kept up to date by the stream) has been read."""

    def __init__(self, feed: "Feed", channels: set[str]):
        self.feed = feed
        self.channels = channels
        self.last_ids: dict[str, int | str] = {}
        self.changed: set[str] = set()
        self.woken = asyncio.Event()

    async def wait(self, timeout: float) -> set[str] | None:
        """The channels changed since the last call; None when ``timeout`` passed first."""
        try:
            async with asyncio.timeout(timeout):
                await self.woken.wait()
        except TimeoutError:
            return None
        self.woken.clear()
        changed, self.changed = self.changed, set()
        return changed

    def close(self) -> None:
        self.feed.forget(self)


class Feed:
    """The listeners of one event loop, by channel, and the reads they share."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.listeners: dict[str, set[Listener]] = {}
        # channel -> the id read after -> the shared read; dropped at every change of the channel.
        self.reads: dict[str, dict[int, asyncio.Future]] = {}
        watch(self.changed_threadsafe)  # for as long as the loop runs

    def listen(self, channels) -> Listener:
        listener = Listener(self, set(channels))
        for channel in listener.channels:
            self.listeners.setdefault(channel, set()).add(listener)
        return listener

    def forget(self, listener: Listener) -> None:
        for channel in listener.channels:
            members = self.listeners.get(channel, set())
            members.discard(listener)
            if not members:
                self.listeners.pop(channel, None)
                self.reads.pop(channel, None)

    def changed_threadsafe(self, channel: str | None) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._changed, channel)

    def _changed(self, channel: str | None) -> None:
        """Read what follows each last id the channel's streams stand at (one
        read per distinct id), and wake each stream once its read is done."""
        channels = list(self.listeners) if channel is None else [channel]
        for name in channels:
            reads = self.reads[name] = {}  # what was read before this change is not the news
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

    async def events_after(self, channel: str, last_id: int) -> list[Event] | None:
        """The events after ``last_id``, read once for every stream that asks
        between two changes; None when the stream must read for itself (the
        id is gone, or more than a page follows)."""
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
        return events if len(events) <= PAGE else None


def _wake(listeners: list[Listener], read) -> None:
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
