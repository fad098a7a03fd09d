"""The transports of committed changes, chosen from the settings here and nowhere else.

- ``base``: what a transport is (``Transport``, ``FanOut``, ``StreamSlots``);
- ``local``: the in-process fan-out, without ``EVENTSTREAM_REDIS``;
- ``redis``: the Redis fan-out, with ``EVENTSTREAM_REDIS``;
- ``pushpin``: publishing to Pushpin, with ``GRIP_URL`` (beside either fan-out);
  ``pushpin_drafts``: its drafts, at most one item per thread every 50 ms.

The settings are read at each call, so that ``override_settings`` reaches them.
"""

from ..redis_client import redis_options
from . import local, pushpin, redis
from .base import CommittedChange, FanOut, Transport

__all__ = ["CommittedChange", "FanOut", "Transport", "fan_out", "install", "transports"]


def fan_out() -> FanOut:
    """The fan-out of this deployment: Redis with ``EVENTSTREAM_REDIS``, else in-process."""
    return redis.transport if redis_options() is not None else local.transport


def transports() -> list[Transport]:
    """Every transport of this deployment, in the order they are told of a
    change: the fan-out first (this process's streams at once), then Pushpin."""
    return [fan_out(), pushpin.transport] if pushpin.enabled() else [fan_out()]


def install() -> None:
    """Prepare each configured transport (from ``AppConfig.ready``)."""
    for transport in transports():
        transport.install()
