"""Every write of ``WorkingDocument``: the only module that changes a document.

Each change and its ``Revision`` are written in one transaction, so history
(and the live events replayed from it) holds exactly the changes that
committed. The reason, actor and tool of a change come from the current tool
call (``workspace.calls``) unless given here; so does the version the caller
expects, checked under the same row lock as the change.

Writes take a row lock on PostgreSQL (``SELECT ... FOR UPDATE`` or a locking
``UPDATE``); on SQLite the demo project opens every transaction with
``BEGIN IMMEDIATE``, which serialises writers instead.
"""

from datetime import datetime
from typing import NamedTuple

from django.db import IntegrityError, connections, router, transaction
from django.db.models import Sum
from django.db.models.functions import Length
from django.utils import timezone

from . import history
from .calls import ExpectedVersions, current_call
from .conf import conf
from .exceptions import DeletedWhileWriting, DocumentNotFound, DocumentTooLarge, InvalidArguments, PreconditionFailed
from .models import Revision, Snapshot, WorkingDocument
from .signals import DocumentChange, document_changed
from .splices import splice_between
from .validation import check_storable, validate_thread_id

TITLE_MAX_LENGTH = WorkingDocument._meta.get_field("title").max_length

# A whole copy of the content is stored (a snapshot after an append, the
# revision itself after any other change) when the changes since the last
# whole copy reach SNAPSHOT_EVERY_CHANGES, or when the characters their
# revisions store reach the larger of SNAPSHOT_MIN_CHARS and the length of
# that copy, or (for a change that is not an append) when the whole content is
# no longer than the splice would insert and remove. Other changes store only
# their chunk or their splice. Rebuilding a version then reads at most this
# many rows and about twice the document, and whole copies add at most what the
# changes themselves store, or one copy per this many changes.
SNAPSHOT_EVERY_CHANGES = 1000
SNAPSHOT_MIN_CHARS = 64 * 1024
# A run of splices is cut sooner: at one splice per SPLICE_RUN_CHARS characters
# of the whole copy it builds on (at least SPLICE_RUN_MIN). Reading a run of
# one-line splices and applying them costs about what reading a few hundred
# more characters of a whole copy does, so a rebuild stays within about twice
# the time of reading one whole copy, while whole copies add about that many
# characters (compressed) per change. For 1,000 one-line edits of a 100 KB
# document: 1.4 to 1.6 times the time to rebuild a version, and 0.7 KB of
# history per edit where a whole copy each time took 91 KB (bench/history.py).
SPLICE_RUN_CHARS = 512
SPLICE_RUN_MIN = 100


# A write that finds no document, then finds that another call created it
# first, then finds it deleted again (a host deleting documents as agents
# write them) tries this many times before answering DeletedWhileWriting (409).
WRITE_ATTEMPTS = 3


def atomic():
    """The transaction every write of the app runs in, on the documents' database.

    No savepoint inside a tool's transaction: a failure rolls the whole call
    back anyway, and a savepoint costs two statements. Called from the host's
    own transaction, a failed write rolls back to its savepoint only.
    """
    return transaction.atomic(using=router.db_for_write(WorkingDocument), savepoint=current_call() is None)


