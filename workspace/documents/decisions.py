"""A person's decision on a proposal: accept all of its hunks, none, or some,
under the document's row lock, then the proposal's.

The accepted hunks applied to the content the proposal was made on give the
text to apply; it is merged three ways by lines with what changed since
(``merging``), as a person's edit is, and an accepted append is appended to
the content as it is now. A clean result is one change, written as the
agent's (its op, tool, actor and reason) with who accepted it and the
proposal's id; where the two changed the same lines, ``EditConflict`` (409)
and nothing changes: the proposal stays open. A title change goes with the
text: accepted with any hunk. Rejecting every hunk writes no change.
"""

from collections.abc import Sequence

from django.utils import timezone

from ..exceptions import (
    EditConflict,
    InvalidArguments,
    PreconditionFailed,
    ProposalDecided,
    ProposalNotFound,
    RevisionNotFound,
)
from ..history import revisions
from ..models import Proposal, WorkingDocument
from ..signals import DocumentChange, proposal_decided
from ..validation import check_size
from . import writes
from .calls import AGENT, Author, ExpectedVersions
from .hunks import Hunk, hunks, with_hunks
from .merging import MAX_CONFLICTS, Conflict, merge_text, merge_title

Accept = str | Sequence[int]  # "all", "none", or the indexes of the hunks accepted


def decide(
    thread_id: str,
    proposal_id: int,
    accept: Accept,
    note: str | None,
    person: str,
    expected: ExpectedVersions | None,
) -> Proposal:
    """Decide proposal ``proposal_id`` of the thread as ``person``; return it, decided."""
    document = WorkingDocument.objects.select_for_update().filter(thread_id=thread_id).first()
    if expected is not None:
        writes.check_version(expected, document.version if document else 0)
    proposal = Proposal.objects.select_for_update().filter(thread_id=thread_id, pk=proposal_id).first()
    if proposal is None:
        raise ProposalNotFound(f"thread {thread_id!r} has no proposal {proposal_id}")
    if proposal.status != Proposal.Status.OPEN:
        raise ProposalDecided(
            f"proposal {proposal_id} was {proposal.status} by {proposal.decided_by} already; nothing was changed"
        )
    base = base_content(proposal, document)
    found = hunks(proposal.op, base, proposal.content, proposal.text)
    accepted = _accepted(accept, len(found))
    rejected = [hunk.index for hunk in found if hunk.index not in accepted]
    status = _status(accept, accepted, rejected)
    version = None
    if status != Proposal.Status.REJECTED:
        author = Author(
            reason=proposal.action_and_reasoning,
            actor=proposal.actor,
            tool=proposal.tool,
            source=AGENT,
            reviewed_by=person,
            proposal=proposal.pk,
        )
        change = _apply(thread_id, proposal, document, base, found, set(accepted), author)
        version = change.version if change.proposal == proposal.pk else None
    proposal.status, proposal.accepted, proposal.rejected = status, sorted(accepted), rejected
    proposal.decided_by, proposal.decided_at, proposal.note, proposal.version = person, timezone.now(), note, version
    proposal.save(update_fields=["status", "accepted", "rejected", "decided_by", "decided_at", "note", "version"])
    proposal_decided.send(sender=Proposal, thread_id=thread_id, data=decided_event_data(proposal))
    return proposal


def base_content(proposal: Proposal, document: WorkingDocument | None) -> str:
    """The content the proposal was made on; ``PreconditionFailed`` when that version is no longer kept."""
    if proposal.base_version == 0:
        return ""
    if document is not None and document.version == proposal.base_version:
        return document.content
    try:
        if document is None:
            raise RevisionNotFound("the document was deleted")
        return revisions.revision_with_content(document, proposal.base_version)[1]
    except RevisionNotFound:
        current = document.version if document is not None else 0
        raise PreconditionFailed(
            expected=f"version {proposal.base_version}, which the proposal was made on and is no longer kept",
            current=current,
        ) from None


