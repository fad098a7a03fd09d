"""The Redis fan-out (``EVENTSTREAM_REDIS``): every server process hears which
channels changed, and each user's open streams are counted across them.

A message names a channel, nothing more; the processes that hear it wake
their streams on it, which read the storage. So Redis carries no document,
a lost or repeated message costs nothing but a wait, and nothing is ever
delivered twice or out of order.

Publishing never holds a write: the request only queues the channel in the
background publisher (``events.publisher``), one entry per channel while
Redis is slow, refused or gone. The listener resubscribes by itself and has
every stream catch up.

The open streams: a sorted set per user holds one member per open stream,
scored by when it lapses; a stream renews its member as it sends (at least
every 25 s, its keep-alives), so the members of a process that died lapse
within a minute. A Redis that cannot be reached is logged and lets the
stream open: the limit guards against exhaustion, it must not take the
streams down with Redis.
"""

import asyncio
import json
import logging
import time
import uuid
from typing import Any

from ...internals.django_eventstream import replace_redis_listener
from .. import redis_client
from ..publisher import BackgroundPublisher, Send
from ..watchers import channel_changed
from .base import CommittedChange, FanOut, Slot, StreamSlots

logger = logging.getLogger(__name__)

MAX_PENDING = 10_000
LAPSE_SECONDS = 60
# Messages of this process, which its own streams have already been woken for.
ORIGIN = uuid.uuid4().hex

# Atomically: forget lapsed streams, refuse at the limit, or count this one.
ACQUIRE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""


def _connect_publisher() -> Send:
    client = redis_client.connect()

    def send(messages: list[str]) -> None:
        pipeline = client.pipeline(transaction=False)
        for message in messages:
            pipeline.publish(redis_client.pubsub_channel(), message)
        pipeline.execute()

    return send


class RedisSlots(StreamSlots):
    """Each user's open streams, in a sorted set shared by every process."""

    lapses = True

    def __init__(self) -> None:
        self.client: Any = None

    def _redis(self) -> Any:
        if self.client is None:
            self.client = redis_client.connect()
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


class RedisSubscription:
    """Hears the other processes' messages on django-eventstream's async Redis
    client. Resubscribes, with backoff, whenever Redis goes away, then has
    every open stream read what it missed."""

    async def listen(self, client: Any) -> None:
        delay = 0.5
        while True:
            try:
                pubsub = client.pubsub()
                await pubsub.subscribe(redis_client.pubsub_channel())
                # redis-py may reconnect (and resubscribe) by itself, without
                # raising: catch up then too. (It keeps a weak reference: a bound method.)
                pubsub.connection.register_connect_callback(self._caught_up_after_reconnect)
                delay = 0.5
                channel_changed()
                async for message in pubsub.listen():
                    if message["type"] == "message":
                        heard = json.loads(message["data"])
                        if heard.get("origin") != ORIGIN:
                            channel_changed(heard["channel"])
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("lost the Redis subscription; retrying in %.1f s", delay, exc_info=True)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10)

    def _caught_up_after_reconnect(self, connection: Any) -> None:
        channel_changed()


class RedisFanOut(FanOut):
    def __init__(self) -> None:
        self.slots = RedisSlots()
        self.subscription = RedisSubscription()
        self.publisher = BackgroundPublisher("Redis", _connect_publisher, max_pending=MAX_PENDING, deduplicate=True)

    def announce(self, change: CommittedChange) -> None:
        channel_changed(change.channel)  # this process's streams, at once
        self.publisher.publish(json.dumps({"channel": change.channel, "origin": ORIGIN}))

    def install(self) -> None:
        replace_redis_listener(self.subscription.listen)


transport = RedisFanOut()
