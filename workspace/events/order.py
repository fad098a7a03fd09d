"""The order of a thread's events, which every reader and transport asks:
a committed draft's ``draft-end`` reaches a viewer after the ``document``
event of the change it ended with, never before.

A change, its artifact and the end of the draft it commits are written in
one transaction. The rule holds on every path because each takes its order
from here:

- a stream sends its channels in one order, documents, artifacts, drafts
  (``in_sending_order``);
- one read of the storage takes them in the reverse order
  (``in_reading_order``, ``reading``): once the drafts' read has seen an
  end, the document's read, begun after it, sees the change;
- a stream this process holds sends a channel's news only while no channel
  sent before it changed during the round (``must_wait``, ``stream_body``);
  otherwise the rest waits for the next round;
- a change of a thread's drafts is read together with its document
  (``read_with``, ``feed``), even when Redis brings the two out of order;
- behind Pushpin, a draft's end is claimed inside its own transaction and
  published once that commits, after the document event published first
  (``announce``, ``transports.pushpin_drafts``).
"""

from collections.abc import Iterable

from .channels import DRAFT_PREFIX, PREFIXES, document_channel


def in_sending_order(channels: Iterable[str]) -> list[str]:
    """``channels`` in the order a stream sends what they read: documents, artifacts, drafts."""
    return sorted(channels, key=lambda channel: next(i for i, p in enumerate(PREFIXES) if channel.startswith(p)))


def in_reading_order(channels: Iterable[str]) -> list[str]:
    """``channels`` in the order one read of the storage takes them: the reverse of the sending order."""
    return in_sending_order(channels)[::-1]


def must_wait(ordered: list[str], position: int, changed: set[str]) -> bool:
    """Whether the channel at ``position`` of ``ordered`` (in sending order)
    must wait for the next round: one sent before it ``changed`` meanwhile."""
    return not changed.isdisjoint(ordered[:position])


def read_with(channel: str) -> list[str]:
    """The channels read when ``channel`` changes: a thread's drafts with its document, before them."""
    if channel.startswith(DRAFT_PREFIX):
        return [document_channel(channel.removeprefix(DRAFT_PREFIX)), channel]
    return [channel]
