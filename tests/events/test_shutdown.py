"""A server stops within seconds of SIGINT (Ctrl+C) or SIGTERM with streams open
(``workspace.events.shutdown``): real server processes, started as README's "Run it"
starts them, and the streams' real clients."""

import asyncio
import signal
import socket
import subprocess
import threading
import time

import pytest

from tests.support.live import EventStream, Server
from tests.support.streams import (
    THREAD,
    ListenStream,
    event_stream,
    readme_server,
    standalone_mcp_stream,
)
from workspace.events import shutdown

STOP_SECONDS = 5  # "within seconds"; a stop takes about 0.2 s here


def stop(server: Server, signum: int) -> tuple[float, int | None]:
    """Send ``signum``; how long the server took to exit, and its exit status (None: still running)."""
    started = time.monotonic()
    server.process.send_signal(signum)
    try:
        status = server.process.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        status = None
    return time.monotonic() - started, status


# uvicorn's own exit: 0 after SIGINT; SIGTERM raised again with its default action.
USUAL_STATUS = {signal.SIGINT: 0, signal.SIGTERM: -signal.SIGTERM}


def assert_stopped_cleanly(server: Server, signum: int, streams: list[EventStream]) -> None:
    """``signum`` stops ``server`` within seconds, with its usual status, each
    of ``streams`` ending as HTTP ends a body, and no error logged meanwhile."""
    logged_before = len(server.output())
    took, status = stop(server, signum)
    output = server.output()
    assert status is not None, f"still running {took:.1f} s after {signum.name}; its log:\n{output}"
    assert status == USUAL_STATUS[signum], output
    for stream in streams:
        assert stream.ended.wait(2) and stream.ended_cleanly, "a stream was cut, not ended"
    stopping = output[logged_before:]
    assert "Traceback" not in stopping and "ERROR" not in stopping, output


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_ends_the_open_streams_frees_their_slots_and_the_server_exits_within_seconds(signum, user, token, redis):
    import redis as redis_client

    slots_key = f"workspace-streams:user:{user.pk}"
    with readme_server(REDIS_URL=redis.url) as server:  # slots in Redis outlive the process
        streams = [event_stream(server, token), standalone_mcp_stream(server, token)]
        listen = ListenStream(server, token)
        assert redis_client.Redis.from_url(redis.url).zcard(slots_key) == 3
        assert_stopped_cleanly(server, signum, streams)
        assert listen.ended.wait(2) and listen.outcome == "ended gracefully", listen.outcome
        assert redis_client.Redis.from_url(redis.url).zcard(slots_key) == 0


@pytest.mark.django_db(transaction=True)
def test_without_the_mcp_extra_the_readme_command_starts_and_a_stop_ends_the_streams(token):
    with readme_server("tests.without_mcp:application") as server:
        assert server.request("POST", f"/api/workspace/threads/{THREAD}/mcp/", token, "{}")[0] == 501
        assert_stopped_cleanly(server, signal.SIGINT, [event_stream(server, token)])


@pytest.mark.django_db(transaction=True)
def test_mcp_standalone_streams_end_even_where_sse_starlette_would_not_end_them(token):
    with readme_server("tests.sse_starlette_drain_off:application") as server:
        assert_stopped_cleanly(server, signal.SIGTERM, [standalone_mcp_stream(server, token)])


@pytest.mark.django_db(transaction=True)
def test_a_second_sigint_still_forces_the_stop_of_a_server_waiting_for_a_request(token):
    with readme_server() as server, socket.create_connection(("127.0.0.1", server.port)) as unfinished:
        unfinished.sendall(  # a body that never comes whole: uvicorn waits for the request
            b"POST /api/workspace/tools/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"
        )
        time.sleep(0.5)
        server.process.send_signal(signal.SIGINT)
        with pytest.raises(subprocess.TimeoutExpired):
            server.process.wait(timeout=1)
        _, status = stop(server, signal.SIGINT)
        assert status is not None, f"still running {STOP_SECONDS} s after the second SIGINT:\n{server.output()}"


# The chaining itself, in this process


@pytest.fixture
def servers_handlers(monkeypatch):
    """A server's own SIGTERM handler, as uvicorn installs it, and this module's state
    afresh; the process's handlers are put back afterwards."""
    heard = []
    saved = {signum: signal.getsignal(signum) for signum in shutdown.SIGNALS}
    monkeypatch.setattr(shutdown, "_main", None)
    signal.signal(signal.SIGTERM, lambda signum, frame: heard.append(signum))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    yield heard
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def run_until_signalled(*callbacks, signum=signal.SIGTERM, register_after=()) -> list[str]:
    """Register ``callbacks`` and one taken back, raise ``signum``, then register
    ``register_after``: the callbacks that ran, in order."""
    ran: list[str] = []

    async def main():
        for name in callbacks:
            shutdown.on_shutdown(lambda name=name: ran.append(name))
        shutdown.on_shutdown(lambda: ran.append("taken back"))()
        signal.raise_signal(signum)
        await asyncio.sleep(0.05)
        for name in register_after:
            shutdown.on_shutdown(lambda name=name: ran.append(name))
        await asyncio.sleep(0.05)

    asyncio.run(main())
    return ran


def test_the_servers_handler_runs_as_before_then_each_callback_once_on_the_loop(servers_handlers):
    ran = run_until_signalled("event streams", "mcp", register_after=["opened after"])
    assert servers_handlers == [signal.SIGTERM]
    assert ran == ["event streams", "mcp", "opened after"]


def test_a_signal_the_server_ignores_or_leaves_to_its_default_is_left_alone(servers_handlers):
    assert run_until_signalled("event streams", signum=signal.SIGINT) == []  # SIG_IGN, as set above
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_a_second_registration_does_not_chain_twice(servers_handlers):
    async def main():
        shutdown.on_shutdown(lambda: None)
        first = signal.getsignal(signal.SIGTERM)
        shutdown.on_shutdown(lambda: None)
        assert signal.getsignal(signal.SIGTERM) is first

    asyncio.run(main())


def test_outside_the_main_thread_nothing_is_chained(servers_handlers):
    handler = signal.getsignal(signal.SIGTERM)
    thread = threading.Thread(target=asyncio.run, args=(_register(),))
    thread.start()
    thread.join()
    assert signal.getsignal(signal.SIGTERM) is handler


async def _register():
    shutdown.on_shutdown(lambda: None)
