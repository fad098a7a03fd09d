"""Drafts of tool calls still being generated: their state in the
database, where every server process sees it.

A piece (``add``) locks its draft's row and parses the new characters of the
call's JSON arguments from the parser state kept on that row
(``partial_json``: time linear in the piece, never the whole buffer again).
What the tool's text argument gained is inserted as one ``DraftPiece`` under
the thread's next event id (``DraftCounter``: its row lock makes the ids
commit in order), or as several of at most ``WORKSPACE_EVENT_MAX_CHARS``
characters, each under an id of its own, so that a piece costs the same at
the end of a long draft as at its start, and every row is one event.
Ending a draft (``end_call``: committed or failed; cancelled, expired) takes
an id too, records the outcome and deletes the pieces: drafts are not
history. ``draft_changed`` is sent inside each transaction; the events
package announces it after the commit.
"""

import logging
import re
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, connections, router, transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from ..conf import conf
from ..documents.preconditions import check_draft_id
from ..exceptions import DraftEnded, DraftForbidden, DraftTooLarge, InvalidArguments, TooManyDrafts, WorkspaceError
from ..models import Draft, DraftCounter, DraftPiece, WorkingDocument
from ..signals import draft_changed
from ..validation import TITLE_MAX_LENGTH, validate_thread_id
from .partial_json import FieldReader

logger = logging.getLogger(__name__)

# The tools whose drafts viewers watch, and the text argument they see grow.
TEXT_FIELDS = {"update_document": "content", "append_to_document": "text", "edit_document": "new_str"}
ENDED_KEPT_FOR = timedelta(hours=1)  # an ended draft's row: late pieces are refused, not a new draft
CLEANED_AT_ONCE = 1000  # ended drafts, and counters, one check deletes at most
Outcome = Draft.Outcome


def validate_call_id(call_id: object) -> str:
    """``call_id`` if it may name a draft; InvalidArguments (400) otherwise."""
    return check_draft_id(call_id, "the draft's call id")


