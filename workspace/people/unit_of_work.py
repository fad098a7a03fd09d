"""A person's writes over HTTP (``PUT document/``, ``POST revisions/<v>/restore/``),
each run as a tool call is: in one transaction with its ``Idempotency-Key``,
claimed first and answered from its record on a retry (``idempotency``).

The views read and check the request; this runs the write and stores the
answer in the write's own transaction, so both commit or neither does. The
answer is the document, but its record keeps all of it except the content,
which a retry rebuilds from the revision at the answer's version: a record
stays a few hundred bytes however large the document (a restore of a
megabyte document stored a megabyte for 24 hours).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import router, transaction

from ..documents import idempotency
from ..history import revisions
from ..models import WorkingDocument


@dataclass(frozen=True)
class Answer:
    """What a person's write answers: its status and body, and whether it
    is the stored answer of an earlier request with the same key."""

    status_code: int
    body: dict[str, Any]
    replayed: bool = False


def run(
    owner: str,
    key: str | None,
    thread_id: str,
    request: str,
    arguments: dict[str, Any],
    write: Callable[[], dict],
    *,
    keeps_content: bool = True,
) -> Answer:
    """Run ``write`` (which answers the body of a success) in one transaction,
    with the ``Idempotency-Key`` ``key`` of ``owner`` if any. ``request`` and
    ``arguments`` name what is asked, so that the key reused for anything else
    is refused (422). Any error rolls the write and the claim back.
    ``keeps_content=False``: the body is not the document (a decision's is
    the proposal, without its content), and its record keeps all of it."""
    with transaction.atomic(using=router.db_for_write(WorkingDocument)):
        claimed = None
        if key is not None:
            claimed = idempotency.claim(owner, key, idempotency.fingerprint(thread_id, request, arguments))
            if claimed.envelope is not None:
                replayed = _with_content(thread_id, claimed.envelope) if keeps_content else claimed.envelope
                return Answer(claimed.status_code, replayed, replayed=True)
        body = write()
        if claimed is not None:
            idempotency.store_answer(claimed, 200, {**body, "content": None} if keeps_content else body)
    return Answer(200, body)


def _with_content(thread_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """A stored answer with its content again: the document's at the answer's
    version. A record lives 24 hours (``idempotency.KEPT_FOR``) and
    ``prune_revisions`` keeps at least a day of revisions, so that version is
    still kept; a host that prunes closer, or deletes the document, gets
    ``RevisionNotFound`` (404) on such a retry."""
    _, content = revisions.revision_with_content(revisions.document_id_of(thread_id), body["version"])
    return {**body, "content": content}
