"""Every read and write of ``WorkingDocument``: the only module that touches the model.

Writes take a row lock on PostgreSQL (``SELECT ... FOR UPDATE`` or a locking
``UPDATE``); on SQLite the demo project opens every transaction with
``BEGIN IMMEDIATE``, which serialises writers instead.
"""

from dataclasses import dataclass
from typing import Literal

from django.db import connections, router, transaction
from django.db.models import F
from django.utils import timezone

from .conf import conf
from .exceptions import DocumentNotFound, DocumentTooLarge, InvalidArguments
from .models import WorkingDocument
from .signals import document_changed
from .validation import check_storable, validate_thread_id

TITLE_MAX_LENGTH = WorkingDocument._meta.get_field("title").max_length


@dataclass(frozen=True)
class DocumentChange:
    """One committed change: the document's state after it, and what changed.

    ``text`` is the appended chunk for ``append`` and the whole new content for
    ``update``, so applying changes in ``version`` order rebuilds the content.
    """

    thread_id: str
    op: Literal["update", "append"]
    version: int
    title: str
    length: int
    text: str


def atomic():
    """The transaction every write of the app runs in, on the documents' database."""
    return transaction.atomic(using=router.db_for_write(WorkingDocument))


class WorkspaceRepository:
    @staticmethod
    def get_document(thread_id: str) -> WorkingDocument:
        validate_thread_id(thread_id)
        try:
            return WorkingDocument.objects.get(thread_id=thread_id)
        except WorkingDocument.DoesNotExist:
            raise DocumentNotFound(f"thread {thread_id!r} has no document") from None

    @staticmethod
    def upsert_document(thread_id: str, content: str, title: str | None = None) -> DocumentChange:
        """Replace the content (and the title, unless ``title`` is None); create if missing."""
        validate_thread_id(thread_id)
        _check_text("content", content)
        _check_size(len(content), "content has")
        if title is not None:
            _check_text("title", title)
            if len(title) > TITLE_MAX_LENGTH:
                raise InvalidArguments(
                    f"title has {len(title)} characters, more than the limit of {TITLE_MAX_LENGTH}"
                )
        length = len(content)
        updates = {"content": content, "length": length, "version": F("version") + 1}
        if title is not None:
            updates["title"] = title
        with atomic():
            # update_or_create locks the row (select_for_update) and, when two
            # calls race to create it, retries as an update: no IntegrityError escapes.
            document, created = WorkingDocument.objects.update_or_create(
                thread_id=thread_id,
                defaults=updates,
                create_defaults={"content": content, "length": length, "title": title or ""},
            )
            if not created:
                document.refresh_from_db(fields=["version"])
            change = DocumentChange(
                thread_id=thread_id,
                op="update",
                version=document.version,
                title=document.title,
                length=length,
                text=content,
            )
            document_changed.send(sender=WorkingDocument, change=change)
        return change

    @staticmethod
    def append_document(thread_id: str, text: str) -> DocumentChange:
        """Concatenate ``text`` onto the content in the database; create the document if missing.

        An empty ``text`` on an existing document changes nothing: the returned
        change keeps the current version and no ``document_changed`` is sent.
        """
        validate_thread_id(thread_id)
        _check_text("text", text)
        _check_size(len(text), "text has")
        if text:
            # One statement, atomic by itself: no transaction of its own needed.
            appended = _concat(thread_id, text)
            if appended:
                return appended
        with atomic():
            # Missing, empty text, or too large to take the chunk. get_or_create
            # locks the row; if another call created it first, it returns that row.
            document, created = (
                WorkingDocument.objects.select_for_update()
                .only("length", "version", "title")
                .get_or_create(thread_id=thread_id, defaults={"content": text, "length": len(text)})
            )
            if created or not text:
                change = DocumentChange(
                    thread_id=thread_id,
                    op="append",
                    version=document.version,
                    title=document.title,
                    length=document.length,
                    text=text,
                )
                if created:
                    document_changed.send(sender=WorkingDocument, change=change)
                return change
            _check_size(document.length + len(text), "the document would have")
            return _concat(thread_id, text)


def _concat(thread_id: str, text: str) -> DocumentChange | None:
    """Append ``text`` in one locking ``UPDATE ... RETURNING`` if the result stays
    within the limit; None if the thread has no document or it would grow too large.

    Raw SQL because the ORM's ``update()`` cannot return the new version and
    length: a second query, and compiling both, cost several times the
    database's own work on a small document (``bench/append.py``).
    """
    connection = connections[router.db_for_write(WorkingDocument)]
    table = connection.ops.quote_name(WorkingDocument._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET content = content || %s, length = length + %s, "
            "version = version + 1, updated_at = %s "
            "WHERE thread_id = %s AND length <= %s RETURNING version, length, title",
            [
                text,
                len(text),
                connection.ops.adapt_datetimefield_value(timezone.now()),
                thread_id,
                conf.MAX_DOCUMENT_CHARS - len(text),
            ],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    version, length, title = row
    change = DocumentChange(thread_id=thread_id, op="append", version=version, title=title, length=length, text=text)
    document_changed.send(sender=WorkingDocument, change=change)
    return change


def _check_text(name: str, value: object) -> None:
    if not isinstance(value, str):
        raise InvalidArguments(f"{name} must be a string, got {type(value).__name__}")
    check_storable(name, value)


def _check_size(length: int, subject: str) -> None:
    limit = conf.MAX_DOCUMENT_CHARS
    if length > limit:
        raise DocumentTooLarge(
            f"{subject} {length} characters, more than the limit of {limit} "
            "(WORKSPACE_MAX_DOCUMENT_CHARS)"
        )