class WorkspaceRepository:
    @staticmethod
    def get_document(thread_id: str) -> WorkingDocument:
        validate_thread_id(thread_id)
        try:
            return WorkingDocument.objects.get(thread_id=thread_id)
        except WorkingDocument.DoesNotExist:
            raise DocumentNotFound(f"thread {thread_id!r} has no document") from None

    @staticmethod
    def upsert_document(
        thread_id: str,
        content: str,
        title: str | None = None,
        *,
        expected_version: int | None = None,
        reason: str | None = None,
        actor: str | None = None,
    ) -> DocumentChange:
        """Replace the content (and the title, unless ``title`` is None); create if missing.

        With ``expected_version``, only if the document is at that version (0:
        only if the thread has none), checked under the row lock; otherwise
        ``PreconditionFailed`` and nothing changes. Content and title equal to
        the current ones change nothing either: the change returned keeps the
        current version, and no revision or event is made. Inside a tool call
        any error of the repository rolls the whole call back: to catch one and
        go on, make the call inside ``transaction.atomic()``."""
        validate_thread_id(thread_id)
        _check_text("content", content)
        _check_size(len(content), "content has")
        _check_title(title)
        length = len(content)
        created_values = {"content": content, "length": length, "title": title or "", "base_length": length}
        with atomic():
            expected = _expected_version()
            if expected_version is not None:
                if expected is not None:
                    _lock_at(thread_id, expected)  # the call's own condition holds too
                expected = expected_version
            if expected is None:
                # The common case, a document that exists: its row read under
                # lock, then one UPDATE that also records the revision
                # (bench/throughput.py, bench/statements.py).
                replaced = _replace(thread_id, content, title, reason=reason, actor=actor)
                if replaced:
                    return replaced
            if isinstance(expected, ExpectedVersions):  # a list, or *: checked here, then the version it is at
                expected = _lock_at(thread_id, expected)
            elif expected:
                _lock_at(thread_id, expected)
            if expected == 0:
                document = _create(thread_id, created_values)
            elif expected is not None:  # it exists, at that version, locked
                return _replace(thread_id, content, title, reason=reason, actor=actor)
            else:
                for _ in range(WRITE_ATTEMPTS):
                    document = _created_unless_present(thread_id, created_values)
                    if document is not None:
                        break
                    # Another call created it first: replace what it wrote, unless it is gone again.
                    replaced = _replace(thread_id, content, title, reason=reason, actor=actor)
                    if replaced:
                        return replaced
                else:
                    raise _deleted_while_writing()
            change = DocumentChange(thread_id, "update", document.version, document.title, length, content)
            _record(document.pk, change, base_version=change.version, reason=reason, actor=actor)
        return change

    @staticmethod
    def append_document(
        thread_id: str, text: str, *, reason: str | None = None, actor: str | None = None
    ) -> DocumentChange:
        """Concatenate ``text`` onto the content in the database; create the document if missing.

        An empty ``text`` on an existing document changes nothing: the returned
        change keeps the current version and no revision is recorded.
        """
        validate_thread_id(thread_id)
        _check_text("text", text)
        _check_size(len(text), "text has")
        with atomic():
            expected = _expected_version()
            if text and expected is None:
                # The common case: one locking UPDATE, no read before it.
                appended = _concat(thread_id, text, reason=reason, actor=actor)
                if appended:
                    return appended
            # Missing, empty text, too large to take the chunk, or a version to check.
            document = _locked_for_append(thread_id)
            if expected is not None:
                _check_version(expected, document.version if document else 0)
            attempts = 0
            while document is None:
                if attempts == WRITE_ATTEMPTS:
                    raise _deleted_while_writing()
                attempts += 1
                created = _create_for_append(
                    thread_id, text, expecting_none=expected is not None, reason=reason, actor=actor
                )
                if created is not None:
                    return created
                document = _locked_for_append(thread_id)  # another call created it first: append to it
            if not text:
                return DocumentChange(thread_id, "append", document.version, document.title, document.length, text)
            _check_size(document.length + len(text), "the document would have")
            return _concat(thread_id, text, reason=reason, actor=actor)

    @staticmethod
    def edit_document(
        thread_id: str,
        old: str,
        new: str,
        *,
        replace_all: bool = False,
        expected_version: int | None = None,
        reason: str | None = None,
        actor: str | None = None,
    ) -> tuple[DocumentChange, int, int]:
        """Replace ``old`` (verbatim, once unless ``replace_all``) by ``new``, reading
        and writing under the row lock; return the change, how many were
        replaced, and the character offset of the first replacement. An edit
        that leaves the content as it is (``new`` equal to ``old``) changes
        nothing: the change returned keeps the current version."""
        validate_thread_id(thread_id)
        _check_text("old_str", old)
        _check_text("new_str", new)
        if not old:
            raise InvalidArguments("old_str is empty: to add text at the end, use append_to_document")
        with atomic():
            document = WorkingDocument.objects.select_for_update().filter(thread_id=thread_id).first()
            current = document.version if document else 0
            for expected in (_expected_version(), expected_version):
                if expected is not None:
                    _check_version(expected, current)
            if document is None:
                # The caller's input is at fault (400), as for text that is not there.
                raise InvalidArguments(
                    f"thread {thread_id!r} has no document to edit (version 0): "
                    "write it first with update_document or append_to_document"
                )
            content = document.content
            count = content.count(old)
            if count == 0:
                raise InvalidArguments(
                    f"old_str did not appear verbatim in the document (version {current}); "
                    "read the document again and copy the text exactly, white space included"
                )
            if count > 1 and not replace_all:
                lines = _line_numbers_of(content, old, limit=10)
                listed = ", ".join(map(str, lines)) + (", ..." if count > len(lines) else "")
                raise InvalidArguments(
                    f"old_str appears {count} times (lines {listed}); add surrounding context to make it "
                    "unique, or set replace_all to replace every one"
                )
            replaced = count if replace_all else 1
            # Refused before the result is built: replacing every one of a
            # million characters by 3,000 would first take gigabytes.
            _check_size(len(content) + replaced * (len(new) - len(old)), "the edited document would have")
            first = content.index(old)
            edited = content.replace(old, new, replaced)
            change = _write_content(document, thread_id, edited, None, op="edit", reason=reason, actor=actor)
        return change, replaced, first

    @staticmethod
    def restore(thread_id: str, version: int, *, reason: str | None = None, actor: str | None = None) -> DocumentChange:
        """Make the content and title of ``version`` the current ones, as a new
        revision, even when they are the current ones already: a restore is
        an explicit act, and history shows it."""
        validate_thread_id(thread_id)
        with atomic():
            document = WorkingDocument.objects.select_for_update().filter(thread_id=thread_id).first()
            if document is None:
                raise DocumentNotFound(f"thread {thread_id!r} has no document")
            expected = _expected_version()
            if expected is not None:
                _check_version(expected, document.version)
            revision, content = history.revision_with_content(document, version)
            _check_size(len(content), "the restored document would have")
            change = _write_content(
                document,
                thread_id,
                content,
                revision.title,
                op="restore",
                reason=reason,
                actor=actor,
                restored_from=version,
                even_if_unchanged=True,
            )
        return change

    @staticmethod
    def prune_revisions(before: datetime, batch: int = 1000) -> int:
        """Delete the revisions made before ``before``; return how many.

        Each document keeps at least its newest revision, and every version it
        keeps still rebuilds: when the oldest kept one is an append built on a
        whole copy about to go, its content is saved as a snapshot first, under
        the document's row lock. The old rows are then deleted ``batch`` at a
        time, each batch in a short transaction of its own, so writers of the
        document never wait for more than one batch.
        """
        deleted = 0
        using = router.db_for_write(Revision)
        pruned = Revision.objects.filter(created_at__lt=before).values_list("document_id", flat=True).distinct()
        for document_id in list(pruned):
            with transaction.atomic(using=using):
                oldest = _rebase(document_id, before)
            for model in (Revision, Snapshot):
                while True:
                    with transaction.atomic(using=using):
                        keys = list(
                            model.objects.filter(document_id=document_id, version__lt=oldest).values_list(
                                "pk", flat=True
                            )[:batch]
                        )
                        count = model.objects.filter(pk__in=keys)._raw_delete(using) if keys else 0
                    deleted += count if model is Revision else 0
                    if count < batch:
                        break
        return deleted


