"""The one place that builds Redis clients for the events (``EVENTSTREAM_REDIS``).

Every client gets short timeouts and no retries of its own: a write never
waits on Redis, and what Redis missed is caught up by the callers (the
background publisher retries, the stream slots lapse). The Redis listener's
async client is django-eventstream's own, built from the same setting.
"""

from typing import TYPE_CHECKING, Any

from django.conf import settings

if TYPE_CHECKING:
    import redis

TIMEOUT_SECONDS = 0.5


def redis_options() -> dict[str, Any] | None:
    """The host's ``EVENTSTREAM_REDIS`` (the connection's keyword arguments), or None."""
    return getattr(settings, "EVENTSTREAM_REDIS", None)


def pubsub_channel() -> str:
    """One pub/sub channel per Redis database number, so that deployments that
    share a Redis server on different databases never hear each other."""
    return f"workspace-events:{(redis_options() or {}).get('db', 0)}"


def connect() -> "redis.Redis":
    """A client of ``EVENTSTREAM_REDIS`` with short timeouts and no retries."""
    import redis  # only where Redis is configured (the WSGI workers need not load it)
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis(
        **(redis_options() or {}),
        socket_connect_timeout=TIMEOUT_SECONDS,
        socket_timeout=TIMEOUT_SECONDS,
        retry=Retry(NoBackoff(), 0),
    )
