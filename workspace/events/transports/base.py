"""What a transport is: how the streams hear of a change once it committed.

Shaped like Django's session backends: this base class, one module per
mechanism (``local``, ``redis``, ``pushpin``), and the choice made from the
settings in one place (``transports/__init__.py``). Two concerns, so two
kinds: exactly one *fan-out* (``FanOut``: which processes' streams are woken,
and where each user's open streams are counted), and beside it, when
``GRIP_URL`` is set, Pushpin's publishing for the streams it holds.
"""

import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from ...internals.django_eventstream import Event

FoundEvent = tuple[Event, int | None]  # the event, and the id before it on its channel (None: unknown)


@dataclass(frozen=True)
class CommittedChange:
    """A change that committed on ``channel``; ``find_event`` reads its event
    (once committed its id is known), None when it is already gone."""

    channel: str
    find_event: Callable[[], FoundEvent | None]


class Slot:
    """One open stream of one user (``slots``)."""

    def __init__(self, user_key: str):
        self.user_key = user_key
        self.token = uuid.uuid4().hex
        self.renewed = time.monotonic()


class StreamSlots(ABC):
    """Where a fan-out counts each user's open streams."""

    lapses = False  # whether a slot lapses unless renewed (a process that died frees its slots)

    @abstractmethod
    def acquire(self, slot: Slot, limit: int) -> bool:
        """Count ``slot``, unless its user holds ``limit`` already."""

    @abstractmethod
    def renew(self, slot: Slot) -> None:
        """Keep ``slot`` from lapsing."""

    @abstractmethod
    def release(self, slot: Slot) -> None:
        """Stop counting ``slot``."""


class Transport(ABC):
    """One mechanism that carries committed changes to the streams."""

    @abstractmethod
    def announce(self, change: CommittedChange) -> None:
        """Carry ``change``, after its commit; must not block on the network."""

    def before_commit(self, change: CommittedChange) -> None:  # noqa: B027  (most need nothing)
        """Told of ``change`` (a draft's end) inside its transaction, before it commits."""

    def install(self) -> None:  # noqa: B027  (most transports need nothing at start-up)
        """Prepare the process, from ``AppConfig.ready``."""


class FanOut(Transport):
    """The transport that wakes the streams of this process, and of the
    others where it can reach them, and counts each user's open streams."""

    slots: StreamSlots
