"""Reading the revision log: revisions, the content at any kept version, and
the document events a reconnecting client missed. Nothing here writes."""

import logging
from contextlib import nullcontext

from django.db import DatabaseError, connections, router, transaction
from django.db.models import Case, F, Max, Subquery, TextField, Value, When
from django.db.models.functions import Length, Substr

from .exceptions import DocumentNotFound, RevisionNotFound
from .models import Revision, Snapshot, WorkingDocument
from .splices import Rebuilt
from .validation import validate_thread_id

logger = logging.getLogger(__name__)

# How much of a change's action_and_reasoning its event carries.
EVENT_REASON_CHARS = 1000

# A line diff's work grows with the product of the two sides' line counts at
# worst, so each side is bounded (an empty side made a product bound useless):
# past this many lines on either side, the admin's revision page and the
# panel's history show the two versions whole instead of a line diff.
DIFF_MAX_LINES = 1000

# What the document events of changes are made of, read in one query.
EVENT_COLUMNS = (
    *("pk", "document_id", "version", "op", "title", "length", "short_text", "splice_line", "base_version"),
    *("actor", "source", "tool", "reason"),
)

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


def newest_event_id(thread_id: str) -> int:
    """The id of the thread's newest document event: its newest revision's key; 0 when none."""
    return (
        Revision.objects.filter(document__thread_id=thread_id).order_by("-version").values_list("pk", flat=True).first()
        or 0
    )


def never_handed_out(thread_id: str, event_id: int) -> bool:
    """Whether the thread's document channel cannot have given event ``event_id``:
    it is another thread's revision, or above every key the revision table
    has given. (An id of the thread's that was since pruned, or of its
    deleted document, may have been given, even the newest of all: its
    stream is reset instead.)"""
    if event_id == 0:
        return False
    owner = Revision.objects.filter(pk=event_id).values_list("document__thread_id", flat=True).first()
    if owner is not None:
        return owner != thread_id
    return event_id > _highest_revision_key_given()


def _highest_revision_key_given() -> int:
    """The highest key given to a revision, deleted ones included: the table's
    key sequence where the database tells it (SQLite, PostgreSQL), else the
    highest key there is."""
    connection = connections[router.db_for_read(Revision)]
    table, key = Revision._meta.db_table, Revision._meta.pk.column
    queries: dict[str, tuple[str, list[str | None]]] = {
        "sqlite": ("SELECT seq FROM sqlite_sequence WHERE name = %s", [table]),
        "postgresql": (
            "SELECT pg_sequence_last_value(pg_get_serial_sequence(%s, %s))",
            [connection.ops.quote_name(table), key],
        ),
    }
    given = None
    if connection.vendor in queries:
        # In the caller's transaction, a savepoint: a failed statement would spoil the rest of it.
        guard = transaction.atomic(using=connection.alias) if connection.in_atomic_block else nullcontext()
        try:
            with guard, connection.cursor() as cursor:
                cursor.execute(*queries[connection.vendor])
                given = (cursor.fetchone() or [None])[0]
        except DatabaseError:  # a role that may not read the sequence: what is left will do
            logger.warning("could not read the revision key sequence", exc_info=True)
    if given is None:
        given = Revision.objects.aggregate(highest=Max("pk"))["highest"]
    return given or 0


def event_ids_around(thread_id: str, version: int) -> tuple[int | None, int | None]:
    """The event ids of the thread's changes ``version`` and ``version - 1``
    (version 1 follows event 0); None where not kept."""
    ids = dict(
        Revision.objects.filter(document__thread_id=thread_id, version__in=[version - 1, version]).values_list(
            "version", "pk"
        )
    )
    return ids.get(version), (0 if version == 1 else ids.get(version - 1))


def changes_after(thread_id: str, after: int, limit: int, max_chars: int) -> list[dict] | None:
    """The changes after event ``after`` (a revision's key; 0: from the first
    version), oldest first, at most ``limit``, as the data of their ``document``
    events, each with its ``id``; ``text`` (the appended chunk, or the whole
    content after any other change) is None where it is longer than
    ``max_chars``: the database leaves such a text out, and a version stored
    as a splice is rebuilt only when its content fits, all in one pass.

    None when the changes right after ``after`` are not kept: it was pruned,
    or it belongs to a document since deleted (a new one starts again at
    version 1). The caller cannot catch up from here.
    """
    short_text = Case(When(text_chars__lte=max_chars, then=F("text")), default=Value(None), output_field=TextField())
    revisions = Revision.objects.filter(document__thread_id=thread_id).order_by("version")
    if after:
        anchor = Revision.objects.filter(pk=after, document__thread_id=thread_id).values("version")
        revisions = revisions.filter(version__gte=Subquery(anchor))
    # One character more than an event carries: enough to tell that it was cut.
    reason = Substr("action_and_reasoning", 1, EVENT_REASON_CHARS + 1)
    rows = list(
        revisions.annotate(text_chars=Length("text"), short_text=short_text, reason=reason).values(*EVENT_COLUMNS)[
            : limit + 1
        ]
    )
    if after:
        if not rows or rows[0]["pk"] != after:
            return None
        rows = rows[1:]
    elif rows and rows[0]["version"] != 1:
        return None
    rows = rows[:limit]
    spliced = [row for row in rows if row["splice_line"] is not None and row["length"] <= max_chars]
    contents = {}
    for base_version in sorted({row["base_version"] for row in spliced}):
        versions = {row["version"] for row in spliced if row["base_version"] == base_version}
        contents.update(contents_at(rows[0]["document_id"], base_version, versions))
    return [
        {
            "id": row["pk"],
            "version": row["version"],
            "op": row["op"],
            "title": row["title"],
            "length": row["length"],
            "text": contents.get(row["version"]) if row["splice_line"] is not None else row["short_text"],
            "actor": row["actor"],
            "source": row["source"],
            "tool": row["tool"],
            "action_and_reasoning": row["reason"],
        }
        for row in rows
    ]
