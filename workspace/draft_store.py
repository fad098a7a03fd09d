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
from django.db import connections, router, transaction
from django.utils import timezone

from .conf import conf
from .exceptions import DraftEnded, DraftForbidden, DraftTooLarge, InvalidArguments, TooManyDrafts, WorkspaceError
from .models import Draft, DraftCounter, DraftPiece, WorkingDocument
from .partial_json import FieldReader
from .preconditions import DRAFT_ID_PATTERN
from .signals import draft_changed
from .validation import TITLE_MAX_LENGTH, validate_thread_id

logger = logging.getLogger(__name__)

# The tools whose drafts viewers watch, and the text argument they see grow.
TEXT_FIELDS = {"update_document": "content", "append_to_document": "text", "edit_document": "new_str"}
ENDED_KEPT_FOR = timedelta(hours=1)  # an ended draft's row: late pieces are refused, not a new draft
Outcome = Draft.Outcome


def validate_call_id(call_id: object) -> str:
    if not isinstance(call_id, str) or not DRAFT_ID_PATTERN.fullmatch(call_id):
        raise InvalidArguments(
            f"invalid draft call id {str(call_id)[:65]!r}: use 1 to 64 characters of A-Z a-z 0-9 _ -"
        )
    return call_id


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
    draft = Draft.objects.filter(thread_id=thread_id, call_id=call_id, outcome__isnull=True).first()
    if draft is not None:
        _check_same_call(draft, tool, actor)


def end_call(
    thread_id: str, call_id: str, tool: str, actor: str | None, outcome: str, version: int | None = None
) -> bool:
    """End draft ``call_id`` with ``outcome`` (``version``: the committed one)
    as the end of the call of ``tool`` by ``actor``, in the caller's
    transaction if any; False, leaving it as it is, when it is not open or
    is another tool's or another user's (``check_call_may_end`` refused
    that call before it ran, unless the draft opened since)."""
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
        _end(using, draft, outcome, version)
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
        if draft.actor != actor:
            raise DraftForbidden("this draft was opened by another user")
        _end(using, draft, Outcome.CANCELLED)
        return True


def _open(using: str, thread_id: str, call_id: str, tool: str, actor: str | None) -> None:
    """Open the draft in a transaction of its own, under the thread's counter
    lock, so that two first pieces never pass the limit together."""
    with transaction.atomic(using=using):
        counter = _locked_counter(using, thread_id)
        drafts = Draft.objects.using(using).filter(thread_id=thread_id)
        if drafts.filter(call_id=call_id).exists():  # a first piece sent twice at once
            return
        drafts.filter(outcome__isnull=False, touched_at__lt=timezone.now() - ENDED_KEPT_FOR).delete()
        if drafts.filter(outcome__isnull=True).count() >= conf.MAX_DRAFTS_PER_THREAD:
            raise TooManyDrafts(
                f"thread {thread_id!r} has {conf.MAX_DRAFTS_PER_THREAD} open drafts, the most it may have; "
                "end one (commit, cancel) or wait for one to expire"
            )
        version = WorkingDocument.objects.using(using).filter(thread_id=thread_id).values_list("version", flat=True)
        Draft.objects.using(using).create(
            thread_id=thread_id,
            call_id=call_id,
            tool=tool,
            field=TEXT_FIELDS[tool],
            actor=actor,
            base_version=version.first(),
            opened_id=counter.last_id + 1,  # its first piece's id, or later
            touched_at=timezone.now(),
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


def _end(using: str, draft: Draft, outcome: str, version: int | None = None) -> None:
    draft.outcome = outcome
    draft.version = version
    draft.ended_id = _next_id(using, draft.thread_id)
    draft.parser_state = {}
    draft.touched_at = timezone.now()
    draft.save(using=using)
    DraftPiece.objects.using(using).filter(draft=draft).delete()
    draft_changed.send(sender=Draft, thread_id=draft.thread_id, ended=True)


def _locked_counter(using: str, thread_id: str) -> DraftCounter:
    counter, _ = DraftCounter.objects.using(using).select_for_update().get_or_create(thread_id=thread_id)
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
