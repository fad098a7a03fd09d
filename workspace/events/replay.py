"""The document events a reconnecting client missed, read from the revision
log: each revision is one ``document`` event, its key the event's id. Nothing
here writes."""

import logging
from contextlib import nullcontext

from django.db import DatabaseError, connections, router, transaction
from django.db.models import Case, F, Max, Subquery, TextField, Value, When
from django.db.models.functions import Length, Substr

from ..history.revisions import contents_at
from ..models import Revision

logger = logging.getLogger(__name__)

# How much of a change's action_and_reasoning its event carries.
EVENT_REASON_CHARS = 1000

# What the document events of changes are made of, read in one query.
EVENT_COLUMNS = (
    *("pk", "document_id", "version", "op", "title", "length", "short_text", "splice_line", "base_version"),
    *("actor", "source", "tool", "reason", "review", "reviewed_by", "proposal"),
)


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
            "review": row["review"],
            "reviewed_by": row["reviewed_by"],
            "proposal": row["proposal"],
        }
        for row in rows
    ]
