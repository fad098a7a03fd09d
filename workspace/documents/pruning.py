"""The upkeep of the revision log: deleting old revisions so that every kept
version still rebuilds (``manage.py prune_revisions``, or
``WorkspaceRepository.prune_revisions``)."""

from datetime import datetime

from django.db import router, transaction
from django.db.models import Sum
from django.db.models.functions import Length

from ..history import revisions
from ..models import Revision, Snapshot, WorkingDocument
from . import statements


def prune_revisions(before: datetime, batch: int = 1000) -> int:
    """Delete the revisions made before ``before``; return how many.

    Each document keeps at least its newest revision, and every version it
    keeps still rebuilds: when the oldest kept one is an append built on a
    whole copy about to go, its content is saved as a snapshot first, and the
    appends the row's content column does not hold yet are folded into it,
    under the document's row lock. The old rows are then deleted ``batch`` at a
    time, each batch in a short transaction of its own (one statement), so
    writers of the document never wait for more than one batch.
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
                    count = statements.delete_before(model, document_id, oldest, batch)
                deleted += count if model is Revision else 0
                if count < batch:
                    break
    return deleted


def _rebase(document_id: int, before: datetime) -> int:
    """Make the document's oldest revision to keep (made at or after ``before``,
    or else its newest) rebuild on its own; return its version."""
    document = (
        WorkingDocument.objects.select_for_update()
        .only("version", "base_version", "content_version")
        .get(pk=document_id)
    )
    kept = Revision.objects.filter(document_id=document_id, created_at__gte=before).order_by("version")
    oldest = min(kept.values_list("version", flat=True).first() or document.version, document.version)
    if document.content_version + 1 < oldest:  # appends its row's content lacks would go: fold them in first
        statements.fold_appends(statements.writing(), document_id, document.content_version, document.version)
    first = Revision.objects.get(document_id=document_id, version=oldest)
    if first.base_version < oldest:
        Snapshot.objects.get_or_create(
            document_id=document_id, version=oldest, defaults={"content": revisions.content_at(first)}
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
