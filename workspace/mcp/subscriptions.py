"""Who waits for which thread's document, in this process, and telling them
(``notifications/resources/updated``) after every committed change.

The changes come from the events the app already sends
(``events.watchers``): a commit in this process, or one in another process
heard through Redis. Clients subscribe in one of two ways:

- the 2025 protocols: ``resources/subscribe`` in a session, notified on the
  session's standalone stream; forgotten when the session ends;
- 2026-07-28: a ``subscriptions/listen`` request whose answer is the stream
  (the SDK's ``ListenHandler``, fed through a ``SubscriptionBus``).
"""

import asyncio
import logging
from collections import Counter
from collections.abc import Callable, Coroutine
from typing import Any

from mcp.server.connection import Connection
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

from ..events import slots
from ..events.channels import DOCUMENT_PREFIX
from ..events.watchers import watch
from ..internals.mcp import connection_of

__all__ = ["Subscriptions", "connection_of"]

logger = logging.getLogger(__name__)

MAX_SESSION_SUBSCRIPTIONS = 10_000  # per process; the listen streams have their own bound
MAX_LISTEN_STREAMS = 1024
SEND_TIMEOUT_SECONDS = 5
SUBSCRIBED = "workspace.subscribed"  # in a connection's state: the threads it subscribed to


class Subscriptions:
    """The subscriptions of this process, by thread, and the notifying of them."""

    def __init__(self, document_uri: Callable[[str], str]):
        self.document_uri = document_uri
        self.bus = InMemorySubscriptionBus()
        self.listen_handler = ListenHandler(self.bus, max_subscriptions=MAX_LISTEN_STREAMS)
        self.sessions: dict[str, dict[Connection, ServerSession]] = {}  # thread -> {connection: session}
        self.session_subscriptions = 0
        self.listened: Counter[str] = Counter()  # thread -> open listen streams
        self.loop: asyncio.AbstractEventLoop | None = None
        self.unwatch: Callable[[], None] | None = None
        self.sending: set[asyncio.Task[Any]] = set()

    def start(self) -> None:
        """Begin hearing of changes; on the event loop that serves MCP."""
        self.loop = asyncio.get_running_loop()
        self.unwatch = watch(self._heard)

    def stop(self) -> None:
        if self.unwatch:
            self.unwatch()
        self.end_listen_streams()
        for task in self.sending:
            task.cancel()

    def end_listen_streams(self) -> None:
        """End every open listen stream as the protocol ends one deliberately:
        its buffered events, then the listen request's result."""
        self.listen_handler.close()

    # 2025 protocols: resources/subscribe in a session

    def add_session(self, session: ServerSession, thread_id: str) -> None:
        connection = connection_of(session)
        threads = connection.state.get(SUBSCRIBED)
        if threads is None:  # the connection's first subscription: forget them all when it ends
            threads = connection.state[SUBSCRIBED] = set()
            connection.exit_stack.callback(self._forget_connection, connection)
        if thread_id not in threads:
            if self.session_subscriptions >= MAX_SESSION_SUBSCRIPTIONS:
                raise MCPError(INTERNAL_ERROR, "too many subscriptions on this server; try again later")
            threads.add(thread_id)
            self.session_subscriptions += 1
        self.sessions.setdefault(thread_id, {})[connection] = session

    def remove_session(self, session: ServerSession, thread_id: str) -> None:
        connection = connection_of(session)
        threads = connection.state.get(SUBSCRIBED, set())
        if thread_id in threads:
            threads.discard(thread_id)
            self._forget(connection, thread_id)

    def _forget_connection(self, connection: Connection) -> None:
        for thread_id in connection.state.pop(SUBSCRIBED, set()):
            self._forget(connection, thread_id)

    def _forget(self, connection: Connection, thread_id: str) -> None:
        waiting = self.sessions.get(thread_id, {})
        if waiting.pop(connection, None) is not None:
            self.session_subscriptions -= 1
        if not waiting:
            self.sessions.pop(thread_id, None)

    # 2026-07-28: subscriptions/listen

    async def listen(self, ctx: Any, params: Any, threads: set[str], user: Any) -> Any:
        """One listen stream, counted with the user's event streams (WORKSPACE_MAX_STREAMS_PER_USER)."""
        async with slots.held(user) as slot:
            if slot is None:
                raise MCPError(INTERNAL_ERROR, slots.limit_reached())
            self.listened.update(threads)
            try:
                return await self.listen_handler(ctx, params)
            finally:
                self.listened.subtract(threads)
                self.listened += Counter()  # drop the threads nobody listens to any more

    # Changes

    def _heard(self, channel: str | None) -> None:
        """From any thread: a document changed (None: any may have)."""
        if channel is not None and not channel.startswith(DOCUMENT_PREFIX):
            return  # an artifact: the document did not change
        thread_id = channel.removeprefix(DOCUMENT_PREFIX) if channel else None
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._notify, thread_id)

    def _notify(self, thread_id: str | None) -> None:
        threads = [thread_id] if thread_id else list(self.sessions.keys() | self.listened.keys())
        for thread in threads:
            uri = self.document_uri(thread)
            if self.listened[thread]:
                self._send(self.bus.publish(ResourceUpdated(uri=uri)))
            for session in list(self.sessions.get(thread, {}).values()):
                self._send(session.send_resource_updated(uri))

    def _send(self, sending: Coroutine[Any, Any, Any]) -> None:
        assert self.loop is not None  # (started: the changes come through the loop)
        task = self.loop.create_task(asyncio.wait_for(sending, SEND_TIMEOUT_SECONDS))
        self.sending.add(task)
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[Any]) -> None:
        self.sending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.warning("could not send an MCP resource update", exc_info=task.exception())
