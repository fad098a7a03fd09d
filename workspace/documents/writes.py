"""One change of a document, written with its revision and announced: create
the document, append to it, or replace its content.

The repository decides which to make, under which lock and precondition;
these write it. Every change is announced here, once (``announced``): the
receivers of ``document_changed`` act after the transaction commits. The
raw SQL is ``statements``'s; whether a change stores a whole copy is
``snapshot_policy``'s.

An agent's change (``Author.proposes``) of a document in review, or of a
thread without one while new documents start in review, is stored as a
proposal instead (``proposals``), here, where the change is known whole
and would otherwise be written; the one-statement append leaves such a
document to the locked path.
"""

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from django.db import IntegrityError, router, transaction

from ..conf import conf
from ..exceptions import DeletedWhileWriting, PreconditionFailed
from ..history import snapshot_policy
from ..history.splices import Splice, splice_between
from ..models import Revision, WorkingDocument
from ..signals import DocumentChange, document_changed
from . import proposals, statements
from .calls import Author, ExpectedVersions
from .statements import Returned


def locked_for_append(thread_id: str) -> WorkingDocument | None:
    """The document, its row locked, with what an append reads of it; None if missing."""
    return (
        WorkingDocument.objects.select_for_update()
        .only("length", "version", "title", "review")
        .filter(thread_id=thread_id)
        .first()
    )


def deleted_while_writing() -> DeletedWhileWriting:
    return DeletedWhileWriting(
        "the document was deleted while this call was writing it; nothing was changed: retry the call"
    )


Result = TypeVar("Result")


def _retried_if_deleted(write: Callable[[], Result]) -> Result:
    """Run ``write`` (a create), once more if it fails the way it does when the
    row it collided with is deleted before it read it (an IntegrityError); a
    second failure is the caller's to retry."""
    try:
        return write()
    except IntegrityError:
        pass
    try:
        return write()
    except IntegrityError:
        raise deleted_while_writing() from None


def check_version(expected: int | ExpectedVersions, current: int) -> None:
    """Refuse unless a document at version ``current`` (0: none) is one the caller expects."""
    if not (expected.match(current) if isinstance(expected, ExpectedVersions) else expected == current):
        raise PreconditionFailed(expected=expected, current=current)


def lock_at(thread_id: str, expected: int | ExpectedVersions) -> int:
    """Lock the document, and refuse unless it is at a version ``expected``
    allows; return that version (0: the thread has none)."""
    current = (
        WorkingDocument.objects.select_for_update()
        .filter(thread_id=thread_id)
        .values_list("version", flat=True)
        .first()
    ) or 0
    check_version(expected, current)
    return current


def _insert(thread_id: str, content: str, title: str | None, review: bool | None) -> WorkingDocument:
    """Insert the document's row (in review as new documents start, unless
    ``review`` says), in a savepoint: an IntegrityError (the thread has one
    already) leaves the call's transaction usable."""
    length = len(content)
    review = conf.REVIEW_DEFAULT if review is None else review
    with transaction.atomic(using=router.db_for_write(WorkingDocument)):
        return WorkingDocument.objects.create(
            thread_id=thread_id, content=content, length=length, title=title or "", base_length=length, review=review
        )


def _proposed_creation(thread_id: str, content: str, title: str | None, author: Author, op: str) -> DocumentChange:
    """An agent's first change of a thread without a document, while new documents start in review."""
    text = content if op == "append" else None
    return proposals.store(thread_id, proposals.Base(0, "", ""), op, content, title or "", author, text=text)


def create(
    thread_id: str, content: str, title: str | None, author: Author, *, op: str = "update", review: bool | None = None
) -> DocumentChange:
    """Create the document and record its first revision, or refuse because it
    exists (``PreconditionFailed``, as for ``If-Match: "0"``). ``op``: the
    change an agent's proposal would name; ``review``: the mode it starts in."""
    if author.proposes and conf.REVIEW_DEFAULT:
        lock_at(thread_id, 0)  # the thread must have none, as for the creation
        return _proposed_creation(thread_id, content, title, author, op)

    def insert_or_refuse() -> WorkingDocument:
        try:
            return _insert(thread_id, content, title, review)
        except IntegrityError:
            lock_at(thread_id, 0)  # it exists: PreconditionFailed
            raise  # it existed, and was deleted before this call could lock it

    return _record_creation(_retried_if_deleted(insert_or_refuse), author)


