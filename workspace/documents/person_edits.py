"""A person's edit of the whole document, started from an earlier version,
written under the row lock: applied at the current version (the lines it
left as they were keep their line endings), merged three ways by lines
(``merging``) with the changes made since an older kept one, refused when
the two overlap (``EditConflict``) or the version is not kept
(``PreconditionFailed``). The merge is computed after the lock is taken, in
the writing transaction, so no change slips in between."""

from dataclasses import asdict

from ..exceptions import EditConflict, PreconditionFailed, RevisionNotFound
from ..history import revisions
from ..models import WorkingDocument
from ..signals import DocumentChange
from ..validation import check_size
from . import writes
from .calls import Author
from .merging import MAX_CONFLICTS, apply_edit, merge_text, merge_title


def save(thread_id: str, content: str, title: str | None, based_on: int, author: Author) -> tuple[DocumentChange, bool]:
    """Write the person's ``content`` (and ``title``, unless None) started from
    version ``based_on`` (0: the thread had no document); return the change
    and whether it was merged with changes made since."""
    document = WorkingDocument.objects.select_for_update().filter(thread_id=thread_id).first()
    if document is None:
        if based_on != 0:
            raise PreconditionFailed(expected=based_on, current=0)
        return writes.create(thread_id, content, title, author), False
    if based_on == document.version:
        applied = apply_edit(document.content, content)
        check_size(len(applied), "the document with its line endings kept would have")
        return writes.write_content(document, thread_id, applied, title, author, op="update"), False
    base_content, base_title = _kept(document, based_on)
    merged = merge_text(base_content, document.content, content)
    merged_title = merge_title(base_title, document.title, title) if title is not None else None
    conflicts = [*(merged_title.conflicts if merged_title else []), *merged.conflicts][:MAX_CONFLICTS]
    if conflicts or merged.text is None:
        raise EditConflict(document.version, [asdict(conflict) for conflict in conflicts])
    check_size(len(merged.text), "the merged document would have")
    new_title = merged_title.text if merged_title is not None else None
    return writes.write_content(document, thread_id, merged.text, new_title, author, op="update"), True


def _kept(document: WorkingDocument, version: int) -> tuple[str, str]:
    """The content and title at ``version``; ``PreconditionFailed`` when it is
    0 (an edit started before the document existed: merged, it would put the
    person's whole text before the document's), newer than the current one,
    or no longer kept."""
    if version == 0 or version > document.version:
        raise PreconditionFailed(expected=version, current=document.version)
    try:
        revision, content = revisions.revision_with_content(document, version)
    except RevisionNotFound:
        raise PreconditionFailed(
            expected=f"version {version}, which is no longer kept", current=document.version
        ) from None
    return content, revision.title
