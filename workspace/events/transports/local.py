"""The in-process fan-out (no ``EVENTSTREAM_REDIS``): a committed change wakes
the streams of this process only, and each process counts its own streams."""

import threading

from ..watchers import channel_changed
from .base import CommittedChange, FanOut, Slot, StreamSlots


class LocalSlots(StreamSlots):
    """Each user's open streams in this process; they never lapse."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open: dict[str, set[str]] = {}

    def acquire(self, slot: Slot, limit: int) -> bool:
        with self.lock:
            tokens = self.open.setdefault(slot.user_key, set())
            if len(tokens) >= limit:
                return False
            tokens.add(slot.token)
            return True

    def renew(self, slot: Slot) -> None:
        pass

    def release(self, slot: Slot) -> None:
        with self.lock:
            tokens = self.open.get(slot.user_key, set())
            tokens.discard(slot.token)
            if not tokens:
                self.open.pop(slot.user_key, None)


class LocalFanOut(FanOut):
    def __init__(self) -> None:
        self.slots = LocalSlots()

    def announce(self, change: CommittedChange) -> None:
        channel_changed(change.channel)


transport = LocalFanOut()
