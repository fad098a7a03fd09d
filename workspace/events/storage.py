"""Where streams read their events (``EVENTSTREAM_STORAGE_CLASS``).

Document events are read from the revision log, the record each change
wrote in its own transaction: in version order, none twice, and none lost
when a process dies right after a commit. Artifact events are stored in
django-eventstream's tables by the tool's transaction, and kept 24 hours.
Draft events are read from the drafts' tables (``events.drafts``).
"""

from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import close_old_connections, connections, router
from django.utils import timezone

from ..conf import conf
from ..internals.django_eventstream import Event, EventCounter, EventDoesNotExist, StorageBase, StoredEvent
from ..signals import DocumentChange
from . import drafts, replay
from .channels import ARTIFACT_PREFIX, DOCUMENT_PREFIX, DRAFT_PREFIX
from .encoding import encode, fits
from .replay import EVENT_REASON_CHARS

ARTIFACTS_KEPT_FOR = timedelta(hours=24)


def document_event_data(thread_id: str, change: dict) -> dict:
    """A ``document`` event from a change (``version, op, revision_op, title, length, text``;
    ``text`` None when too long to carry: the event then says ``"omitted": true``;
    and ``actor, source, tool, action_and_reasoning``, the reason cut to its first
    ``EVENT_REASON_CHARS`` characters, then with ``"reason_truncated": true``;
    ``review``, the document's mode then, and for an accepted proposal
    ``reviewed_by`` and ``proposal``, else null).
    The one builder of these events: live, replayed from the revisions, to Pushpin."""
    op = "append" if change["op"] == "append" else "update"  # an edit or a restore replaces the content
    data = {
        "thread_id": thread_id,
        "version": change["version"],
        "op": op,
        "revision_op": change["op"],  # as the revision names it: an edit or a restore too
        "title": change["title"],
        "length": change["length"],
    }
    if change["text"] is None or not fits(change["text"]):
        data["omitted"] = True
    else:
        data["text" if op == "append" else "content"] = change["text"]
    reason = change["action_and_reasoning"] or ""
    data |= {
        "actor": change["actor"],
        "source": change["source"],
        "tool": change["tool"],
        "action_and_reasoning": reason[:EVENT_REASON_CHARS],
        "review": bool(change["review"]),
        "reviewed_by": change["reviewed_by"],
        "proposal": change["proposal"],
    }
    if len(reason) > EVENT_REASON_CHARS:
        data["reason_truncated"] = True
    return data


