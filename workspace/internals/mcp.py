"""Every reach into the MCP python SDK (``mcp``) beyond its documented API.

Written against mcp 2.3.0 (which is why the ``mcp`` extra allows 2.3.x
only): an upgrade is this file to read. What it relies on:

- ``mcp.server.session.ServerSession._connection``: the SDK gives request
  handlers the per-request session only (``ServerRequestContext.session``);
  its ``Connection`` (``mcp.server.connection.Connection``, with its
  per-connection ``state`` dict and its ``exit_stack``, run when the
  client's session ends) is that private attribute.
"""

from mcp.server.connection import Connection
from mcp.server.session import ServerSession

__all__ = ["connection_of"]


def connection_of(session: ServerSession) -> Connection:
    """The connection a request's ``session`` belongs to."""
    return session._connection
