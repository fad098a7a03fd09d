"""One background publisher: a daemon thread per process that sends what
the requests queued, so that publishing never holds a write.

The Redis fan-out and Pushpin each have one (``transports``). A request only
queues an item; the thread sends the oldest ones in batches, with the
transport's short timeouts and no retries of its own. While the far end is
slow, refused or gone, the items wait (at most ``max_pending``: the oldest
are dropped, their streams catch up from storage) and the thread retries
with a backoff of 0.25 s doubling to 5 s. An item the far end refuses as it
is (``Refused``) is dropped at once: sending it again cannot help.
"""

import logging
import os
import threading
import time
from collections.abc import Callable, Hashable

logger = logging.getLogger(__name__)

Send = Callable[[list[str]], None]  # raises Refused, or any other error to retry


class Refused(Exception):
    """The far end refused a batch as it is: it is dropped, not retried."""


class BackgroundPublisher:
    """Queues items (strings) and sends them from a thread of this process.

    ``connect`` is called once in the thread and returns the function that
    sends one batch. With ``deduplicate``, an item already waiting is not
    queued twice (the Redis fan-out queues channel names); ``max_batch_chars``
    bounds a batch's size (at least one item goes)."""

    def __init__(
        self,
        target: str,
        connect: Callable[[], Send],
        *,
        max_pending: int = 10_000,
        max_batch_chars: int | None = None,
        deduplicate: bool = False,
    ):
        self.target = target
        self.connect = connect
        self.max_pending = max_pending
        self.max_batch_chars = max_batch_chars
        self.deduplicate = deduplicate
        self.changed = threading.Condition()
        self.pending: dict[Hashable, str] = {}  # ordered, oldest first
        self.queued = 0  # keys of items that are not deduplicated
        self.pid: int | None = None

    def publish(self, item: str) -> None:
        """Queue ``item``; the thread (started at the first use in a process,
        or in a forked child) sends it."""
        with self.changed:
            key = self._key(item)
            if key not in self.pending and len(self.pending) >= self.max_pending:
                self.pending.pop(next(iter(self.pending)))
                logger.warning("%s is behind by %d items; dropped the oldest", self.target, self.max_pending)
            self.pending[key] = item
            if self.pid != os.getpid():
                self.pid = os.getpid()
                name = f"workspace-{self.target.lower()}-publisher"
                threading.Thread(target=self._run, name=name, daemon=True).start()
            self.changed.notify()

    def _key(self, item: str) -> Hashable:
        if self.deduplicate:
            return item
        self.queued += 1
        return self.queued

    def _next_batch(self) -> list[tuple[Hashable, str]]:
        """The oldest pending items, at most ``max_batch_chars`` together (at least one)."""
        with self.changed:
            while not self.pending:
                self.changed.wait()
            batch: list[tuple[Hashable, str]] = []
            size = 0
            for key, item in self.pending.items():
                if batch and self.max_batch_chars is not None and size + len(item) > self.max_batch_chars:
                    break
                batch.append((key, item))
                size += len(item)
            for key, _ in batch:
                del self.pending[key]
            return batch

    def _put_back(self, batch: list[tuple[Hashable, str]]) -> None:
        """Back at the front of the queue, keeping at most ``max_pending`` (the newest)."""
        with self.changed:
            merged = dict(batch)
            merged.update(self.pending)
            while len(merged) > self.max_pending:
                merged.pop(next(iter(merged)))
            self.pending = merged

    def _run(self) -> None:
        send = self.connect()
        delay = 0.0
        while True:
            batch = self._next_batch()
            try:
                send([item for _, item in batch])
                delay = 0.0
            except Refused as refusal:
                logger.error("%s refused %d items: %s", self.target, len(batch), refusal)
            except Exception as error:
                delay = min(max(delay * 2, 0.25), 5.0)
                logger.warning(
                    "could not publish to %s (%s); retrying in %.2f s", self.target, error, delay, exc_info=True
                )
                self._put_back(batch)
                time.sleep(delay)
