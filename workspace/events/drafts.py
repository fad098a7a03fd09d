"""A thread's live drafts as events (SPEC 9), read from the drafts' tables
(``draft_store`` writes them; every server process reads the same).

The drafts channel's event ids are the thread's draft ids (``DraftCounter``:
each piece and each end takes the next). What follows id ``N``, as of the
newest id committed when the read starts:

- for each draft open then with pieces after ``N``, one ``draft`` event: the
  text those pieces added, at the offset of the first. A draft the stream
  has not seen (opened after ``N``) comes from offset 0, cut at
  ``WORKSPACE_EVENT_MAX_CHARS`` (then ``"omitted": true``); a longer run of
  one it has seen comes as several events of at most that many characters;
- for each draft that ended after ``N`` and that the stream may have shown
  (opened at or before ``N``), one ``draft-end``.

So pieces that arrive together (within the coalescing window of ``feed``
and of Pushpin's publishing) go out as one event per draft, in order, with
no gap and no repeat. A stream starts, and restarts, at ``resume_id``: just
before the oldest open draft, so that it first gets each open draft whole
from offset 0, and no draft that has ended.
"""

from collections.abc import Iterator

from django.db import router, transaction

from ..conf import conf
from ..internals.django_eventstream import Event
from ..models import Draft, DraftCounter, DraftPiece
from .channels import draft_channel
from .encoding import encode

Piece = tuple[int, int, int, str]  # draft id, event id, offset, text


def current_id(thread_id: str) -> int:
    """The newest draft event id of the thread (0: it never had a draft)."""
    return DraftCounter.objects.filter(thread_id=thread_id).values_list("last_id", flat=True).first() or 0


def resume_id(thread_id: str) -> int:
    """Where a stream (re)opening now starts: before its oldest open draft, else at the newest id."""
    oldest = (
        Draft.objects.filter(thread_id=thread_id, outcome__isnull=True)
        .order_by("opened_id")
        .values_list("opened_id", flat=True)
        .first()
    )
    return oldest - 1 if oldest is not None else current_id(thread_id)


def events_after(thread_id: str, last_id: int, until: int | None = None) -> list[Event]:
    """The draft events after ``last_id`` up to the newest id (or ``until``), in id order."""
    newest = current_id(thread_id) if until is None else until
    if newest <= last_id:
        return []
    pieces: list[Piece] = list(
        DraftPiece.objects.filter(thread_id=thread_id, event_id__gt=last_id, event_id__lte=newest)
        .order_by("event_id")
        .values_list("draft_id", "event_id", "offset", "text")
    )
    by_draft: dict[int, list[Piece]] = {}
    for piece in pieces:
        by_draft.setdefault(piece[0], []).append(piece)
    drafts = Draft.objects.filter(thread_id=thread_id).filter(id__in=by_draft) | Draft.objects.filter(
        thread_id=thread_id, ended_id__gt=last_id, ended_id__lte=newest, opened_id__lte=last_id
    )
    events: list[tuple[int, Event]] = []
    for draft in drafts:
        if draft.id in by_draft:
            events.extend(_draft_events(draft, by_draft[draft.id], seen=draft.opened_id <= last_id))
        if draft.ended_id is not None and last_id < draft.ended_id <= newest and draft.opened_id <= last_id:
            events.append((draft.ended_id, _end_event(draft)))
    events.sort(key=lambda pair: pair[0])
    return [event for _, event in events]


def claim_unpublished(thread_id: str) -> tuple[int, int] | None:
    """The ids not yet published to Pushpin, ``(after, up_to)``, claimed by this
    process alone (another finds them claimed); None when there are none."""
    using = router.db_for_write(DraftCounter)
    with transaction.atomic(using=using):
        counter = DraftCounter.objects.using(using).select_for_update().filter(thread_id=thread_id).first()
        if counter is None or counter.last_id <= counter.published_id:
            return None
        claimed = counter.published_id, counter.last_id
        counter.published_id = counter.last_id
        counter.save(using=using, update_fields=["published_id"])
    return claimed


def _draft_events(draft: Draft, pieces: list[Piece], seen: bool) -> Iterator[tuple[int, Event]]:
    limit = max(conf.EVENT_MAX_CHARS, 1)
    offset = pieces[0][2]
    text = "".join(piece[3] for piece in pieces)
    event_id = pieces[-1][1]
    if not seen:
        yield event_id, _draft_event(draft, event_id, offset, text[:limit], omitted=len(text) > limit)
        return
    for start in range(0, max(len(text), 1), limit):
        yield event_id, _draft_event(draft, event_id, offset + start, text[start : start + limit])


def _draft_event(draft: Draft, event_id: int, offset: int, delta: str, omitted: bool = False) -> Event:
    data: dict = {
        "call_id": draft.call_id,
        "tool": draft.tool,
        "actor": draft.actor,
        "base_version": draft.base_version,
        "field": draft.field,
        "offset": offset,
        "delta": delta,
    }
    if draft.title is not None:
        data["title"] = draft.title
    if omitted:
        data["omitted"] = True
    return Event(draft_channel(draft.thread_id), "draft", encode(data), id=event_id)


def _end_event(draft: Draft) -> Event:
    data = {"call_id": draft.call_id, "outcome": draft.outcome, "version": draft.version}
    return Event(draft_channel(draft.thread_id), "draft-end", encode(data), id=draft.ended_id)
