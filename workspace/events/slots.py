"""Each user's open streams (event streams, and MCP's), counted against
``WORKSPACE_MAX_STREAMS_PER_USER``.

Where they are counted is the fan-out's (``transports``): in this process
without Redis; with ``EVENTSTREAM_REDIS``, in Redis, shared by every server
process, where a slot lapses unless the stream renews it as it sends.
"""

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
from asgiref.sync import sync_to_async

from ..conf import conf
from .transports import fan_out
from .transports.base import Slot, StreamSlots

__all__ = ["Slot", "acquire", "held", "limit_reached", "release", "renew", "renew_if_due", "user_key"]

RENEW_SECONDS = 15


def _slots() -> StreamSlots:
    return fan_out().slots


def user_key(user: Any) -> str:
    """Who holds a slot: the user's primary key, however the user authenticated
    (a token's user is the model itself, a session's a ``SimpleLazyObject``)."""
    return f"user:{user.pk}"


def acquire(user: Any) -> Slot | None:
    """A slot for one more stream of ``user``, or None at the limit."""
    slot = Slot(user_key(user))
    return slot if _slots().acquire(slot, conf.MAX_STREAMS_PER_USER) else None


def limit_reached() -> str:
    """What a user is told who holds all the streams they may."""
    return f"you have {conf.MAX_STREAMS_PER_USER} event streams open (WORKSPACE_MAX_STREAMS_PER_USER); close one first"


def renew(slot: Slot) -> None:
    slot.renewed = time.monotonic()
    _slots().renew(slot)


def release(slot: Slot) -> None:
    _slots().release(slot)


async def renew_if_due(slot: Slot) -> None:
    """For a stream that just sent: renew its slot where slots lapse (Redis) if ``RENEW_SECONDS``
    passed since it was last (slots counted in this process never lapse)."""
    if _slots().lapses and time.monotonic() - slot.renewed > RENEW_SECONDS:
        slot.renewed = time.monotonic()  # one renewal at a time
        await sync_to_async(renew, thread_sensitive=False)(slot)


@contextlib.asynccontextmanager
async def held(user: Any) -> AsyncIterator[Slot | None]:
    """For a stream that lasts as long as a block (the MCP streams): a slot of
    ``user`` (None at the limit), renewed while the block runs and released
    at once when it ends, even when it ends by cancellation."""
    slot = await sync_to_async(acquire, thread_sensitive=False)(user)
    if slot is None:
        yield None
        return
    renewing = asyncio.get_running_loop().create_task(_keep_renewed(slot))
    try:
        yield slot
    finally:
        renewing.cancel()
        with anyio.CancelScope(shield=True):  # a client that hangs up cancels the block
            await sync_to_async(release, thread_sensitive=False)(slot)


async def _keep_renewed(slot: Slot) -> None:
    while True:
        await asyncio.sleep(RENEW_SECONDS)
        await sync_to_async(renew, thread_sensitive=False)(slot)
