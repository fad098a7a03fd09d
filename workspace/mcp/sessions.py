"""Each user's MCP sessions (the 2025 protocols) in this process, at most
``WORKSPACE_MCP_MAX_SESSIONS_PER_USER``.

The SDK keeps at most 10,000 sessions per process, for anyone, each alive
until it is deleted or idle for 30 minutes: without a share per user, one
user could take them all. A session lives in the process that opened it
(docs/deployment.md asks for sticky routing), so this count is the process's own.

- ``reserve`` / ``unreserve``: around a request that opens a session (the
  ASGI application refuses it at the limit, before the SDK admits it);
- ``middleware``: in the SDK's server, once ``initialize`` has succeeded,
  counts the session as the user's until it ends (deleted, expired or
  failed: the connection's exit stack runs).
"""

from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from ..conf import conf
from ..events.slots import user_key
from .server import CALLER
from .subscriptions import connection_of


class UserSessions:
    """The sessions of each user in this process, open and opening."""

    def __init__(self) -> None:
        self.open: dict[str, set[object]] = {}  # user -> connections of their live sessions
        self.opening: Counter[str] = Counter()  # user -> requests that may open a session, in flight

    def reserve(self, user: Any) -> bool:
        """Room for one more session of ``user`` (False at the limit); ``unreserve`` after the request."""
        key = user_key(user)
        if len(self.open.get(key, ())) + self.opening[key] >= conf.MCP_MAX_SESSIONS_PER_USER:
            return False
        self.opening[key] += 1
        return True

    def unreserve(self, user: Any) -> None:
        key = user_key(user)
        self.opening[key] -= 1
        if self.opening[key] <= 0:
            del self.opening[key]

    async def middleware(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        """The SDK's middleware: a session whose ``initialize`` succeeded is its user's until it ends."""
        result = await call_next(ctx)
        if ctx.method == "initialize" and ctx.request is not None:
            connection = connection_of(ctx.session)
            if connection.session_id is not None:  # a session of the 2025 protocols
                self._add(user_key(ctx.request.scope[CALLER].user), connection)
        return result

    def _add(self, key: str, connection: Any) -> None:
        connections = self.open.setdefault(key, set())
        if connection not in connections:  # initialize sent twice counts once
            connections.add(connection)
            connection.exit_stack.callback(self._discard, key, connection)

    def _discard(self, key: str, connection: Any) -> None:
        connections = self.open.get(key, set())
        connections.discard(connection)
        if not connections:
            self.open.pop(key, None)
