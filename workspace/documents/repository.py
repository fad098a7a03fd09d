"""The public writes of ``WorkingDocument`` (``WorkspaceRepository``): every
change of a document starts here, and ``writes`` carries it out under the row lock.

Each change and its ``Revision`` are written in one transaction, so history
(and the live events replayed from it) holds exactly the changes that
committed. Each write asks the current tool call (``workspace.documents.calls``) once,
at its top, for its ``WriteContext``: the reason, actor and tool a change
records (unless given here), and the version the call expects, checked under
the same row lock as the change. ``statements`` holds the raw SQL,
``snapshot_policy`` when a change stores a whole copy, and ``pruning`` the
upkeep of the revision log.

Writes take a row lock on PostgreSQL (``SELECT ... FOR UPDATE`` or a locking
``UPDATE``); on SQLite the demo project opens every transaction with
``BEGIN IMMEDIATE``, which serialises writers instead.
"""

from datetime import datetime

from django.db import router, transaction

from ..deprecation import moved_names
from ..exceptions import DocumentNotFound, InvalidArguments, PreconditionFailed
from ..history import revisions
from ..models import Proposal, WorkingDocument
from ..signals import DocumentChange, review_changed
from ..validation import TITLE_MAX_LENGTH, check_size, check_text, check_title, validate_thread_id
from . import decisions, edits, person_edits, proposals, pruning, writes
from .calls import AGENT, PERSON, Author, ExpectedVersions, WriteContext, current_call, write_context

__all__ = ["TITLE_MAX_LENGTH", "WRITE_ATTEMPTS", "WorkspaceRepository", "atomic", "check_precondition"]

# A write that finds no document, then finds that another call created it
# first, then finds it deleted again (a host deleting documents as agents
# write them) tries this many times before answering DeletedWhileWriting (409).
WRITE_ATTEMPTS = 3


def atomic(savepoint: bool | None = None) -> transaction.Atomic:
    """The transaction a write of the app runs in, on the documents' database.

    No savepoint inside a tool's transaction (the default there): a failure
    rolls the whole call back anyway, and a savepoint costs two statements.
    Called from the host's own transaction (the default outside a tool call),
    a failed write rolls back to its savepoint only.
    """
    if savepoint is None:
        savepoint = current_call() is None
    return transaction.atomic(using=router.db_for_write(WorkingDocument), savepoint=savepoint)


