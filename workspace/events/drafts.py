"""A thread's live drafts as events, read from the drafts' tables
(``draft_store`` writes them; every server process reads the same), a
bounded page at a time.

The drafts channel's event ids are the thread's draft ids (``DraftCounter``:
each row of text and each end takes the next; a piece longer than
``WORKSPACE_EVENT_MAX_CHARS`` is stored as several rows). What follows id
``N``, as of the newest id committed when the read starts:

- for each draft open then that the stream has seen (opened at or before
  ``N``), its rows after ``N`` as ``draft`` events: consecutive rows
  together, each event at most ``WORKSPACE_EVENT_MAX_CHARS`` characters,
  under the id of its last row;
- for each draft it has not seen (opened after ``N``), one ``draft`` event
  from offset 0, the text so far cut at ``WORKSPACE_EVENT_MAX_CHARS`` (then
  ``"omitted": true``), under the id of its newest row: later events go on
  past what it holds;
- for each draft that ended after ``N`` and that the stream may have shown
  (opened at or before ``N``), one ``draft-end``.

A read returns one page (``DraftEvents``): at most ``max_events`` events and
about ``PAGE_FACTOR`` events' worth of characters, so that its memory is
bounded whatever the drafts hold. It covers every id up to its ``horizon``
(the newest id, unless it is cut short): rows, openings and ends are taken
in id order, and where the budget runs out the page ends just before the
next of them, so the next page, read after its last event, misses and
repeats nothing. Each event has an id of its own. So pieces that arrive
together (within the coalescing window of ``feed`` and of Pushpin's
publishing) go out as one event per draft, in order, with no gap and no
repeat. A stream starts, and restarts, at ``resume_id``: just before the
oldest open draft, so that it first gets each open draft from offset 0.
"""

from dataclasses import dataclass

from django.db import router, transaction
from django.db.models.functions import Length

from ..conf import conf
from ..internals.django_eventstream import Event
from ..models import Draft, DraftCounter, DraftPiece
from .channels import draft_channel
from .encoding import encode

PAGE_FACTOR = 8  # a page's characters: this many events' worth (the default's 8 open drafts' openings)
ROWS_READ = 256  # rows of one draft whose lengths one walk reads; text is read in chunks of as many rows
DEFAULT_MAX_EVENTS = 100


class DraftEvents(list[Event]):
    """One page of a thread's draft events, in id order: every event up to
    ``horizon``; ``complete`` when that is the newest id the read asked for
    (else the next page follows its last event)."""

    def __init__(self, events: list[Event], horizon: int, complete: bool):
        super().__init__(events)
        self.horizon = horizon
        self.complete = complete


def is_partial(events: list[Event]) -> bool:
    """Whether a read of a channel gave one page of more (``DraftEvents`` cut short)."""
    return isinstance(events, DraftEvents) and not events.complete


def current_id(thread_id: str) -> int:
    """The newest draft event id of the thread (``DraftCounter.newest_id``: never lower than one it gave)."""
    return DraftCounter.newest_id(thread_id)


def resume_id(thread_id: str) -> int:
    """Where a stream (re)opening now starts: before its oldest open draft, else at the newest id."""
    oldest = (
        Draft.objects.filter(thread_id=thread_id, outcome__isnull=True)
        .order_by("opened_id")
        .values_list("opened_id", flat=True)
        .first()
    )
    return oldest - 1 if oldest is not None else current_id(thread_id)


@dataclass
class _Step:
    """One thing a page may take, in id order: a seen draft's row (``size``
    characters), an unseen draft's opening (at its first row), or an end."""

    event_id: int
    draft: Draft
    size: int = 0
    kind: str = "row"  # "row", "opening" or "end"


def events_after(
    thread_id: str, last_id: int, until: int | None = None, max_events: int = DEFAULT_MAX_EVENTS
) -> DraftEvents:
    """The page of draft events after ``last_id``, up to the newest id (or ``until``), in id order."""
    newest = current_id(thread_id) if until is None else until
    if newest <= last_id:
        return DraftEvents([], newest, complete=True)
    limit = max(conf.EVENT_MAX_CHARS, 1)
    open_drafts = list(Draft.objects.filter(thread_id=thread_id, outcome__isnull=True).defer("parser_state"))
    steps, known_up_to = _steps(thread_id, open_drafts, last_id, newest, max_events, limit)
    horizon = _horizon(steps, known_up_to, max(max_events, 1), limit)
    events: list[tuple[int, Event]] = []
    for draft in {step.draft.id: step.draft for step in steps if step.event_id <= horizon}.values():
        if draft.outcome is not None:
            events.append(_end_event(draft))
        elif draft.opened_id <= last_id:
            events.extend(_runs(draft, last_id, horizon, limit))
        else:
            events.extend(_opening(draft, horizon, limit))
    events.sort(key=lambda pair: pair[0])
    return DraftEvents([event for _, event in events], horizon, complete=horizon == newest)


