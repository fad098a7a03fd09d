"""Who hears that a channel changed: the streams this process holds (``feed``)
and the MCP subscriptions; told after a local commit, and when Redis says
that another process committed one."""

import logging
import threading
from collections.abc import Callable

from ..internals.django_eventstream import start_redis_listener

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
    """Tell every watcher that ``channel`` changed (None: any channel may have)."""
    with _lock:
        watchers = list(_watchers.values())
    for watcher in watchers:
        try:
            watcher(channel)
        except Exception:  # one broken watcher must not keep the others uninformed
            logger.exception("a watcher of channel %r failed", channel)
