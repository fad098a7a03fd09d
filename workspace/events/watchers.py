"""Watchers of changed channels besides the event streams (the MCP
subscriptions): told whenever this process wakes its streams, after a local
commit and when Redis says that another process committed one."""

import logging
import threading
from collections.abc import Callable

from .library import start_redis_listener, wake_listeners

logger = logging.getLogger(__name__)

Watcher = Callable[[str | None], None]  # the channel, or None: any channel may have changed

_watchers: dict[object, Watcher] = {}
_lock = threading.Lock()


def watch(watcher: Watcher) -> Callable[[], None]:
    """Call ``watcher`` after every change this process hears of, from any
    thread; it must not block. Call from the event loop that serves the
    watcher's clients (it starts the Redis listener there). Returns the
    function that stops it."""
    token = object()
    with _lock:
        _watchers[token] = watcher
    start_redis_listener()

    def unwatch() -> None:
        with _lock:
            _watchers.pop(token, None)

    return unwatch


def channel_changed(channel: str | None = None) -> None:
    """Wake the streams on ``channel`` (None: on every channel) and tell the watchers."""
    wake_listeners(channel)
    with _lock:
        watchers = list(_watchers.values())
    for watcher in watchers:
        try:
            watcher(channel)
        except Exception:  # one broken watcher must not keep the others or the streams uninformed
            logger.exception("a watcher of channel %r failed", channel)
