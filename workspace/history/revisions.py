"""Reading the revision log: a document's revisions and its content at any
kept version, rebuilt from the nearest whole copy. Nothing here writes."""

from django.db import connections, router

from ..exceptions import DocumentNotFound, RevisionNotFound
from ..models import Revision, Snapshot, WorkingDocument
from ..validation import validate_thread_id
from .splices import Rebuilt

# A line diff's work grows with the product of the two sides' line counts at
# worst, so each side is bounded (an empty side made a product bound useless):
# past this many lines on either side, the admin's revision page and the
# panel's history show the two versions whole instead of a line diff.
DIFF_MAX_LINES = 1000

# What a list of revisions shows: every field but the changed text.
LISTED_FIELDS = [
    "version",
    "op",
    "title",
    "length",
    "action_and_reasoning",
    "actor",
    "tool",
    "source",
    "restored_from",
    "created_at",
]


def document_id_of(thread_id: str) -> int:
    validate_thread_id(thread_id)
    document_id = WorkingDocument.objects.filter(thread_id=thread_id).values_list("pk", flat=True).first()
    if document_id is None:
        raise DocumentNotFound(f"thread {thread_id!r} has no document")
    return document_id


def revisions_after(thread_id: str, after: int, limit: int) -> list[Revision]:
    """At most ``limit`` revisions with ``version > after``, oldest first, without their text."""
    document_id = document_id_of(thread_id)
    return list(
        Revision.objects.filter(document_id=document_id, version__gt=after)
        .order_by("version")
        .only(*LISTED_FIELDS)[:limit]
    )


def revision_with_content(document: WorkingDocument | int, version: int) -> tuple[Revision, str]:
    """The revision at ``version`` and the whole content of the document then."""
    document_id = getattr(document, "pk", document)
    for _ in range(2):
        # Not the model's ordering by document: it would join the documents' table.
        revision = Revision.objects.filter(document_id=document_id, version=version).order_by("pk").first()
        if revision is None:
            break
        content = content_at(revision)
        if len(content) == revision.length:
            return revision, content
        # Pruned between the reads (its base moved): read the revision again.
    raise RevisionNotFound(f"the document has no revision {version} (it may have been pruned)")


def content_at(revision: Revision) -> str:
    """Rebuild the content at ``revision``: its whole text, or the whole copy at
    its ``base_version`` with the changes since applied (one query, two from a snapshot)."""
    if is_whole_copy(revision.op, revision.splice_line):
        return revision.text
    rebuilt = contents_at(revision.document_id, revision.base_version, {revision.version})
    return rebuilt.get(revision.version, "")  # pruned meanwhile: its length will not match


def is_whole_copy(op: str, splice_line: int | None) -> bool:
    """Whether a revision's text is the whole content then (else a chunk or a splice)."""
    return op != Revision.Op.APPEND and splice_line is None


def contents_at(document_id: int, base_version: int, versions: set[int]) -> dict[int, str]:
    """The content at each of ``versions``, all built on the whole copy at
    ``base_version``, rebuilt in one pass from it (version: content)."""
    # Raw SQL: a run may be a thousand rows, and the ORM's work per row would
    # take about as long as the database's (bench/history.py).
    connection = connections[router.db_for_read(Revision)]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT version, op, text, splice_line, splice_column, splice_removed "
            f"FROM {connection.ops.quote_name(Revision._meta.db_table)} "
            "WHERE document_id = %s AND version >= %s AND version <= %s ORDER BY version",
            [document_id, base_version, max(versions)],
        )
        changes = iter(cursor.fetchall())
    base = next(changes, None)
    if base is not None and is_whole_copy(base[1], base[3]):
        whole = base[2]
    else:  # the copy is a snapshot taken after that change
        snapshot = Snapshot.objects.filter(document_id=document_id, version=base_version)
        whole = snapshot.values_list("content", flat=True).first() or ""
    rebuilt = Rebuilt(whole)
    contents = {base_version: whole} if base_version in versions else {}
    for version, op, text, line, column, removed in changes:
        if op == Revision.Op.APPEND:
            rebuilt.append(text)
        elif line is None:
            rebuilt = Rebuilt(text)
        else:
            rebuilt.splice(line, column, removed, text)
        if version in versions:
            contents[version] = rebuilt.text()
    return contents