def hunks_now(proposal: Proposal) -> list[Hunk] | None:
    """The proposal's hunks against the content it was made on; None when that is no longer kept."""
    document = WorkingDocument.objects.filter(thread_id=proposal.thread_id).first()
    try:
        base = base_content(proposal, document)
    except PreconditionFailed:
        return None
    return hunks(proposal.op, base, proposal.content, proposal.text)


def decided_event_data(proposal: Proposal) -> dict:
    """The ``proposal-decided`` event's data."""
    return {
        "thread_id": proposal.thread_id,
        "id": proposal.pk,
        "status": proposal.status,
        "accepted": proposal.accepted,
        "rejected": proposal.rejected,
        "version": proposal.version,
        "decided_by": proposal.decided_by,
        "note": proposal.note,
    }


def _accepted(accept: Accept, count: int) -> list[int]:
    """The indexes ``accept`` names, checked against the ``count`` hunks there are."""
    if accept == "all":
        return list(range(count))
    if accept == "none":
        return []
    if isinstance(accept, str) or not isinstance(accept, Sequence):
        raise InvalidArguments('accept must be "all", "none" or a list of hunk indexes')
    bad = [index for index in accept if isinstance(index, bool) or not isinstance(index, int)]
    if bad:
        raise InvalidArguments(f"accept holds {bad[0]!r:.40}, not a hunk index; nothing was changed")
    indexes = [int(index) for index in accept]
    outside = [index for index in indexes if not 0 <= index < count]
    if outside:
        raise InvalidArguments(
            f"the proposal has {count} hunk(s), numbered 0 to {count - 1}; there is no hunk {outside[0]}: "
            "nothing was changed"
            if count
            else f"the proposal has no hunk (only its title changes); there is no hunk {outside[0]}: "
            'accept "all" or "none"'
        )
    if len(set(indexes)) != len(indexes):
        raise InvalidArguments("accept names a hunk twice; nothing was changed")
    return indexes


def _status(accept: Accept, accepted: list[int], rejected: list[int]) -> str:
    if not rejected and (accepted or accept == "all"):
        return Proposal.Status.ACCEPTED
    if not accepted:
        return Proposal.Status.REJECTED
    return Proposal.Status.PARTIAL


def _apply(
    thread_id: str,
    proposal: Proposal,
    document: WorkingDocument | None,
    base: str,
    found: list[Hunk],
    accepted: set[int],
    author: Author,
) -> DocumentChange:
    """Write the accepted part of ``proposal``, merged with what changed since it was made."""
    title = proposal.title if proposal.title != proposal.base_title else None
    if proposal.op == "append":
        text = proposal.text or ""
        if document is None:
            return writes.create(thread_id, text, None, author)
        check_size(document.length + len(text), "the document would have")
        appended = writes.append(thread_id, text, author)
        assert appended is not None  # the row is locked and the text fits
        return appended
    chosen = proposal.content if len(accepted) == len(found) else with_hunks(base, proposal.content, found, accepted)
    if document is None:
        return writes.create(thread_id, chosen, title, author)
    if proposal.base_version == document.version:
        return writes.write_content(document, thread_id, chosen, title, author, op=proposal.op)
    if proposal.base_version == 0:  # made before the document existed, which now holds what others wrote
        conflicts = [Conflict(base="", current=document.content, yours=chosen)] if document.content else []
        merged_text = chosen
    else:
        merged = merge_text(base, document.content, chosen)
        conflicts, merged_text = list(merged.conflicts), merged.text or ""
    if title is not None:
        merged_title = merge_title(proposal.base_title, document.title, title)
        conflicts = [*merged_title.conflicts, *conflicts]
        title = merged_title.text
    if conflicts:
        raise EditConflict(document.version, [vars(conflict) for conflict in conflicts[:MAX_CONFLICTS]])
    check_size(len(merged_text), "the merged document would have")
    return writes.write_content(document, thread_id, merged_text, title, author, op=proposal.op)
