"""An agent's change stored as a proposal instead of applied, while its
document is in review: in the writing transaction, under the row lock the
write took (none when the thread has no document yet), with the content and
title the change would have left.

The writes call ``store`` where they would write an agent's change
(``writes``): validation, preconditions and idempotency have run as for a
direct change, and a change that changes nothing reaches neither. At most
``WORKSPACE_MAX_OPEN_PROPOSALS`` wait per thread (``TooManyProposals``, 429).
The tool call learns the proposal's id (``ToolCall.proposal``), so that its
draft ends as ``proposed``; viewers hear of it through ``proposal_stored``.
"""

from dataclasses import dataclass

from ..conf import conf
from ..exceptions import ProposalNotFound, TooManyProposals
from ..models import Proposal
from ..signals import DocumentChange, proposal_stored
from . import statements
from .calls import Author, current_call
from .hunks import Hunk, hunks


@dataclass(frozen=True)
class Base:
    """What a proposal is made on: the document's version (0: none), title and content."""

    version: int
    title: str
    content: str


def store(
    thread_id: str, base: Base, op: str, content: str, title: str, author: Author, text: str | None = None
) -> DocumentChange:
    """Store the change ``op`` that would leave ``content`` and ``title`` (an
    append: of ``text``) as an open proposal; return what the call answers of it."""
    row = {
        "thread_id": thread_id,
        "base_version": base.version,
        "base_title": base.title,
        "tool": author.tool or "",
        "op": op,
        "actor": author.actor,
        "action_and_reasoning": author.reason,
        "title": title,
        "content": content,
        "text": text,
    }
    stored = statements.insert_open_proposal(row, conf.MAX_OPEN_PROPOSALS)
    if stored is None:
        raise TooManyProposals(
            f"thread {thread_id!r} has {conf.MAX_OPEN_PROPOSALS} proposals waiting for review, the most it may; "
            "nothing was stored: retry once a person has decided some"
        )
    proposal = Proposal(id=stored[0], created_at=stored[1], **row)
    call = current_call()
    if call is not None:
        call.proposal = proposal.pk
    found = hunks(op, base.content, content, text)
    proposal_stored.send(sender=Proposal, thread_id=thread_id, data=event_data(proposal, found))
    return DocumentChange(
        thread_id,
        op,
        base.version,
        title,
        len(content),
        content,
        author.actor,
        author.source,
        author.tool,
        author.reason,
        review=True,
        proposal=proposal.pk,
    )


def event_data(proposal: Proposal, found: list[Hunk]) -> dict:
    """The ``proposal`` event's data (the events cut what is too long to carry)."""
    data = {
        "thread_id": proposal.thread_id,
        "id": proposal.pk,
        "base_version": proposal.base_version,
        "tool": proposal.tool,
        "op": proposal.op,
        "actor": proposal.actor,
        "action_and_reasoning": proposal.action_and_reasoning,
        "hunks": [hunk.shown() for hunk in found],
        "created_at": proposal.created_at.isoformat(),
    }
    if proposal.title != proposal.base_title:
        data["title"] = {"old": proposal.base_title, "new": proposal.title}
    return data


def open_proposals(thread_id: str) -> list[tuple[int, str | None]]:
    """The thread's open proposals, oldest first: their ids and actors."""
    return list(
        Proposal.objects.filter(thread_id=thread_id, status=Proposal.Status.OPEN)
        .order_by("id")
        .values_list("id", "actor")[: conf.MAX_OPEN_PROPOSALS]
    )


def page(thread_id: str, status: str, before: int | None, limit: int) -> list[Proposal]:
    """Up to ``limit`` of the thread's proposals (``status``: open, decided or
    all), newest first, those before id ``before`` if given; without their content."""
    found = Proposal.objects.filter(thread_id=thread_id).defer("content", "text").order_by("-id")
    if status == "open":
        found = found.filter(status=Proposal.Status.OPEN)
    elif status == "decided":
        found = found.exclude(status=Proposal.Status.OPEN)
    if before is not None:
        found = found.filter(id__lt=before)
    return list(found[:limit])


def get(thread_id: str, proposal_id: int) -> Proposal:
    """One of the thread's proposals, whole; ``ProposalNotFound`` (404) when it has none of that id."""
    proposal = Proposal.objects.filter(thread_id=thread_id, pk=proposal_id).first()
    if proposal is None:
        raise ProposalNotFound(f"thread {thread_id!r} has no proposal {proposal_id}")
    return proposal
