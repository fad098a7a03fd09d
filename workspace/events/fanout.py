"""Redis fan-out: every server process hears which channels changed.

A message names a channel, nothing more; the processes that hear it wake
their streams on it, which read the storage. So Redis carries no document,
a lost or repeated message costs nothing but a wait, and nothing is ever
delivered twice or out of order.

Publishing never holds a write: the request only puts the channel in a
set, and a thread of the process publishes it, with short timeouts and no
retries of its own. While Redis is slow, refused or gone, the set keeps one
entry per channel (at most ``MAX_PENDING``) and is published when Redis is
back; the listener resubscribes by itself and has every stream catch up.
"""

import asyncio
import json
import logging
import os
import threading
import time
import uuid

from django.conf import settings

from .library import RedisListener, replace_redis_listener
from .watchers import channel_changed

logger = logging.getLogger(__name__)

TIMEOUT_SECONDS = 0.5
MAX_PENDING = 10_000
# Messages of this process, which its own streams have already been woken for.
ORIGIN = uuid.uuid4().hex


def redis_options() -> dict | None:
    return getattr(settings, "EVENTSTREAM_REDIS", None)


def redis_channel() -> str:
    """One pub/sub channel per Redis database number, so that deployments that
    share a Redis server on different databases never hear each other."""
    return f"workspace-events:{redis_options().get('db', 0)}"


class Publisher:
    """A thread per process that publishes the channels put in its set."""

    def __init__(self):
        self.changed = threading.Condition()
        self.pending: dict[str, None] = {}  # an ordered set
        self.pid = None

    def publish(self, channel: str) -> None:
        with self.changed:
            if channel not in self.pending and len(self.pending) >= MAX_PENDING:
                # Its streams catch up at the thread's next change, or when they reconnect.
                self.pending.pop(next(iter(self.pending)))
                logger.warning("Redis is behind by %d channels; dropped the oldest", MAX_PENDING)
            self.pending[channel] = None
            if self.pid != os.getpid():  # first use in this process (or in a forked child)
                self.pid = os.getpid()
                threading.Thread(target=self._run, name="workspace-redis-publisher", daemon=True).start()
            self.changed.notify()

    def _run(self) -> None:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        client = redis.Redis(
            **redis_options(),
            socket_connect_timeout=TIMEOUT_SECONDS,
            socket_timeout=TIMEOUT_SECONDS,
            retry=Retry(NoBackoff(), 0),
        )
        delay = 0.0
        while True:
            with self.changed:
                while not self.pending:
                    self.changed.wait()
                channels = list(self.pending)
                self.pending.clear()
            try:
                pipeline = client.pipeline(transaction=False)
                for channel in channels:
                    pipeline.publish(redis_channel(), json.dumps({"channel": channel, "origin": ORIGIN}))
                pipeline.execute()
                delay = 0.0
            except Exception:
                delay = min(max(delay * 2, 0.25), 5.0)
                logger.warning("could not publish to Redis; retrying in %.2f s", delay, exc_info=True)
                with self.changed:
                    for channel in channels:
                        self.pending.setdefault(channel, None)
                time.sleep(delay)


publisher = Publisher()


def publish(channel: str) -> None:
    """Tell the other processes that ``channel`` changed (without Redis: nothing to do)."""
    if redis_options() is not None:
        publisher.publish(channel)


class ResilientRedisListener(RedisListener):
    """Hears the other processes' messages. Resubscribes, with backoff, whenever
    Redis goes away, then has every open stream read what it missed."""

    async def listen(self):
        delay = 0.5
        while True:
            try:
                self.pubsub = self.redis_client.pubsub()
                await self.pubsub.subscribe(redis_channel())
                # redis-py may reconnect (and resubscribe) by itself, without
                # raising: catch up then too.
                self.pubsub.connection.register_connect_callback(self._caught_up_after_reconnect)
                delay = 0.5
                channel_changed()
                async for message in self.pubsub.listen():
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

    def _caught_up_after_reconnect(self, connection) -> None:
        channel_changed()


def install() -> None:
    if redis_options() is not None:
        replace_redis_listener(ResilientRedisListener)