def _steps(
    thread_id: str, open_drafts: list[Draft], last_id: int, newest: int, max_events: int, limit: int
) -> tuple[list[_Step], int]:
    """What follows ``last_id`` up to ``newest``, in id order, as far as it is
    known: each list read is bounded, and the steps are all known up to the
    id returned (the last of a list that may go on)."""
    known_up_to = newest
    ends = list(
        Draft.objects.filter(thread_id=thread_id, ended_id__gt=last_id, ended_id__lte=newest, opened_id__lte=last_id)
        .defer("parser_state")
        .order_by("ended_id")[:max_events]
    )
    steps = [_Step(_ended_id(draft), draft, kind="end") for draft in ends]
    if len(ends) == max_events:
        known_up_to = steps[-1].event_id
    for draft in open_drafts:
        rows = DraftPiece.objects.filter(draft=draft, event_id__lte=newest).order_by("event_id")
        if draft.opened_id > last_id:  # unseen: its opening, at its first row
            first = rows.values_list("event_id", flat=True).first()
            if first is not None:
                steps.append(_Step(first, draft, min(limit, draft.text_length), kind="opening"))
            continue
        sizes = list(rows.filter(event_id__gt=last_id).values_list("event_id", Length("text"))[:ROWS_READ])
        if len(sizes) == ROWS_READ:
            known_up_to = min(known_up_to, sizes[-1][0])
        steps.extend(_Step(event_id, draft, size) for event_id, size in sizes)
    steps.sort(key=lambda step: step.event_id)
    return steps, known_up_to


def _horizon(steps: list[_Step], known_up_to: int, max_events: int, limit: int) -> int:
    """The last id the page covers: up to ``known_up_to``, ending just before
    the step that would take it past ``max_events`` or ``PAGE_FACTOR`` events
    of ``limit`` characters (the first step is always taken). A seen draft's
    rows make one event while they fit in one of ``limit`` (``_runs``)."""
    events = chars = 0
    max_chars = PAGE_FACTOR * limit
    run: dict[int, int] = {}  # a seen draft's id -> the characters of its event being filled
    for number, step in enumerate(steps):
        if step.event_id > known_up_to:
            break
        filling = run.get(step.draft.id)
        new_event = step.kind != "row" or filling is None or filling + step.size > limit
        if number and (events + new_event > max_events or chars + step.size > max_chars):
            return step.event_id - 1
        events += new_event
        chars += step.size
        if step.kind == "row":
            run[step.draft.id] = step.size if new_event or filling is None else filling + step.size
    return known_up_to


def _runs(draft: Draft, last_id: int, horizon: int, limit: int) -> list[tuple[int, Event]]:
    """A seen draft's rows after ``last_id`` up to ``horizon``: consecutive
    rows in one event while it holds at most ``limit`` characters."""
    rows = (
        DraftPiece.objects.filter(draft=draft, event_id__gt=last_id, event_id__lte=horizon)
        .order_by("event_id")
        .values_list("event_id", "offset", "text")
    )
    events: list[tuple[int, Event]] = []
    texts: list[str] = []
    start = size = last = 0
    for event_id, offset, text in rows:
        if texts and size + len(text) > limit:
            events.append((last, _draft_event(draft, last, start, "".join(texts))))
            texts, size = [], 0
        if not texts:
            start = offset
        texts.append(text)
        size += len(text)
        last = event_id
    if texts:
        events.append((last, _draft_event(draft, last, start, "".join(texts))))
    return events


def _opening(draft: Draft, horizon: int, limit: int) -> list[tuple[int, Event]]:
    """An unseen draft's text up to ``horizon`` from offset 0, cut at ``limit``
    characters, under the id of its newest row up to ``horizon`` (the rows it
    leaves out are behind that id: later events go on past them). Nothing if
    its rows are gone (it ended since the read began: its end comes next)."""
    rows = DraftPiece.objects.filter(draft=draft, event_id__lte=horizon)
    newest = rows.order_by("-event_id").values_list("event_id", "offset", Length("text")).first()
    if newest is None:
        return []
    newest_id, offset, size = newest
    opening_end = (  # the last row that starts within the cut: the rows up to it hold the text shown
        rows.filter(offset__lt=limit).order_by("-offset", "-event_id").values_list("event_id", flat=True).first()
    )
    text = ""
    after = 0
    while opening_end is not None and after < opening_end and len(text) < limit:
        chunk = list(
            rows.filter(event_id__gt=after, event_id__lte=opening_end)
            .order_by("event_id")
            .values_list("event_id", "text")[:ROWS_READ]
        )
        text = "".join([text, *(row_text for _, row_text in chunk)])[:limit]
        after = chunk[-1][0]
    return [(newest_id, _draft_event(draft, newest_id, 0, text, omitted=offset + size > limit))]


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


def _end_event(draft: Draft) -> tuple[int, Event]:
    data = {"call_id": draft.call_id, "outcome": draft.outcome, "version": draft.version}
    if draft.proposal is not None:
        data["proposal"] = draft.proposal
    event_id = _ended_id(draft)
    return event_id, Event(draft_channel(draft.thread_id), "draft-end", encode(data), id=event_id)


def _ended_id(draft: Draft) -> int:
    if draft.ended_id is None:
        raise ValueError(f"{draft} has not ended")
    return draft.ended_id
