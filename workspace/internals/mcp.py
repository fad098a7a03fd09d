"""Every reach into the MCP python SDK (``mcp``) beyond its documented API.

Written against mcp 2.3.0 (which is why the ``mcp`` extra allows 2.3.x
only): an upgrade is this file to read. What it relies on:

- ``mcp.server.session.ServerSession._connection``: the SDK gives request
  handlers the per-request session only (``ServerRequestContext.session``);
  its ``Connection`` (``mcp.server.connection.Connection``, with its
  per-connection ``state`` dict and its ``exit_stack``, run when the
  client's session ends) is that private attribute.
- ``mcp.server.streamable_http_manager.StreamableHTTPSessionManager._server_instances``:
  the transports of the sessions (2025 protocols) the manager holds, by
  session id; the SDK closes a session's standalone stream through its
  transport (``close_standalone_sse_stream``) and lists them nowhere else.
"""

from collections.abc import Iterable

from mcp.server.connection import Connection
from mcp.server.session import ServerSession
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

__all__ = ["connection_of", "session_transports"]


def connection_of(session: ServerSession) -> Connection:
    """The connection a request's ``session`` belongs to."""
    return session._connection


def session_transports(manager: StreamableHTTPSessionManager) -> Iterable[StreamableHTTPServerTransport]:
    """The transports of the sessions ``manager`` holds now."""
    return list(manager._server_instances.values())