def _rebase(document_id: int, before: datetime) -> int:
    """Make the document's oldest revision to keep (made at or after ``before``,
    or else its newest) rebuild on its own; return its version."""
    document = WorkingDocument.objects.select_for_update().only("version", "base_version").get(pk=document_id)
    kept = Revision.objects.filter(document_id=document_id, created_at__gte=before).order_by("version")
    oldest = min(kept.values_list("version", flat=True).first() or document.version, document.version)
    first = Revision.objects.get(document_id=document_id, version=oldest)
    if first.base_version < oldest:
        Snapshot.objects.get_or_create(
            document_id=document_id, version=oldest, defaults={"content": history.content_at(first)}
        )
        Revision.objects.filter(document_id=document_id, version__gte=oldest, base_version__lt=oldest).update(
            base_version=oldest
        )
        if document.base_version < oldest:
            since = Revision.objects.filter(document_id=document_id, version__gt=oldest)
            stored = since.aggregate(characters=Sum(Length("text")))["characters"] or 0
            WorkingDocument.objects.filter(pk=document_id).update(
                base_version=oldest, base_length=first.length, stored_since_base=stored
            )
    return oldest


def _locked_for_append(thread_id: str) -> WorkingDocument | None:
    """The document, its row locked, with what an append reads of it; None if missing."""
    return (
        WorkingDocument.objects.select_for_update()
        .only("length", "version", "title")
        .filter(thread_id=thread_id)
        .first()
    )


