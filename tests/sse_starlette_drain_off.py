"""The demo's ASGI application with sse-starlette's own ending of its streams
at shutdown turned off (its documented switch), as where uvicorn loads the
application only after installing its signal handlers (``--workers``,
``--reload``) and sse-starlette's patch of uvicorn's handler misses them: the
MCP SDK's streams (sse-starlette's responses) end only as the app ends them."""

from sse_starlette.sse import AppStatus

from project.asgi import application

AppStatus.disable_automatic_graceful_drain()

__all__ = ["application"]