class ThreadEventStorage(StorageBase):
    """Each read gives its database connection back at once: an open stream
    would otherwise hold a pooled connection for as long as its viewer stays."""

    def get_events(self, channel: str, last_id: int, limit: int = 100) -> list:
        try:
            if channel.startswith(DOCUMENT_PREFIX):
                return self._document_events(channel, last_id, limit)
            if channel.startswith(DRAFT_PREFIX):
                # One page, never more than django-eventstream keeps of a read (it cuts at limit - 1).
                return drafts.events_after(channel.removeprefix(DRAFT_PREFIX), last_id, max_events=limit - 1)
            return self._artifact_events(channel, last_id, limit)
        finally:
            close_old_connections()

    def get_current_id(self, channel: str) -> int:
        return self.current_ids([channel])[channel]

    def current_ids(self, channels: list[str]) -> dict[str, int]:
        """The newest id of each channel, in one use of the connection."""
        try:
            return {channel: self._current_id(channel) for channel in channels}
        finally:
            close_old_connections()

    def _current_id(self, channel: str) -> int:
        if channel.startswith(DOCUMENT_PREFIX):
            return replay.newest_event_id(channel.removeprefix(DOCUMENT_PREFIX))
        if channel.startswith(DRAFT_PREFIX):
            return drafts.current_id(channel.removeprefix(DRAFT_PREFIX))
        return EventCounter.objects.filter(name=channel).values_list("value", flat=True).first() or 0

    def never_handed_out(self, channel: str, event_id: int) -> bool:
        """Whether ``channel`` cannot have given ``event_id``: one above any it
        gave, or of another thread. (One it gave that is no longer kept resets
        the stream, as django-eventstream does.)"""
        try:
            if channel.startswith(DOCUMENT_PREFIX):
                return replay.never_handed_out(channel.removeprefix(DOCUMENT_PREFIX), event_id)
            if channel.startswith(DRAFT_PREFIX):
                return event_id > drafts.current_id(channel.removeprefix(DRAFT_PREFIX))
            return event_id > self.get_current_id(channel)
        finally:
            close_old_connections()

    def document_event(self, change: DocumentChange) -> tuple[Event, int | None] | None:
        """The event of a committed ``DocumentChange`` and the id before it on
        its channel (None: not kept); None when its revision is gone already."""
        event_id, previous_id = replay.event_ids_around(change.thread_id, change.version)
        if event_id is None:
            return None
        data = document_event_data(change.thread_id, vars(change))
        return Event(DOCUMENT_PREFIX + change.thread_id, "document", encode(data), id=event_id), previous_id

    def _document_events(self, channel: str, last_id: int, limit: int) -> list:
        thread_id = channel.removeprefix(DOCUMENT_PREFIX)
        changes = replay.changes_after(thread_id, last_id, limit, conf.EVENT_MAX_CHARS)
        if changes is None:
            raise EventDoesNotExist(f"no change {last_id} to resume from", replay.newest_event_id(thread_id))
        return [
            Event(channel, "document", encode(document_event_data(thread_id, change)), id=change["id"])
            for change in changes
        ]

    def _artifact_events(self, channel: str, last_id: int, limit: int) -> list:
        current = EventCounter.objects.filter(name=channel).values_list("value", flat=True).first() or 0
        if last_id == current:
            return []
        rows = list(StoredEvent.objects.filter(channel=channel, eid__gte=last_id).order_by("eid")[: limit + 1])
        if not rows or rows[0].eid != last_id:
            raise EventDoesNotExist(f"no event {last_id} to resume from", current)
        return [Event(channel, row.type, row.data, id=row.eid) for row in rows[1:]]

    def append_event(self, channel: str, event_type: str, data: Any) -> Event:
        """Store an artifact event, in the caller's transaction: the counter's
        row lock is held until commit, so ids become visible in order. A new
        channel also gets the placeholder it is resumed from (id 0). One
        statement on PostgreSQL (the counter's upsert in a CTE), two on SQLite."""
        if not channel.startswith(ARTIFACT_PREFIX):
            raise ValueError(f"only artifact events are stored here, not events of {channel!r}")
        connection = connections[router.db_for_write(StoredEvent)]
        counters = connection.ops.quote_name(EventCounter._meta.db_table)
        events = connection.ops.quote_name(StoredEvent._meta.db_table)
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        encoded = encode(data)
        count = (
            f"INSERT INTO {counters} (name, value, updated) VALUES (%s, 1, %s) "
            f"ON CONFLICT (name) DO UPDATE SET value = {counters}.value + 1, updated = %s RETURNING value"
        )
        insert = f"INSERT INTO {events} (channel, type, data, eid, created) "
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute(
                    f"WITH counted AS ({count}) {insert}"
                    "SELECT %s, %s, %s, value, %s FROM counted "
                    "UNION ALL SELECT %s, '', '', 0, %s FROM counted WHERE value = 1 RETURNING eid",
                    [channel, now, now, channel, event_type, encoded, now, channel, now],
                )
                event_id = max(eid for (eid,) in cursor.fetchall())
            else:
                cursor.execute(count, [channel, now, now])
                (event_id,) = cursor.fetchone()
                rows = [(channel, event_type, encoded, event_id, now)]
                if event_id == 1:
                    rows.insert(0, (channel, "", "", 0, now))
                cursor.executemany(f"{insert}VALUES (%s, %s, %s, %s, %s)", rows)
        self.trim_event_log()
        return Event(channel, event_type, encoded, id=event_id)

    TRIM_INTERVAL = timedelta(minutes=1)
    # Per process, shared by instances; in UTC whatever USE_TZ says (timezone.now()
    # is naive under USE_TZ = False, and cannot be compared with an aware time).
    _next_trim = datetime.min.replace(tzinfo=UTC)

    def trim_event_log(self) -> None:
        """Delete artifact events older than a day, in one statement, at most once a minute per process."""
        now_in_utc = datetime.now(UTC)
        if now_in_utc < ThreadEventStorage._next_trim:
            return
        ThreadEventStorage._next_trim = now_in_utc + self.TRIM_INTERVAL
        StoredEvent.objects.filter(created__lt=timezone.now() - ARTIFACTS_KEPT_FOR).delete()
