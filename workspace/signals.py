"""The seam between writes and live events.

Senders know nothing of how changes are delivered; a receiver (the events
module) connects here and sends after the transaction commits.
"""

from django.dispatch import Signal

# Sent inside the writing transaction after every change, with ``change``:
# a ``workspace.repository.DocumentChange``.
document_changed = Signal()

# Sent inside the tool's transaction when a tool returns an artifact, with
# ``thread_id``, ``tool`` (its name) and ``artifact``.
artifact_produced = Signal()
