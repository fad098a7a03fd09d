"""The seam between writes and what follows them.

Senders know nothing of how changes are delivered; receivers (the events
package) connect here. Every signal is sent inside the writing transaction.
"""

from dataclasses import dataclass

from django.dispatch import Signal


@dataclass(frozen=True)
class DocumentChange:
    """One change, as recorded in its revision: the document's state after it,
    and what changed (``text``: the appended chunk for ``append``, the whole new
    content otherwise), so that applying changes in ``version`` order rebuilds the content;
    and who made it, how and why (``actor``, ``source``, ``tool``, ``action_and_reasoning``);
    whether the document was in review (``review``), and for an accepted
    proposal who accepted it and which it was (``reviewed_by``, ``proposal``).

    A tool call that proposed instead of writing (the document in review)
    returns one too, not sent: ``proposal`` its id, ``version`` the current
    one, ``title`` and ``length`` as the change would leave them."""

    thread_id: str
    op: str
    version: int
    title: str
    length: int
    text: str
    actor: str | None = None
    source: str = "agent"
    tool: str | None = None
    action_and_reasoning: str = ""
    review: bool = False
    reviewed_by: str | None = None
    proposal: int | None = None


# Sent after every change, with ``change``: a ``DocumentChange``.
document_changed = Signal()

# Sent when a document's review mode is set, with ``thread_id``, ``review`` and ``actor``.
review_changed = Signal()

# Sent when an agent's change is stored as a proposal, and when a person
# decides one, with ``thread_id`` and ``data``: the event's data.
proposal_stored = Signal()
proposal_decided = Signal()

# Sent when a tool returns an artifact, with ``thread_id``, ``tool`` (its name) and ``artifact``.
artifact_produced = Signal()

# Sent when a thread's drafts changed (a piece, an end), with ``thread_id``,
# and ``ended``: whether a draft ended (in its transaction, before it commits).
draft_changed = Signal()
