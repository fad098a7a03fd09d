"""Each thread as an MCP server (the official ``mcp`` SDK, streamable HTTP)
at ``threads/<id>/mcp/``, driven by the same tool registry as the HTTP API.

- ``server``: the SDK's low-level ``Server`` and its handlers: the tools, and
  the thread's document as the resource ``workspace://threads/<id>/document``;
- ``subscriptions``: who waits for which document, told after every commit
  (in this process, and in the others through Redis);
- ``sessions``: each user's share of this process's sessions;
- ``messages``: the JSON-RPC message of a ``POST``, checked before the SDK reads it;
- ``asgi``: the ASGI application, ``asgi(django_application)``, that
  ``workspace.asgi.with_workspace`` serves for hosts: it owns the lifespan
  the SDK needs and authenticates every MCP request before handing it to the SDK.
"""

from .asgi import asgi

__all__ = ["asgi"]
