"""The seam between writes and what follows them.

Senders know nothing of how changes are delivered; receivers (the events
package) connect here. Both signals are sent inside the writing transaction.
"""

from dataclasses import dataclass

from django.dispatch import Signal


@dataclass(frozen=True)
class DocumentChange:
    """One change, as recorded in its revision: the document's state after it,
    and what changed (``text``: the appended chunk for ``append``, the whole new
    content otherwise), so that applying changes in ``version`` order rebuilds the content."""

    thread_id: str
    op: str
    version: int
    title: str
    length: int
    text: str


# Sent after every change, with ``change``: a ``DocumentChange``.
document_changed = Signal()

# Sent when a tool returns an artifact, with ``thread_id``, ``tool`` (its name) and ``artifact``.
artifact_produced = Signal()
