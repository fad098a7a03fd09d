"""``hold_streams(django_application)``: the ASGI application (``HeldStreams``)
that lets Django open each event stream (authentication, access policy,
stream limit) and then holds the stream itself, without Django.

Django's ASGI handler keeps all of a request (the request, its response,
what its middleware made, two tasks) for as long as the response flows,
for a stream as long as its viewer stays. Here each stream request carries
a ``Handover`` in its scope; the stream view, seeing it, leaves the
stream's body (``stream_body``) there and answers Django with the headers
only. This application withholds the end of that answer, lets Django finish the
request (its ``request_finished``, its connections closed, its objects
freed), then sends the body itself until it ends or the client leaves.
Without this wrapper the view streams through Django as usual.

It also answers the ASGI lifespan, which Django refuses, where nothing in
front of it owns the lifespan (``workspace.asgi`` without the ``mcp`` extra):
a server run with ``--lifespan on`` starts and stops as with MCP.

``streams``, the name hosts wrapped their application with, is
``hold_streams`` under its old name, deprecated.
"""

import asyncio
from collections.abc import AsyncGenerator, Mapping
from typing import Any

from ..deprecation import moved_names
from ..utils.asgi_types import ASGIApplication, Receive, Scope, Send

SCOPE_KEY = "workspace.stream_handover"


class Handover:
    """Where the stream view leaves the stream's body (an async iterator of bytes)."""

    body: AsyncGenerator[bytes, None] | None = None


def hold_streams(django_application: ASGIApplication) -> "HeldStreams":
    """Wrap Django's ASGI application (``get_asgi_application()``) to hold event streams itself."""
    return HeldStreams(django_application)


__getattr__ = moved_names(__name__, {"streams": "workspace.events.handover.hold_streams"})


class HeldStreams:
    """Django's ASGI application, with the event streams held here once Django is done."""

    def __init__(self, django_application: ASGIApplication):
        self.django = django_application

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            return await _answer_the_lifespan(receive, send)
        if scope["type"] != "http" or scope["method"] != "GET" or "/events" not in scope["path"]:
            return await self.django(scope, receive, send)
        handover = Handover()
        status = None

        async def send_all_but_the_end(message: Mapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif handover.body is not None and status == 200 and not message.get("more_body"):
                return  # the body follows once Django is done
            await send(message)

        await self.django({**scope, SCOPE_KEY: handover}, receive, send_all_but_the_end)
        if handover.body is None:
            return
        if status == 200:
            await _send_until_the_client_leaves(handover.body, receive, send)
        else:  # Django answered otherwise after the view (a middleware failed): run the body's cleanup only
            await anext(handover.body)
            await handover.body.aclose()


async def _answer_the_lifespan(receive: Receive, send: Send) -> None:
    """Nothing here to start or to stop: answer that all is done."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            return await send({"type": "lifespan.shutdown.complete"})


async def _send_until_the_client_leaves(body: AsyncGenerator[bytes, None], receive: Receive, send: Send) -> None:
    """Send ``body``'s chunks, then the end; stop (closing the body) when the client disconnects."""
    task = asyncio.current_task()
    assert task is not None  # (called from a coroutine)
    client_left = False

    async def cancel_when_the_client_leaves() -> None:
        nonlocal client_left
        while (await receive())["type"] != "http.disconnect":
            pass
        client_left = True
        task.cancel()

    watcher = asyncio.ensure_future(cancel_when_the_client_leaves())
    try:
        async for chunk in body:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except asyncio.CancelledError:
        if not client_left:
            raise
        task.uncancel()
    finally:
        watcher.cancel()
        await body.aclose()
