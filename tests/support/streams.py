"""The streams a server holds open, as the shutdown tests and bench/shutdown.py
open them, and the server started as README's "Run it" starts it."""

import asyncio
import contextlib
import re
import shlex
import threading

from tests.support.live import REPOSITORY, EventStream, Server

THREAD = "stopping"


def readme_command(application: str = "project.asgi:application", readme: str | None = None) -> list[str]:
    """The uvicorn command of README's "Run it" (this tree's, or the text of
    another's ``readme``), serving ``application`` on a free port."""
    if readme is None:
        readme = (REPOSITORY / "README.md").read_text()
    block = re.search(r"## Run it\n.*?```sh\n(.*?)```", readme, re.DOTALL)
    assert block, "README.md has no sh block under 'Run it'"
    commands = [shlex.split(command) for command in block.group(1).split("&&")]
    (uvicorn,) = [command for command in commands if command[0] == "uvicorn"]
    uvicorn[uvicorn.index("--port") + 1] = "{port}"
    return [part.replace("project.asgi:application", application) for part in uvicorn]


@contextlib.contextmanager
def readme_server(application: str = "project.asgi:application", **environment: str):
    """A server started as README's "Run it" starts it (serving ``application``), on the test database."""
    server = Server(command=readme_command(application), **environment)
    try:
        yield server
    finally:
        server.stop()


def event_stream(server: Server, token: str) -> EventStream:
    stream = EventStream(server, f"/api/workspace/threads/{THREAD}/events/", {"Authorization": f"Token {token}"})
    assert stream.status == 200, stream.body
    stream.next("stream-open")
    return stream


def standalone_mcp_stream(server: Server, token: str) -> EventStream:
    """The standalone GET stream of a session of the 2025 protocols."""
    from tests.support.mcp import open_session

    session = open_session(server, THREAD, {"Authorization": f"Bearer {token}"})
    stream = EventStream(server, f"/api/workspace/threads/{THREAD}/mcp/", session)
    assert stream.status == 200, stream.body
    return stream


class ListenStream:
    """A ``subscriptions/listen`` stream of the official SDK's client, in a thread of its own."""

    def __init__(self, server: Server, token: str):
        self.listening, self.ended = threading.Event(), threading.Event()
        self.outcome = "open"
        threading.Thread(target=asyncio.run, args=(self._listen(server, token),), daemon=True).start()
        assert self.listening.wait(10), self.outcome

    async def _listen(self, server: Server, token: str) -> None:
        import httpx2
        from mcp.client.client import Client
        from mcp.client.streamable_http import streamable_http_client

        from tests.support.mcp import uri

        # Longer than the server's pings apart (15 s), as a client that keeps listening needs.
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
        transport = streamable_http_client(f"{server.url}/api/workspace/threads/{THREAD}/mcp/", http_client=http)
        try:
            async with (
                http,
                Client(transport, mode="2026-07-28") as client,
                client.listen(resource_subscriptions=[uri(THREAD)]) as subscription,
            ):
                self.listening.set()
                async for _ in subscription:
                    pass
            self.outcome = "ended gracefully"  # an abrupt drop raises SubscriptionLost instead
        except Exception as error:
            self.outcome = repr(error)
        finally:
            self.ended.set()