def _create_for_append(
    thread_id: str, text: str, *, expecting_none: bool, reason: str | None, actor: str | None
) -> DocumentChange | None:
    """Create the document with ``text`` as its content, through ``upsert_document``;
    None if another call created it first (``PreconditionFailed`` instead for a
    caller that expected no document)."""
    try:
        with transaction.atomic(using=router.db_for_write(WorkingDocument)):  # a savepoint: the append goes on
            return WorkspaceRepository.upsert_document(
                thread_id, content=text, expected_version=0, reason=reason, actor=actor
            )
    except PreconditionFailed:
        if expecting_none:
            raise
        return None


def _deleted_while_writing() -> DeletedWhileWriting:
    return DeletedWhileWriting(
        "the document was deleted while this call was writing it; nothing was changed: retry the call"
    )


def _retried_if_deleted(write):
    """Run ``write`` (an ``update_or_create``, or a create), once more if it fails
    the way it does when the row it collided with is deleted before it read it
    (an IntegrityError); a second failure is the caller's to retry."""
    try:
        return write()
    except IntegrityError:
        pass
    try:
        return write()
    except IntegrityError:
        raise _deleted_while_writing() from None


def _expected_version() -> int | ExpectedVersions | None:
    """The version the current call expects (or the versions, for a list or
    ``*``), for its first write only: a second write of the same call builds on the first."""
    call = current_call()
    if call is None or call.expected_version is None or call.precondition_checked:
        return None
    call.precondition_checked = True
    expected = call.expected_version
    return expected.only if expected.only is not None else expected


def _check_version(expected: int | ExpectedVersions, current: int) -> None:
    """Refuse unless a document at version ``current`` (0: none) is one the caller expects."""
    if not (expected.match(current) if isinstance(expected, ExpectedVersions) else expected == current):
        raise PreconditionFailed(expected=expected, current=current)


def _lock_at(thread_id: str, expected: int | ExpectedVersions) -> int:
    """Lock the document, and refuse unless it is at a version ``expected``
    allows; return that version (0: the thread has none)."""
    current = (
        WorkingDocument.objects.select_for_update()
        .filter(thread_id=thread_id)
        .values_list("version", flat=True)
        .first()
    ) or 0
    _check_version(expected, current)
    return current


def check_precondition(thread_id: str, expected: ExpectedVersions) -> None:
    """For a call whose tool wrote nothing: is the document (still) at ``expected``?"""
    with atomic():
        _lock_at(thread_id, expected)


def _create(thread_id: str, values: dict) -> WorkingDocument:
    """Create the document, or refuse because it exists (``If-Match: "0"``)."""

    def create() -> WorkingDocument:
        try:
            with transaction.atomic(using=router.db_for_write(WorkingDocument)):
                return WorkingDocument.objects.create(thread_id=thread_id, **values)
        except IntegrityError:
            _lock_at(thread_id, 0)  # it exists: PreconditionFailed
            raise  # it existed, and was deleted before this call could lock it

    return _retried_if_deleted(create)


def _created_unless_present(thread_id: str, values: dict) -> WorkingDocument | None:
    """Create the document; None if another call created it first."""
    try:
        with transaction.atomic(using=router.db_for_write(WorkingDocument)):  # a savepoint: the call goes on
            return WorkingDocument.objects.create(thread_id=thread_id, **values)
    except IntegrityError:
        return None


def _author(reason: str | None, actor: str | None) -> tuple[str, str | None, str | None]:
    """The reason, actor and tool a revision records: as given, else the current tool call's."""
    call = current_call()
    return (
        reason if reason is not None else (call.reason if call else ""),
        actor if actor is not None else (call.actor if call else None),
        call.tool if call else None,
    )


def _record(
    document_id: int,
    change: DocumentChange,
    *,
    base_version: int,
    reason: str | None,
    actor: str | None,
    op: str | None = None,
    restored_from: int | None = None,
) -> None:
    """Write the change's revision and announce the change (after commit, by the receivers)."""
    reason, actor, tool = _author(reason, actor)
    Revision.objects.create(
        document_id=document_id,
        version=change.version,
        op=op or change.op,
        title=change.title,
        length=change.length,
        text=change.text,
        action_and_reasoning=reason,
        actor=actor,
        tool=tool,
        restored_from=restored_from,
        base_version=base_version,
    )
    document_changed.send(sender=WorkingDocument, change=change)


# Whether the append being made is due a snapshot (see SNAPSHOT_EVERY_CHANGES),
# from the row before it: the UPDATE's expressions all read the old row.
_SNAPSHOT_DUE = (
    "(version + 1 - base_version >= %s OR stored_since_base + %s >= "
    "CASE WHEN base_length > %s THEN base_length ELSE %s END)"
)


