"""The raw SQL of the write path, for PostgreSQL and SQLite alike.

Raw because the ORM's ``update()`` cannot return what the row holds after
it, and compiling its queries costs several times the database's own work on
a small document (``bench/append.py``, ``bench/statements.py``). One
skeleton writes every change of an existing document: UPDATE its row and
INSERT the revision, in one statement on PostgreSQL (a CTE), two on SQLite.
A proposal is stored in one statement that also holds its thread to the cap.
"""

from dataclasses import dataclass
from typing import Any

from django.db import connections, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorWrapper
from django.db.models import Model
from django.utils import timezone

from ..models import Proposal, Revision, Snapshot, WorkingDocument, appended_between


class Returned(str):
    """A revision's value taken from a column of the document row the UPDATE
    changed (its value after the UPDATE), rather than sent as a parameter."""


def _connection() -> BaseDatabaseWrapper:
    return connections[router.db_for_write(WorkingDocument)]


def _table(connection: BaseDatabaseWrapper, model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@dataclass(frozen=True)
class Writing:
    """What the statements of one change share, looked up once: the documents'
    database, their table (quoted), and the time now as that database takes it."""

    connection: BaseDatabaseWrapper
    documents: str
    now: Any


def writing() -> Writing:
    connection = _connection()
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    return Writing(connection, _table(connection, WorkingDocument), now)


def update_and_record(
    writing: Writing, update: str, parameters: list, revision: dict[str, Any], returning: tuple[Returned, ...] = ()
) -> dict[str, Any] | None:
    """Run ``update`` (an UPDATE of one document row, with its ``parameters``) and
    insert the revision whose columns and values ``revision`` gives; a value
    ``Returned("name")`` is the changed row's column. Return the changed row's
    ``returning`` columns (by name); None, with no revision written, if the
    UPDATE changed no row."""
    insert = f"INSERT INTO {_table(writing.connection, Revision)} ({', '.join(revision)}) "
    used = [value for value in revision.values() if isinstance(value, Returned)]
    taken = list(dict.fromkeys([*used, *returning]))
    with writing.connection.cursor() as cursor:
        if writing.connection.vendor == "postgresql":
            return _in_one_statement(cursor, update, parameters, insert, revision, taken, returning)
        cursor.execute(f"{update} RETURNING {', '.join(taken)}", parameters)
        row = cursor.fetchone()
        if row is None:
            return None
        changed = dict(zip(taken, row, strict=True))
        values = [changed[value] if isinstance(value, Returned) else value for value in revision.values()]
        cursor.execute(f"{insert} VALUES ({', '.join(['%s'] * len(values))})", values)
    return {name: changed[name] for name in returning}


def _in_one_statement(
    cursor: CursorWrapper,
    update: str,
    parameters: list,
    insert: str,
    revision: dict[str, Any],
    taken: list[Returned],
    returning: tuple[Returned, ...],
) -> dict[str, Any] | None:
    """``update_and_record`` on PostgreSQL: the UPDATE in a CTE whose row the
    INSERT reads, so that the row's values travel once (PostgreSQL runs a
    CTE's INSERT whether or not the statement reads what it returns)."""
    values = ", ".join(value if isinstance(value, Returned) else "%s" for value in revision.values())
    sent = [value for value in revision.values() if not isinstance(value, Returned)]
    cursor.execute(
        f"WITH changed AS ({update} RETURNING {', '.join(taken)}), "
        f"recorded AS ({insert} SELECT {values} FROM changed) "
        f"SELECT {', '.join(returning) or '1'} FROM changed",
        [*parameters, *sent],
    )
    row = cursor.fetchone()
    return None if row is None else dict(zip(returning, row, strict=False))


def lock_document_row(thread_id: str, fields: tuple[str, ...]) -> tuple | None:
    """The document's ``fields``, its row locked (``SELECT ... FOR UPDATE``); None
    if missing. Its ``content`` is the content at its version (the appends its
    row's content column does not hold yet joined on)."""
    connection = _connection()
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    selected = ", ".join((*fields, "id", "content_version", "version"))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {selected} FROM {_table(connection, WorkingDocument)} WHERE thread_id = %s{lock}", [thread_id]
        )
        row = cursor.fetchone()
    if row is None or "content" not in fields or row[-2] == row[-1]:
        return None if row is None else row[: len(fields)]
    values = list(row[: len(fields)])
    document_id, content_version, version = row[len(fields) :]
    appended = appended_between(connection.alias, document_id, content_version, version)
    assert appended is not None, "the row is locked: its appends are kept"
    values[fields.index("content")] += appended
    return tuple(values)


def fold_appends(writing: Writing, document_id: int, content_version: int, version: int) -> None:
    """Make the row's content column hold the content at ``version``: the text
    of the appends after ``content_version`` joined on, under the row's lock."""
    appended = appended_between(writing.connection.alias, document_id, content_version, version)
    assert appended is not None, "the row is locked: its appends are kept"
    with writing.connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {writing.documents} SET content = content || %s, content_version = %s WHERE id = %s",
            [appended, version, document_id],
        )


def snapshot_content(writing: Writing, document_id: int) -> None:
    """Store the document's content now as the snapshot of its current version
    (its row's content column must hold it: ``fold_appends`` first)."""
    with writing.connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_table(writing.connection, Snapshot)} (document_id, version, content) "
            f"SELECT id, version, content FROM {writing.documents} WHERE id = %s",
            [document_id],
        )


def delete_before(model: type[Revision] | type[Snapshot], document_id: int, version: int, batch: int) -> int:
    """Delete up to ``batch`` of the document's rows of ``model`` (revisions or
    snapshots) older than ``version``, in one statement; return how many."""
    connection = connections[router.db_for_write(model)]
    table = _table(connection, model)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} WHERE id IN "
            f"(SELECT id FROM {table} WHERE document_id = %s AND version < %s LIMIT %s)",
            [document_id, version, batch],
        )
        return cursor.rowcount


def insert_open_proposal(row: dict[str, Any], most_open: int) -> tuple[int, Any] | None:
    """Insert an open proposal whose columns and values ``row`` gives (its
    ``thread_id`` among them) unless that thread has ``most_open`` open
    proposals already, in one statement that counts no more of them than
    that; return its id and creation time, or None when it was not stored."""
    connection = connections[router.db_for_write(Proposal)]
    table = _table(connection, Proposal)
    created_at = timezone.now()
    columns = [*row, "status", "created_at"]
    values = [*row.values(), Proposal.Status.OPEN.value, connection.ops.adapt_datetimefield_value(created_at)]
    open_ones = f"SELECT 1 FROM {table} WHERE thread_id = %s AND status = %s LIMIT %s"
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({', '.join(columns)}) SELECT {', '.join(['%s'] * len(values))} "
            f"WHERE (SELECT COUNT(*) FROM ({open_ones}) AS open_ones) < %s RETURNING id",
            [*values, row["thread_id"], Proposal.Status.OPEN.value, most_open, most_open],
        )
        stored = cursor.fetchone()
    return None if stored is None else (stored[0], created_at)
