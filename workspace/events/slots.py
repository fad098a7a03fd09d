"""Each user's open streams (event streams, and MCP's), counted against
``WORKSPACE_MAX_STREAMS_PER_USER``.

With Redis (``EVENTSTREAM_REDIS``) the count is shared by every server
process: a sorted set per user holds one member per open stream, scored by
when it lapses; a stream renews its member as it sends (at least every 25 s,
its keep-alives), so the members of a process that died lapse within a
minute. Without Redis each process counts its own. A Redis that cannot be
reached is logged and lets the stream open: the limit guards against
exhaustion, it must not take the streams down with Redis.
"""

import asyncio
import contextlib
import logging
import threading
import time
import uuid

import anyio
from asgiref.sync import sync_to_async

from ..conf import conf
from . import fanout

logger = logging.getLogger(__name__)

LAPSE_SECONDS = 60
RENEW_SECONDS = 15

# Atomically: forget lapsed streams, refuse at the limit, or count this one.
ACQUIRE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""


class Slot:
    """One open stream of one user."""

    def __init__(self, user_key: str):
        self.user_key = user_key
        self.token = uuid.uuid4().hex
        self.renewed = time.monotonic()


class LocalSlots:
    def __init__(self):
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


class RedisSlots:
    def __init__(self):
        self.client = None

    def _redis(self):
        if self.client is None:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry

            self.client = redis.Redis(
                **fanout.redis_options(),
                socket_connect_timeout=fanout.TIMEOUT_SECONDS,
                socket_timeout=fanout.TIMEOUT_SECONDS,
                retry=Retry(NoBackoff(), 0),
            )
        return self.client

    @staticmethod
    def _key(slot: Slot) -> str:
        return f"workspace-streams:{slot.user_key}"

    def acquire(self, slot: Slot, limit: int) -> bool:
        now = time.time()
        try:
            return bool(
                self._redis().eval(
                    ACQUIRE, 1, self._key(slot), now, limit, now + LAPSE_SECONDS, slot.token, 2 * LAPSE_SECONDS
                )
            )
        except Exception:
            logger.warning("could not count open streams in Redis; this one is let through", exc_info=True)
            return True

    def renew(self, slot: Slot) -> None:
        try:
            self._redis().zadd(self._key(slot), {slot.token: time.time() + LAPSE_SECONDS}, xx=True)
        except Exception:
            logger.warning("could not renew an open stream in Redis", exc_info=True)

    def release(self, slot: Slot) -> None:
        try:
            self._redis().zrem(self._key(slot), slot.token)
        except Exception:
            logger.warning("could not release an open stream in Redis; it lapses within a minute", exc_info=True)


local_slots, redis_slots = LocalSlots(), RedisSlots()


def _slots():
    return redis_slots if fanout.redis_options() is not None else local_slots


def user_key(user) -> str:
    """Who holds a slot: the user's primary key, however the user authenticated
    (a token's user is the model itself, a session's a ``SimpleLazyObject``)."""
    return f"user:{user.pk}"


def acquire(user) -> Slot | None:
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
    """For a stream that just sent: renew its slot in Redis if ``RENEW_SECONDS``
    passed since it was last (counted in this process, slots never lapse)."""
    if _slots() is redis_slots and time.monotonic() - slot.renewed > RENEW_SECONDS:
        slot.renewed = time.monotonic()  # one renewal at a time
        await sync_to_async(renew, thread_sensitive=False)(slot)


@contextlib.asynccontextmanager
async def held(user):
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