def create_unless_present(thread_id: str, content: str, title: str | None, author: Author) -> DocumentChange | None:
    """Create the document and record its first revision; None if another call created it first."""
    if author.proposes and conf.REVIEW_DEFAULT:
        if WorkingDocument.objects.filter(thread_id=thread_id).exists():
            return None
        return _proposed_creation(thread_id, content, title, author, "update")
    try:
        document = _insert(thread_id, content, title, None)
    except IntegrityError:
        return None
    return _record_creation(document, author)


def _record_creation(document: WorkingDocument, author: Author) -> DocumentChange:
    """Record the revision of a document just created, a whole copy, and announce it."""
    change = _change(
        document.thread_id,
        "update",
        document.version,
        document.title,
        document.length,
        document.content,
        author,
        document.review,
    )
    Revision.objects.create(
        document_id=document.pk,
        version=change.version,
        op=change.op,
        title=change.title,
        length=change.length,
        text=change.text,
        action_and_reasoning=author.reason,
        actor=author.actor,
        tool=author.tool,
        source=author.source,
        base_version=change.version,
        review=document.review,
        reviewed_by=author.reviewed_by,
        proposal=author.proposal,
    )
    return _announced(change)


def _change(
    thread_id: str, op: str, version: int, title: str, length: int, text: str, author: Author, review: bool
) -> DocumentChange:
    """The ``DocumentChange`` of a change written, with who made it, how and why."""
    return DocumentChange(
        thread_id,
        op,
        version,
        title,
        length,
        text,
        author.actor,
        author.source,
        author.tool,
        author.reason,
        review=review,
        reviewed_by=author.reviewed_by,
        proposal=author.proposal,
    )


def _announced(change: DocumentChange) -> DocumentChange:
    """Announce a change just written (the receivers act after commit), the one place that does."""
    document_changed.send(sender=WorkingDocument, change=change)
    return change


def _revision_of(author: Author, now: Any, **values: Any) -> dict[str, Any]:
    """The columns of a revision, in the order the raw INSERT names them."""
    return {
        **values,
        "action_and_reasoning": author.reason,
        "actor": author.actor,
        "tool": author.tool,
        "source": author.source,
        "review": Returned("review"),
        "reviewed_by": author.reviewed_by,
        "proposal": author.proposal,
        "created_at": now,  # the time the document row records too
    }


def append(thread_id: str, text: str, author: Author) -> DocumentChange | None:
    """Append ``text`` in one locking ``UPDATE`` if the result stays within the
    limit, and record its revision (the same statement, on PostgreSQL); None if
    the thread has no document, it would grow too large, or it is in review
    and an agent's change would wait there as a proposal."""
    due, due_parameters = snapshot_policy.APPEND_SNAPSHOT_DUE, snapshot_policy.append_due_parameters(len(text))
    sql = statements.writing()
    update = (
        f"UPDATE {sql.documents} SET length = length + %s, "
        f"version = version + 1, updated_at = %s, base_version = CASE WHEN {due} THEN version + 1 "
        f"ELSE base_version END, base_length = CASE WHEN {due} THEN length + %s ELSE base_length END, "
        f"stored_since_base = CASE WHEN {due} THEN 0 ELSE stored_since_base + %s END "
        "WHERE thread_id = %s AND length <= %s" + (" AND review = %s" if author.proposes else "")
    )
    parameters = [len(text), sql.now, *due_parameters, *due_parameters, len(text)]
    parameters += [*due_parameters, len(text), thread_id, conf.MAX_DOCUMENT_CHARS - len(text)]
    parameters += [False] if author.proposes else []
    names = ("id", "version", "title", "length", "base_version", "review", "content_version")
    columns = tuple(Returned(name) for name in names)
    document_id, version, title, length, base_version, _, _ = columns
    revision = _revision_of(
        author, sql.now, document_id=document_id, version=version, op="append", title=title, length=length, text=text
    )
    revision["base_version"] = base_version
    row = statements.update_and_record(sql, update, parameters, revision, returning=columns)
    if row is None:
        return None
    snapshot_due = row["base_version"] == row["version"]  # the content now is the next whole copy
    held = row["version"] - row["content_version"]
    if snapshot_due or snapshot_policy.append_folds(row["length"], held):
        statements.fold_appends(sql, row["id"], row["content_version"], row["version"])
    if snapshot_due:
        statements.snapshot_content(sql, row["id"])
    return _announced(
        _change(thread_id, "append", row["version"], row["title"], row["length"], text, author, row["review"])
    )


