"""The streams this process holds end when its ASGI server stops: ``on_shutdown(callback)``.

Why: an ASGI server stops gracefully. uvicorn, on SIGINT (Ctrl+C) or
SIGTERM, stops accepting connections, asks each open one to close once its
response is complete, waits for them (with no limit unless
``--timeout-graceful-shutdown`` sets one), and only then runs the lifespan's
shutdown, too late to help. A stream's response is complete only when its
client leaves: one panel left open kept the server running until its viewer
went (89 s measured).

How: the first ``on_shutdown`` chains a handler onto the server's own
handlers of SIGINT and SIGTERM (uvicorn installs them before it loads the
application). The handler calls the server's first, exactly as before, so a
second Ctrl+C still forces uvicorn out and the process exits with the
server's usual status; then, on the event loop, every callback registered
here. Each ends its streams as they end normally: an event stream finishes
its body (``events.feed``); MCP's listen streams and its sessions' standalone
streams are closed as the SDK closes them (``mcp.asgi``). Their clients
reconnect, to another server, since this one accepts no more, and replay what
they missed with ``Last-Event-ID``. With nothing left to wait for, the server
stops within a second.

Where it does nothing: a signal the server leaves to its default action, or
ignores; an event loop outside the main thread, where neither the server nor
this can hear signals; WSGI, which never calls it.
"""

import asyncio
import logging
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

logger = logging.getLogger(__name__)

SIGNALS = (signal.SIGINT, signal.SIGTERM)
SignalHandler = Callable[[int, FrameType | None], Any]


class _Shutdown:
    """The callbacks of the main thread's event loop, and whether the server is stopping."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.callbacks: dict[object, Callable[[], None]] = {}
        self.heard = False

    def hear(self) -> None:
        """On the loop: the server began to stop."""
        if self.heard:
            return
        self.heard = True
        for callback in list(self.callbacks.values()):
            _run(callback)


_main: _Shutdown | None = None


def on_shutdown(callback: Callable[[], None]) -> Callable[[], None]:
    """Call ``callback`` on this event loop when the server begins to stop (soon,
    if it already has); it must not block. Returns the function that takes it
    back. Call from the event loop; outside the main thread, it never runs."""
    global _main
    if threading.current_thread() is not threading.main_thread():
        return _nothing
    loop = asyncio.get_running_loop()
    if _main is None or _main.loop is not loop:
        _main = _Shutdown(loop)
    shutdown = _main
    _chain_onto_the_servers_handlers()
    if shutdown.heard:
        loop.call_soon(_run, callback)
        return _nothing
    token = object()
    shutdown.callbacks[token] = callback

    def take_back() -> None:
        shutdown.callbacks.pop(token, None)

    return take_back


def _chain_onto_the_servers_handlers() -> None:
    for signum in SIGNALS:
        servers_handler = signal.getsignal(signum)
        if callable(servers_handler) and not getattr(servers_handler, "workspace_shutdown", False):
            signal.signal(signum, _chained(servers_handler))


def _chained(servers_handler: SignalHandler) -> SignalHandler:
    def handler(signum: int, frame: FrameType | None) -> None:
        try:
            servers_handler(signum, frame)
        finally:  # even when it raises (Python's own SIGINT handler raises KeyboardInterrupt)
            _heard()

    handler.workspace_shutdown = True  # type: ignore[attr-defined]
    return handler


def _heard() -> None:
    """In the signal handler: tell the loop, which may be amid anything."""
    shutdown = _main
    if shutdown is not None and not shutdown.loop.is_closed():
        shutdown.loop.call_soon_threadsafe(shutdown.hear)


def _run(callback: Callable[[], None]) -> None:
    try:
        callback()
    except Exception:  # one failing callback must not keep the other streams open
        logger.exception("ending streams at shutdown failed")


def _nothing() -> None:
    pass