class WorkspaceRepository:
    """Every write takes ``reason`` and ``actor`` (a tool call's own, inside
    one) and ``source``: ``"agent"`` (the default) or ``"person"`` for a
    change a person made; inside a tool call a change is always an agent's."""

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
        source: str = AGENT,
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
        check_text("content", content)
        check_size(len(content), "content has")
        check_title(title)
        context = write_context(reason, actor, source)
        with atomic(savepoint=not context.in_tool_call):
            expected = _expected_by_upsert(thread_id, context.expected, expected_version)
            if expected is None:
                return _upsert(thread_id, content, title, context.author)
            if _checked_version(thread_id, expected) == 0:
                return writes.create(thread_id, content, title, context.author)
            return writes.replace_locked(thread_id, content, title, context.author)

    @staticmethod
    def append_document(
        thread_id: str, text: str, *, reason: str | None = None, actor: str | None = None, source: str = AGENT
    ) -> DocumentChange:
        """Concatenate ``text`` onto the content in the database; create the document if missing.

        An empty ``text`` on an existing document changes nothing: the returned
        change keeps the current version and no revision is recorded.
        """
        validate_thread_id(thread_id)
        check_text("text", text)
        check_size(len(text), "text has")
        context = write_context(reason, actor, source)
        with atomic(savepoint=not context.in_tool_call):
            if text and context.expected is None:
                # The common case: one locking UPDATE, no read before it.
                appended = writes.append(thread_id, text, context.author)
                if appended:
                    return appended
            # Missing, empty text, too large to take the chunk, or a version to check.
            return _append_after_lock(thread_id, text, context)

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
        source: str = AGENT,
    ) -> tuple[DocumentChange, int, int]:
        """Replace ``old`` (verbatim, once unless ``replace_all``) by ``new``, reading
        and writing under the row lock; return the change, how many were
        replaced, and the character offset of the first replacement. An edit
        that leaves the content as it is (``new`` equal to ``old``) changes
        nothing: the change returned keeps the current version."""
        validate_thread_id(thread_id)
        check_text("old_str", old)
        check_text("new_str", new)
        if not old:
            raise InvalidArguments("old_str is empty: to add text at the end, use append_to_document")
        context = write_context(reason, actor, source)
        with atomic(savepoint=not context.in_tool_call):
            document = WorkingDocument.objects.select_for_update().filter(thread_id=thread_id).first()
            current = document.version if document else 0
            for expected in (context.expected, expected_version):
                if expected is not None:
                    writes.check_version(expected, current)
            if document is None:
                # The caller's input is at fault (400), as for text that is not there.
                raise InvalidArguments(
                    f"thread {thread_id!r} has no document to edit (version 0): "
                    "write it first with update_document or append_to_document"
                )
            replaced = edits.replacements(document.content, old, replace_all=replace_all, version=current)
            # Refused before the result is built: replacing every one of a
            # million characters by 3,000 would first take gigabytes.
            check_size(len(document.content) + replaced * (len(new) - len(old)), "the edited document would have")
            first = document.content.index(old)
            edited = document.content.replace(old, new, replaced)
            change = writes.write_content(document, thread_id, edited, None, context.author, op="edit")
        return change, replaced, first

    @staticmethod
    def restore(
        thread_id: str,
        version: int,
        *,
        expected_version: int | ExpectedVersions | None = None,
        reason: str | None = None,
        actor: str | None = None,
        source: str = AGENT,
    ) -> DocumentChange:
        """Make the content and title of ``version`` the current ones, as a new
        revision. When they are the current ones already, nothing changes, as
        for any write that changes nothing: the change returned keeps the
        current version, and no revision or event is made. With
        ``expected_version``, only if the document is at it (checked under the
        row lock)."""
        validate_thread_id(thread_id)
        context = write_context(reason, actor, source)
        with atomic(savepoint=not context.in_tool_call):
            document = WorkingDocument.objects.select_for_update().filter(thread_id=thread_id).first()
            if document is None:
                raise DocumentNotFound(f"thread {thread_id!r} has no document")
            for expected in (context.expected, expected_version):
                if expected is not None:
                    writes.check_version(expected, document.version)
            revision, content = revisions.revision_with_content(document, version)
            check_size(len(content), "the restored document would have")
            return writes.write_content(
                document,
                thread_id,
                content,
                revision.title,
                context.author,
                op="restore",
                restored_from=version,
            )

    @staticmethod
    def save_person_edit(
        thread_id: str,
        content: str,
        title: str | None = None,
        *,
        based_on: int,
        reason: str | None = None,
        actor: str | None = None,
    ) -> tuple[DocumentChange, bool]:
        """A person's edit of the whole content (and the title, unless None),
        started from version ``based_on`` (0: no document yet): applied at the
        current version, merged by lines with the changes made since an older
        kept one (``person_edits``); return the change and whether it was
        merged. ``EditConflict`` (409) when both changed the same lines,
        ``PreconditionFailed`` (412) when ``based_on`` is not kept; then nothing
        changes. Recorded with ``source`` "person"."""
        validate_thread_id(thread_id)
        check_text("content", content)
        check_size(len(content), "content has")
        check_title(title)
        if isinstance(based_on, bool) or not isinstance(based_on, int) or based_on < 0:
            raise InvalidArguments(f"based_on must be a non-negative integer, got {based_on!r:.40}")
        context = write_context(reason, actor, PERSON)
        with atomic(savepoint=not context.in_tool_call):
            if context.expected is not None:
                writes.lock_at(thread_id, context.expected)
            return person_edits.save(thread_id, content, title, based_on, context.author)

    @staticmethod
    def set_review(thread_id: str, review: bool, *, actor: str | None) -> WorkingDocument:
        """Turn the document's review mode on or off, as ``actor`` (a person):
        not a change of its text (same version, no revision). A thread without
        a document gets the empty one, in that mode."""
        validate_thread_id(thread_id)
        if not isinstance(review, bool):
            raise InvalidArguments(f"review must be true or false, got {review!r:.40}")
        with atomic():
            document = WorkingDocument.objects.select_for_update().filter(thread_id=thread_id).first()
            if document is None:
                turned = "on" if review else "off"
                author = Author(reason=f"Review turned {turned} by {actor}.", actor=actor, tool=None, source=PERSON)
                writes.create(thread_id, "", None, author, review=review)
            else:
                WorkingDocument.objects.filter(pk=document.pk).update(review=review)
            review_changed.send(sender=WorkingDocument, thread_id=thread_id, review=review, actor=actor)
            return WorkingDocument.objects.get(thread_id=thread_id)

    @staticmethod
    def decide_proposal(
        thread_id: str,
        proposal_id: int,
        accept: decisions.Accept,
        *,
        actor: str,
        note: str | None = None,
        expected_version: ExpectedVersions | None = None,
    ) -> Proposal:
        """Accept ``"all"``, ``"none"`` or the listed hunks of a proposal, as
        ``actor`` (a person); return it decided (``decisions``)."""
        validate_thread_id(thread_id)
        with atomic():
            return decisions.decide(thread_id, proposal_id, accept, note, actor, expected_version)

    @staticmethod
    def open_proposals(thread_id: str) -> list[tuple[int, str | None]]:
        """The ids and actors of the thread's proposals waiting for review, oldest first."""
        return proposals.open_proposals(validate_thread_id(thread_id))

    @staticmethod
    def prune_revisions(before: datetime, batch: int = 1000) -> int:
        """Delete the revisions made before ``before``; return how many (see ``pruning.prune_revisions``)."""
        return pruning.prune_revisions(before, batch)