def max_argument_chars() -> int:
    """The most characters of arguments one draft takes (``DATA_UPLOAD_MAX_MEMORY_SIZE``)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return limit if limit is not None else 12 * conf.MAX_DOCUMENT_CHARS + 64 * 1024


def add(thread_id: str, call_id: str, tool: str, delta: str, actor: str | None) -> int:
    """Append ``delta`` to the arguments of draft ``call_id`` of ``tool`` (the
    first piece opens it); the characters of arguments received so far.

    Refused, changing nothing: a bad id or tool, another tool or actor than
    the draft's, an ended draft, a thread at its open drafts' limit. Refused
    after ending the draft as failed: arguments past the limit, or not JSON."""
    validate_thread_id(thread_id)
    validate_call_id(call_id)
    if tool not in TEXT_FIELDS:
        raise InvalidArguments(f"tool {str(tool)[:130]!r} has no draft: drafts are of {', '.join(TEXT_FIELDS)}")
    if not isinstance(delta, str):
        raise InvalidArguments(f"delta must be a string, got {type(delta).__name__}")
    using = router.db_for_write(Draft)
    received, failure = _add_to_open_draft(using, thread_id, call_id, tool, delta, actor)
    if received is None:  # no such draft: this first piece opens it
        _open(using, thread_id, call_id, tool, actor)
        received, failure = _add_to_open_draft(using, thread_id, call_id, tool, delta, actor)
    if failure is not None:
        raise failure
    assert received is not None  # opened just now
    return received


def _add_to_open_draft(
    using: str, thread_id: str, call_id: str, tool: str, delta: str, actor: str | None
) -> tuple[int | None, WorkspaceError | None]:
    """The characters received with ``delta`` (None: no such draft), and the
    failure that ended the draft, if one did (committed: raise it after)."""
    with transaction.atomic(using=using):
        draft = Draft.objects.using(using).select_for_update().filter(thread_id=thread_id, call_id=call_id).first()
        if draft is None:
            return None, None
        _check_same_call(draft, tool, actor)
        received = draft.received + len(delta)
        failure: WorkspaceError | None = None
        if received > max_argument_chars():
            failure = DraftTooLarge(
                f"the draft's arguments would pass {max_argument_chars()} characters "
                "(DATA_UPLOAD_MAX_MEMORY_SIZE); the draft has ended as failed"
            )
        else:
            try:
                _parse(using, draft, delta)
            except InvalidArguments as error:
                failure = InvalidArguments(
                    f"the draft's arguments are not JSON ({error}); the draft has ended as failed"
                )
        if failure is not None:
            _end(using, draft, Outcome.FAILED)
            return draft.received, failure
        draft.received = received
        draft.touched_at = timezone.now()
        draft.save(using=using, update_fields=["received", "touched_at", "parser_state", "text_length", "title"])
        draft_changed.send(sender=Draft, thread_id=thread_id, ended=False)
        return received, None


def check_call_may_end(thread_id: str, call_id: str, tool: str, actor: str | None, writes: bool) -> None:
    """Refuse, before it runs, a tool call (``tool``, by ``actor``) that names
    draft ``call_id`` (``Draft-Id``) and may not end it: a call that only
    reads (it commits nothing), or an open draft of another tool or another
    user. A call id with no open draft is no refusal: the call ends nothing."""
    if not writes:
        raise InvalidArguments(
            f"{tool[:130]} only reads, and Draft-Id names the draft of a call that writes; "
            "nothing was done: call it without Draft-Id"
        )
    drafts = Draft.objects.using(router.db_for_write(Draft))  # a draft opened just now, on a host with replicas
    draft = drafts.filter(thread_id=thread_id, call_id=call_id, outcome__isnull=True).first()
    if draft is not None:
        _check_same_call(draft, tool, actor)


def end_call(
    thread_id: str, call_id: str, tool: str, actor: str | None, outcome: str, proposal: int | None = None
) -> bool:
    """End draft ``call_id`` with ``outcome`` as the end of the call of
    ``tool`` by ``actor``, in the caller's transaction if any (``committed``:
    at the document's version as that transaction sees it, the call's
    change); False, leaving it as it is, when it is not open or is another
    tool's or another user's (``check_call_may_end`` refused that call
    before it ran, unless the draft opened since). ``proposed``: the call
    stored ``proposal`` instead of changing the document."""
    using = router.db_for_write(Draft)
    with transaction.atomic(using=using):
        draft = (
            Draft.objects.using(using)
            .select_for_update()
            .filter(thread_id=thread_id, call_id=call_id, outcome__isnull=True)
            .first()
        )
        if draft is None or _refusal(draft, tool, actor) is not None:
            return False
        version = None
        if outcome == Outcome.COMMITTED:
            version = (
                WorkingDocument.objects.using(using)
                .filter(thread_id=thread_id)
                .values_list("version", flat=True)
                .first()
            )
        _end(using, draft, outcome, version, proposal)
        return True


def end_expired() -> int:
    """End every draft with no piece for ``WORKSPACE_DRAFT_TIMEOUT`` seconds; how many."""
    due = timezone.now() - timedelta(seconds=conf.DRAFT_TIMEOUT)
    ended = 0
    using = router.db_for_write(Draft)
    for thread_id, call_id in (
        Draft.objects.using(using)
        .filter(outcome__isnull=True, touched_at__lt=due)
        .values_list("thread_id", "call_id")[:1000]
    ):
        with transaction.atomic(using=using):
            draft = (
                Draft.objects.using(using)
                .select_for_update()
                .filter(thread_id=thread_id, call_id=call_id, outcome__isnull=True, touched_at__lt=due)
                .first()
            )
            if draft is not None:
                _end(using, draft, Outcome.EXPIRED)
                ended += 1
    return ended


def cancel(thread_id: str, call_id: str, actor: str | None) -> bool:
    """End draft ``call_id`` as cancelled, if it is open and ``actor``'s; False when not open."""
    validate_thread_id(thread_id)
    validate_call_id(call_id)
    using = router.db_for_write(Draft)
    with transaction.atomic(using=using):
        draft = Draft.objects.using(using).select_for_update().filter(thread_id=thread_id, call_id=call_id).first()
        if draft is None or draft.outcome is not None:
            return False
        _check_same_call(draft, draft.tool, actor)
        _end(using, draft, Outcome.CANCELLED)
        return True