def proposed_append(thread_id: str, text: str, author: Author) -> DocumentChange:
    """An agent's append to a document in review, its row locked by this transaction: stored as a proposal."""
    document = WorkingDocument.objects.only("version", "title", "content", "content_version").get(thread_id=thread_id)
    base = proposals.Base(document.version, document.title, document.content)
    return proposals.store(thread_id, base, "append", document.content + text, document.title, author, text=text)


class _Locked(NamedTuple):
    """What a change of the whole content reads of the document's row, under its lock."""

    id: int
    version: int
    title: str
    content: str
    base_version: int
    base_length: int
    stored_since_base: int
    review: bool


def replace(thread_id: str, content: str, title: str | None, author: Author) -> DocumentChange | None:
    """Replace the content (and the title, unless None) of an existing document,
    and record its revision; None if the thread has no document. Equal content
    and title change nothing: the current version is returned, unchanged."""
    row = statements.lock_document_row(thread_id, _Locked._fields)
    if row is None:
        return None
    return write_content(_Locked(*row), thread_id, content, title, author, op="update")


def replace_locked(thread_id: str, content: str, title: str | None, author: Author) -> DocumentChange:
    """``replace`` for a document known to exist, its row locked by this transaction."""
    change = replace(thread_id, content, title, author)
    assert change is not None
    return change


def write_content(
    document: _Locked | WorkingDocument,
    thread_id: str,
    content: str,
    title: str | None,
    author: Author,
    *,
    op: str,
    restored_from: int | None = None,
) -> DocumentChange:
    """Make ``content`` (and ``title``, unless None) current on a document whose
    row this transaction has locked, and record the revision: the splice from
    the content before, or a whole copy when ``snapshot_policy`` says so.
    Nothing changes when content and title are as they were; an agent's
    change of a document in review is stored as a proposal instead."""
    title = document.title if title is None else title
    if content == document.content and title == document.title:
        return DocumentChange(thread_id, "update", document.version, title, len(content), content)
    if author.proposes and document.review:
        base = proposals.Base(document.version, document.title, document.content)
        return proposals.store(thread_id, base, op, content, title, author)
    version, length = document.version + 1, len(content)
    splice = splice_between(document.content, content)
    base_version, base_length = document.base_version, document.base_length
    stored = document.stored_since_base + len(splice.inserted)
    whole = snapshot_policy.stores_whole_copy(
        version=version, length=length, splice=splice, stored=stored, base_version=base_version, base_length=base_length
    )
    if whole:
        base_version, base_length, stored = version, length, 0
    sql = statements.writing()
    update = (
        f"UPDATE {sql.documents} SET content = %s, content_version = %s, length = %s, version = %s, title = %s, "
        "base_version = %s, base_length = %s, stored_since_base = %s, updated_at = %s WHERE id = %s"
    )
    parameters = [content, version, length, version, title, base_version, base_length, stored, sql.now]
    revision = _revision_of(
        author,
        sql.now,
        document_id=Returned("id"),
        version=version,
        op=op,
        title=title,
        length=length,
        text=Returned("content") if whole else splice.inserted,  # a whole copy: the content travels once
    )
    revision |= {"base_version": base_version, "restored_from": restored_from}
    revision |= dict(
        zip(("splice_line", "splice_column", "splice_removed"), _splice_columns(splice, whole), strict=True)
    )
    statements.update_and_record(sql, update, [*parameters, document.id], revision)
    return _announced(_change(thread_id, op, version, title, length, content, author, bool(document.review)))


def _splice_columns(splice: Splice, whole: bool) -> tuple[int | None, int | None, int | None]:
    return (None, None, None) if whole else (splice.line, splice.column, splice.removed)