def check_precondition(thread_id: str, expected: ExpectedVersions) -> None:
    """For a call whose tool wrote nothing: is the document (still) at ``expected``?
    Checked under the row lock, in the call's transaction."""
    with atomic():
        writes.lock_at(thread_id, expected)


def _expected_by_upsert(
    thread_id: str, called: ExpectedVersions | None, argument: int | None
) -> int | ExpectedVersions | None:
    """What an upsert expects: its ``expected_version`` argument, once the
    call's own condition is checked (under the row lock) too; else the call's,
    as one version number when it names exactly one."""
    expected = called.only if called is not None and called.only is not None else called
    if argument is None:
        return expected
    if expected is not None:
        writes.lock_at(thread_id, expected)
    return argument


def _checked_version(thread_id: str, expected: int | ExpectedVersions) -> int:
    """The version the document is at (0: none), locked, once it is one
    ``expected`` allows. Expecting no document (0), there is no row to lock:
    the create refuses if another call made one."""
    if expected == 0:
        return 0
    return writes.lock_at(thread_id, expected)


def _upsert(thread_id: str, content: str, title: str | None, author: Author) -> DocumentChange:
    """Replace the content of the document, or create it, whichever the thread needs now."""
    # The common case, a document that exists: its row read under lock, then
    # one UPDATE that also records the revision (bench/throughput.py, bench/statements.py).
    replaced = writes.replace(thread_id, content, title, author)
    if replaced:
        return replaced
    for _ in range(WRITE_ATTEMPTS):
        created = writes.create_unless_present(thread_id, content, title, author)
        if created:
            return created
        # Another call created it first: replace what it wrote, unless it is gone again.
        replaced = writes.replace(thread_id, content, title, author)
        if replaced:
            return replaced
    raise writes.deleted_while_writing()


def _append_after_lock(thread_id: str, text: str, context: WriteContext) -> DocumentChange:
    """Append ``text`` to the document read under its lock, after checking the
    call's expected version; create the document if missing."""
    document = writes.locked_for_append(thread_id)
    if context.expected is not None:
        writes.check_version(context.expected, document.version if document else 0)
    attempts = 0
    while document is None:
        if attempts == WRITE_ATTEMPTS:
            raise writes.deleted_while_writing()
        attempts += 1
        try:
            return writes.create(thread_id, text, None, context.author, op="append")
        except PreconditionFailed:
            if context.expected is not None:
                raise  # the caller expected no document
        document = writes.locked_for_append(thread_id)  # another call created it first: append to it
    if not text:
        return DocumentChange(thread_id, "append", document.version, document.title, document.length, text)
    check_size(document.length + len(text), "the document would have")
    appended = writes.append(thread_id, text, context.author)
    if appended is None:  # the row is locked and the text fits: an agent's append that waits for review
        assert document.review and context.author.proposes
        return writes.proposed_append(thread_id, text, context.author)
    return appended


__getattr__ = moved_names(
    __name__,
    {
        name: f"workspace.history.snapshot_policy.{name}"
        for name in ("SNAPSHOT_EVERY_CHANGES", "SNAPSHOT_MIN_CHARS", "SPLICE_RUN_CHARS", "SPLICE_RUN_MIN")
    },
)