def delete_ended() -> int:
    """Delete the drafts that ended over ``ENDED_KEPT_FOR`` ago, and the
    counters of threads with no draft left (at most ``CLEANED_AT_ONCE`` of
    each); how many rows. A deleted counter raises the floor
    (``DraftCounter.FLOOR``) to its last id, so the thread's ids never go back."""
    using = router.db_for_write(Draft)
    drafts = Draft.objects.using(using)
    ended = drafts.filter(outcome__isnull=False, touched_at__lt=timezone.now() - ENDED_KEPT_FOR)
    deleted, _ = drafts.filter(id__in=list(ended.values_list("id", flat=True)[:CLEANED_AT_ONCE])).delete()
    counters = DraftCounter.objects.using(using).exclude(thread_id=DraftCounter.FLOOR)
    for thread_id in counters.exclude(thread_id__in=drafts.values("thread_id")).values_list("thread_id", flat=True)[
        :CLEANED_AT_ONCE
    ]:
        with transaction.atomic(using=using):
            counter = counters.select_for_update().filter(thread_id=thread_id).first()
            if counter is None or drafts.filter(thread_id=thread_id).exists():  # a draft opened meanwhile
                continue
            DraftCounter.objects.using(using).bulk_create(
                [DraftCounter(thread_id=DraftCounter.FLOOR)], ignore_conflicts=True
            )
            floor = DraftCounter.objects.using(using).filter(thread_id=DraftCounter.FLOOR)
            floor.update(last_id=Greatest(F("last_id"), Value(counter.last_id)))
            counter.delete()
            deleted += 1
    return deleted


def _open(using: str, thread_id: str, call_id: str, tool: str, actor: str | None) -> None:
    """Open the draft in a transaction of its own, under the thread's counter
    lock, so that two first pieces never pass the limit together."""
    with transaction.atomic(using=using):
        counter = _locked_counter(using, thread_id)
        drafts = Draft.objects.using(using).filter(thread_id=thread_id)
        if drafts.filter(call_id=call_id).exists():  # a first piece sent twice at once
            return
        if drafts.filter(outcome__isnull=True).count() >= conf.MAX_DRAFTS_PER_THREAD:
            raise TooManyDrafts(
                f"thread {thread_id!r} has {conf.MAX_DRAFTS_PER_THREAD} open drafts, the most it may have; "
                "end one (commit, cancel) or wait for one to expire"
            )
        version = WorkingDocument.objects.using(using).filter(thread_id=thread_id).values_list("version", flat=True)
        draft = Draft(
            thread_id=thread_id,
            call_id=call_id,
            tool=tool,
            field=TEXT_FIELDS[tool],
            actor=actor,
            base_version=version.first(),
            opened_id=counter.last_id + 1,  # its first piece's id, or later
            touched_at=timezone.now(),
        )
        _create_in_a_free_slot(using, draft)


def _create_in_a_free_slot(using: str, draft: Draft) -> None:
    """Create ``draft`` in a place of its user's that no open draft takes
    (``Draft.slot``, unique among open drafts: two first pieces on other
    threads at once cannot take the same one); TooManyDrafts when all
    ``WORKSPACE_MAX_DRAFTS_PER_USER`` are taken. A draft with no user (a
    Python caller's, ``actor=None``) takes none."""
    if draft.actor is None:
        draft.save(using=using)
        return
    places = conf.MAX_DRAFTS_PER_USER
    open_drafts = Draft.objects.using(using).filter(actor=draft.actor, outcome__isnull=True, slot__isnull=False)
    for _ in range(places):
        taken = set(open_drafts.values_list("slot", flat=True))
        draft.slot = next((slot for slot in range(places) if slot not in taken), None)
        if draft.slot is None:
            break
        try:
            with transaction.atomic(using=using):
                draft.save(using=using)
            return
        except IntegrityError:  # another thread's first piece took it meanwhile: the next free one
            draft.pk = None
    raise TooManyDrafts(
        f"you have {conf.MAX_DRAFTS_PER_USER} open drafts, the most one user may have "
        "(WORKSPACE_MAX_DRAFTS_PER_USER); end one (commit, cancel) or wait for one to expire"
    )


