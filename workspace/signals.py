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
    and who made it, how and why (``actor``, ``source``, ``tool``, ``action_and_reasoning``)."""

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


# Sent after every change, with ``change``: a ``DocumentChange``.
document_changed = Signal()

# Sent when a tool returns an artifact, with ``thread_id``, ``tool`` (its name) and ``artifact``.
artifact_produced = Signal()

# Sent when a thread's drafts changed (a piece, an end), with ``thread_id``,
# and ``ended``: whether a draft ended (in its transaction, before it commits).
draft_changed = Signal()
