"""Publishing a thread's draft events to Pushpin: at most one item per thread
every ``COALESCE_SECONDS`` from each process.

A process that committed a change of a thread's drafts schedules the thread
here; when it is due, this module's thread claims the ids not yet published
(``events.drafts.claim_unpublished``: each range goes to one process only),
reads their events, and queues them as one item (its ids chained from the
range's start to its end, so Pushpin delivers it only to the streams that
stand at its start; any other stream asks Django what it missed) in
Pushpin's background publisher: a page of them at a time
(``events.drafts.DraftEvents``), the rest held by this process for the next
rounds, so that neither a read nor an item grows with the drafts.

A draft's end is claimed by the process that ends it, in the transaction
that ends it (``claim_with_the_end``), and published once that commits,
right after the document event the same commit queued: no other process
can publish a committed draft's end before its document event.

The items bypass Pushpin's sequencing (``no-seq``). Pushpin would hold an
item whose prev-id is not the last id it published on the channel until the
one before it comes, for up to ``message_wait`` (5 s); but it knows no last
id at a channel's first item, and forgets it whenever a stream finds a gap,
and two processes' items crossing then set it back to the older one's: each
later item, though in order, would wait the full 5 s. Unsequenced, an item
goes to the streams as it comes: those that stand at its start take it, any
other asks Django what it missed (about a tenth of a second later).
"""

import json
import logging
import os
import threading
import time
from collections.abc import Callable

from django.db import connections, router, transaction

from ...internals.django_eventstream import grip_chunk_item
from ...models import DraftCounter
from .. import drafts
from ..channels import draft_channel

logger = logging.getLogger(__name__)

COALESCE_SECONDS = 0.05


class DraftPublishing:
    """Schedules threads whose drafts changed, and publishes each when due."""

    def __init__(self, publish: Callable[[str], None]):
        self.publish = publish
        self.changed = threading.Condition()
        self.due: dict[str, float] = {}  # thread -> when its drafts are published next
        self.published_at: dict[str, float] = {}  # thread -> when they were last (the last second's)
        self.held: dict[str, tuple[int, int]] = {}  # thread -> ids this process claimed and has yet to publish
        self.publishing = threading.Lock()  # one page at a time, in the order of the ids
        self.pid: int | None = None

    def schedule(self, thread_id: str) -> None:
        """Publish the thread's new draft events soon (at once, unless it was published under 50 ms ago)."""
        with self.changed:
            if thread_id not in self.due:
                self.due[thread_id] = max(time.monotonic(), self.published_at.get(thread_id, 0.0) + COALESCE_SECONDS)
            if self.pid != os.getpid():
                self.pid = os.getpid()
                threading.Thread(target=self._run, name="workspace-pushpin-drafts", daemon=True).start()
            self.changed.notify()

    def claim_with_the_end(self, thread_id: str) -> None:
        """In the transaction that ends a draft: claim the thread's ids not yet
        published, that end's included, and publish them once it commits."""
        claimed = drafts.claim_unpublished(thread_id)
        if claimed is None:
            return

        def publish_the_end() -> None:  # named: Django's robust handler logs its __qualname__
            self._publish_claimed(thread_id, claimed)

        transaction.on_commit(publish_the_end, using=router.db_for_write(DraftCounter), robust=True)

    def _next_due(self) -> str:
        with self.changed:
            while True:
                if not self.due:
                    self.changed.wait()
                    continue
                thread_id, when = min(self.due.items(), key=lambda item: item[1])
                now = time.monotonic()
                if when > now:
                    self.changed.wait(when - now)
                    continue
                del self.due[thread_id]
                self.published_at = {t: at for t, at in self.published_at.items() if at > now - 1.0}
                self.published_at[thread_id] = now
                return thread_id

    def _run(self) -> None:
        while True:
            thread_id = self._next_due()
            try:
                self._publish(thread_id)
            except Exception:
                logger.warning("could not publish the drafts of thread %.128r to Pushpin", thread_id, exc_info=True)
            finally:
                connections.close_all()  # this thread's connections: none is held between publishes

    def _publish(self, thread_id: str) -> None:
        with self.publishing:
            claimed = self.held.get(thread_id) or drafts.claim_unpublished(thread_id)
            if claimed is not None:
                self._publish_page(thread_id, claimed)

    def _publish_claimed(self, thread_id: str, claimed: tuple[int, int]) -> None:
        """Publish the ``claimed`` ids after those this process holds already, if any."""
        with self.publishing:
            held = self.held.get(thread_id)
            self._publish_page(thread_id, (held[0], claimed[1]) if held is not None else claimed)

    def _publish_page(self, thread_id: str, ids: tuple[int, int]) -> None:
        """Publish the first page of the ``ids`` this process claimed; hold the rest for the next round."""
        after, up_to = ids
        page = drafts.events_after(thread_id, after, until=up_to)
        item = grip_chunk_item(draft_channel(thread_id), page, page.horizon, after)
        item["no-seq"] = True  # never held by Pushpin for the item before it (see above)
        self.publish(json.dumps(item))
        if page.horizon < up_to:
            self.held[thread_id] = page.horizon, up_to
            self.schedule(thread_id)
        elif self.held.pop(thread_id, None) is not None:
            # Pieces committed while this process published what it held were
            # scheduled into the same round, which published the held ids only.
            self.schedule(thread_id)