def _check_same_call(draft: Draft, tool: str, actor: str | None) -> None:
    refusal = _refusal(draft, tool, actor)
    if refusal is not None:
        raise refusal


def _refusal(draft: Draft, tool: str, actor: str | None) -> WorkspaceError | None:
    """Why ``actor``'s piece or call of ``tool`` may not add to ``draft`` or end
    it (None: it may): only the draft's own user, with the draft's own tool."""
    if draft.outcome is not None:
        return DraftEnded(f"draft {draft.call_id!r} has ended ({draft.outcome}); a new call needs a new call id")
    if draft.tool != tool:
        return InvalidArguments(f"draft {draft.call_id!r} is of {draft.tool}, not {tool[:130]}; nothing was done")
    if draft.actor != actor:
        return DraftForbidden(f"draft {draft.call_id!r} was opened by another user: only they may add to it or end it")
    return None


def _parse(using: str, draft: Draft, delta: str) -> None:
    """Parse ``delta`` on from the draft's parser state; store what its text
    (and title, once complete) gained as a piece under the next event id."""
    reader = FieldReader(draft.field, state=draft.parser_state or None)
    progress = reader.feed(delta)
    draft.parser_state = reader.state()
    title = progress.completed.get("title")
    if draft.tool == "update_document" and title is not None and draft.title is None:
        draft.title = _displayable(title)[:TITLE_MAX_LENGTH]
    elif not progress.text:
        return
    text = _displayable(progress.text)
    size = max(conf.EVENT_MAX_CHARS, 1)  # one event's text at most: each row is one event of its own
    rows = range(0, max(len(text), 1), size)  # a title alone comes in a row of no text
    last_id = _next_ids(using, draft.thread_id, len(rows))
    for number, start in enumerate(rows):  # one INSERT each: bulk_create's arrays escape text slowly on PostgreSQL
        DraftPiece.objects.using(using).create(
            draft=draft,
            event_id=last_id - len(rows) + 1 + number,
            offset=draft.text_length + start,
            text=text[start : start + size],
        )
    draft.text_length += len(text)


def _end(using: str, draft: Draft, outcome: str, version: int | None = None, proposal: int | None = None) -> None:
    draft.outcome = outcome
    draft.version = version
    draft.proposal = proposal
    draft.ended_id = _next_id(using, draft.thread_id)
    draft.parser_state = {}
    draft.touched_at = timezone.now()
    draft.save(using=using)
    DraftPiece.objects.using(using).filter(draft=draft).delete()
    draft_changed.send(sender=Draft, thread_id=draft.thread_id, ended=True)


def _locked_counter(using: str, thread_id: str) -> DraftCounter:
    """The thread's counter, locked; a new one starts at the floor (``DraftCounter.FLOOR``),
    read once the lock is had: a counter deleted meanwhile has raised it."""
    counters = DraftCounter.objects.using(using).select_for_update()
    counter = counters.filter(thread_id=thread_id).first()
    if counter is None:
        start = DraftCounter.newest_id(thread_id, using)
        new = DraftCounter(thread_id=thread_id, last_id=start, published_id=start)
        DraftCounter.objects.using(using).bulk_create([new], ignore_conflicts=True)  # or another's, just made
        counter = counters.get(thread_id=thread_id)
    return counter


def _next_id(using: str, thread_id: str) -> int:
    return _next_ids(using, thread_id, 1)


def _next_ids(using: str, thread_id: str, count: int) -> int:
    """Take the thread's next ``count`` event ids, its counter locked until the
    commit (one statement; the counter exists since the thread's first draft
    opened); the last of them."""
    table = connections[using].ops.quote_name(DraftCounter._meta.db_table)
    with connections[using].cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET last_id = last_id + %s WHERE thread_id = %s RETURNING last_id", [count, thread_id]
        )
        (event_id,) = cursor.fetchone()
    return int(event_id)


def _displayable(text: str) -> str:
    """``text`` as every database stores it: NUL and lone surrogates (which a
    JSON string may hold) become U+FFFD. A draft is only shown; the call's
    own validation refuses them."""
    return NOT_STORABLE.sub("\ufffd", text)


NOT_STORABLE = re.compile("[\x00\ud800-\udfff]")