def _concat(thread_id: str, text: str, *, reason: str | None, actor: str | None) -> DocumentChange | None:
    """Append ``text`` in one locking ``UPDATE ... RETURNING`` if the result stays
    within the limit, and record its revision; None if the thread has no
    document or it would grow too large.

    Raw SQL because the ORM's ``update()`` cannot return the new version and
    length: a second query, and compiling both, cost several times the
    database's own work on a small document (``bench/append.py``). On
    PostgreSQL the revision is inserted by the same statement.
    """
    connection, documents, insert, now = _raw_writing()
    due = [SNAPSHOT_EVERY_CHANGES, len(text), SNAPSHOT_MIN_CHARS, SNAPSHOT_MIN_CHARS]
    update = (
        f"UPDATE {documents} SET content = content || %s, length = length + %s, version = version + 1, "
        f"updated_at = %s, base_version = CASE WHEN {_SNAPSHOT_DUE} THEN version + 1 ELSE base_version END, "
        f"base_length = CASE WHEN {_SNAPSHOT_DUE} THEN length + %s ELSE base_length END, "
        f"stored_since_base = CASE WHEN {_SNAPSHOT_DUE} THEN 0 ELSE stored_since_base + %s END "
        "WHERE thread_id = %s AND length <= %s"
    )
    update_parameters = [text, len(text), now, *due, *due, len(text), *due, len(text), thread_id]
    update_parameters.append(conf.MAX_DOCUMENT_CHARS - len(text))
    reason, actor, tool = _author(reason, actor)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"WITH appended AS ({update} RETURNING id, version, length, title, base_version) "
                f"{insert} SELECT id, version, 'append', title, length, %s, %s, %s, %s, base_version, %s "
                "FROM appended RETURNING document_id, version, length, title, base_version",
                [*update_parameters, text, reason, actor, tool, now],
            )
            row = cursor.fetchone()
        else:
            cursor.execute(f"{update} RETURNING id, version, length, title, base_version", update_parameters)
            row = cursor.fetchone()
            if row is not None:
                cursor.execute(
                    f"{insert} VALUES (%s, %s, 'append', %s, %s, %s, %s, %s, %s, %s, %s)",
                    [row[0], row[1], row[3], row[2], text, reason, actor, tool, row[4], now],
                )
        if row is None:
            return None
        document_id, version, length, title, base_version = row
        if base_version == version:  # due: the content now is the next whole copy
            snapshots = connection.ops.quote_name(Snapshot._meta.db_table)
            cursor.execute(
                f"INSERT INTO {snapshots} (document_id, version, content) "
                f"SELECT id, version, content FROM {documents} WHERE id = %s",
                [document_id],
            )
    change = DocumentChange(thread_id, "append", version, title, length, text)
    document_changed.send(sender=WorkingDocument, change=change)
    return change


def _raw_writing():
    """What the raw writes share: the connection, the documents' table, the
    start of a revision's INSERT, and the time now as the database takes it."""
    connection = connections[router.db_for_write(WorkingDocument)]
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    return connection, connection.ops.quote_name(WorkingDocument._meta.db_table), _revision_insert(connection), now


def _revision_insert(connection, *more_columns: str) -> str:
    """The start of a revision's INSERT, with ``more_columns`` after the usual ones."""
    columns = ["document_id", "version", "op", "title", "length", "text", "action_and_reasoning", "actor", "tool"]
    columns += ["base_version", "created_at", *more_columns]
    return f"INSERT INTO {connection.ops.quote_name(Revision._meta.db_table)} ({', '.join(columns)}) "


class _Locked(NamedTuple):
    """What a change of the whole content reads of the document's row, under its lock."""

    id: int
    version: int
    title: str
    content: str
    base_version: int
    base_length: int
    stored_since_base: int


def _locked_for_writing(thread_id: str) -> _Locked | None:
    """The document's row, locked (``SELECT ... FOR UPDATE``); None if missing. Raw
    SQL for the reasons of ``_concat``: this is the hot path of update_document."""
    connection, documents, _, _ = _raw_writing()
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(_Locked._fields)} FROM {documents} WHERE thread_id = %s{lock}", [thread_id])
        row = cursor.fetchone()
    return None if row is None else _Locked(*row)


def _replace(thread_id: str, content: str, title: str | None, *, reason: str | None, actor: str | None):
    """Replace the content (and the title, unless None) of an existing document,
    and record its revision; None if the thread has no document. Equal content
    and title change nothing: the current version is returned, unchanged."""
    document = _locked_for_writing(thread_id)
    if document is None:
        return None
    return _write_content(document, thread_id, content, title, op="update", reason=reason, actor=actor)


def _write_content(
    document: _Locked | WorkingDocument,
    thread_id: str,
    content: str,
    title: str | None,
    *,
    op: str,
    reason: str | None,
    actor: str | None,
    restored_from: int | None = None,
    even_if_unchanged: bool = False,
) -> DocumentChange:
    """Make ``content`` (and ``title``, unless None) current on a document whose
    row this transaction has locked, and record the revision: the splice from
    the content before, or a whole copy when one is due (see
    SNAPSHOT_EVERY_CHANGES) or would store no more than the splice would
    change. Nothing changes when content and title are as they were, unless
    ``even_if_unchanged``. On PostgreSQL the revision is inserted by the
    UPDATE's own statement."""
    title = document.title if title is None else title
    if content == document.content and title == document.title and not even_if_unchanged:
        return DocumentChange(thread_id, "update", document.version, title, len(content), content)
    version, length = document.version + 1, len(content)
    splice = splice_between(document.content, content)
    stored = document.stored_since_base + len(splice.inserted)
    run = min(SNAPSHOT_EVERY_CHANGES, max(SPLICE_RUN_MIN, document.base_length // SPLICE_RUN_CHARS))
    whole = (
        version - document.base_version >= run
        or stored >= max(document.base_length, SNAPSHOT_MIN_CHARS)
        or length <= len(splice.inserted) + splice.removed
    )
    if whole:
        base_version, base_length, stored, splice = version, length, 0, None
    else:
        base_version, base_length = document.base_version, document.base_length
    connection, documents, _, now = _raw_writing()
    update = (
        f"UPDATE {documents} SET content = %s, length = %s, version = %s, title = %s, base_version = %s, "
        "base_length = %s, stored_since_base = %s, updated_at = %s WHERE id = %s"
    )
    update_parameters = [content, length, version, title, base_version, base_length, stored, now, document.id]
    insert = _revision_insert(connection, "restored_from", "splice_line", "splice_column", "splice_removed")
    reason, actor, tool = _author(reason, actor)
    revision = [version, op, title, length, splice and splice.inserted, reason, actor, tool, base_version, now]
    revision += [restored_from, *((splice.line, splice.column, splice.removed) if splice else (None, None, None))]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A whole copy is taken from the updated row: the content travels once.
            values = "id, %s, %s, %s, %s, COALESCE(%s, content), " + ", ".join(["%s"] * 9)
            cursor.execute(
                f"WITH replaced AS ({update} RETURNING id, content) {insert} SELECT {values} FROM replaced",
                [*update_parameters, *revision],
            )
        else:
            cursor.execute(update, update_parameters)
            revision[4] = content if splice is None else splice.inserted
            cursor.execute(f"{insert} VALUES ({', '.join(['%s'] * 15)})", [document.id, *revision])
    change = DocumentChange(thread_id, "update", version, title, length, content)
    document_changed.send(sender=WorkingDocument, change=change)
    return change


def _line_numbers_of(content: str, text: str, limit: int) -> list[int]:
    """The 1-based line numbers where the first ``limit`` occurrences of ``text`` start."""
    lines, start, line, position = [], 0, 1, content.find(text)
    while position != -1 and len(lines) < limit:
        line += content.count("\n", start, position)
        lines.append(line)
        start, position = position, content.find(text, position + len(text))
    return lines


def _check_text(name: str, value: object) -> None:
    if not isinstance(value, str):
        raise InvalidArguments(f"{name} must be a string, got {type(value).__name__}")
    check_storable(name, value)


def _check_title(title: object) -> None:
    if title is None:
        return
    _check_text("title", title)
    if len(title) > TITLE_MAX_LENGTH:
        raise InvalidArguments(f"title has {len(title)} characters, more than the limit of {TITLE_MAX_LENGTH}")


def _check_size(length: int, subject: str) -> None:
    limit = conf.MAX_DOCUMENT_CHARS
    if length > limit:
        raise DocumentTooLarge(
            f"{subject} {length} characters, more than the limit of {limit} (WORKSPACE_MAX_DOCUMENT_CHARS)"
        )
