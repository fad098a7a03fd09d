"""Tool calls and change notifications over MCP, beside the HTTP API.

Starts real uvicorn processes (as the README runs them) on the database of
DATABASE_URL and measures, side by side in one run:
- one ``append_to_document`` call, answered: through the HTTP API (a
  keep-alive client), through MCP with a 2026-07-28 client (no session) and
  with a 2025-11-25 client (a session), each the official SDK's client;
- the delay from sending an append over the HTTP API to the subscriber
  holding its ``notifications/resources/updated``: a listen stream and a
  session subscription on the same process, and a listen stream on another
  process joined by Redis (REDIS_URL, default redis://127.0.0.1:6379/0).

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/mcp_calls.py [--calls 200]
"""

import argparse
import asyncio
import os
import statistics
import time
import uuid
import warnings

import httpx2
from live_setup import database_and_token, percentile
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support.live import Server

WHY = "bench"


def uri(thread_id: str) -> str:
    return f"workspace://threads/{thread_id}/document"


def mcp_client(server: Server, token: str, thread_id: str, mode: str, **options) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=10)
    url = f"{server.url}/api/workspace/threads/{thread_id}/mcp/"
    return Client(streamable_http_client(url, http_client=http), mode=mode, **options)


async def http_append(http: httpx2.AsyncClient, server: Server, token: str, thread_id: str, text: str) -> None:
    answer = await http.post(
        f"{server.url}/api/workspace/threads/{thread_id}/tools/append_to_document/",
        json={"text": text, "action_and_reasoning": WHY},
        headers={"Authorization": f"Token {token}"},
    )
    assert answer.json()["success"], answer.text


async def calls_over_http(server: Server, token: str, count: int) -> list[float]:
    thread_id, times = f"bench-{uuid.uuid4().hex[:12]}", []
    async with httpx2.AsyncClient(timeout=10) as http:
        for n in range(count):
            started = time.perf_counter()
            await http_append(http, server, token, thread_id, f"{n}\n")
            times.append((time.perf_counter() - started) * 1000)
    return times


async def calls_over_mcp(server: Server, token: str, count: int, mode: str) -> list[float]:
    thread_id, times = f"bench-{uuid.uuid4().hex[:12]}", []
    async with mcp_client(server, token, thread_id, mode) as client:
        for n in range(count):
            started = time.perf_counter()
            result = await client.call_tool("append_to_document", {"text": f"{n}\n", "action_and_reasoning": WHY})
            times.append((time.perf_counter() - started) * 1000)
            assert not result.is_error, result
    return times


async def notification_delays(writer: Server, reader: Server, token: str, count: int, mode: str) -> list[float]:
    thread_id, delays = f"bench-{uuid.uuid4().hex[:12]}", []
    updates: asyncio.Queue = asyncio.Queue()

    async def on_message(message):
        if getattr(message, "method", None) == "notifications/resources/updated":
            updates.put_nowait(time.perf_counter())

    handler = on_message if mode == "legacy" else None
    client = mcp_client(reader, token, thread_id, mode, message_handler=handler)
    async with client, httpx2.AsyncClient(timeout=10) as http:
        if mode == "legacy":
            await client.subscribe_resource(uri(thread_id))
            await measure_delays(http, writer, token, thread_id, count, updates, delays)
        else:
            async with client.listen(resource_subscriptions=[uri(thread_id)]) as subscription:

                async def pump():
                    async for _ in subscription:
                        updates.put_nowait(time.perf_counter())

                pumping = asyncio.ensure_future(pump())
                await measure_delays(http, writer, token, thread_id, count, updates, delays)
                pumping.cancel()
    return delays


async def measure_delays(http, writer, token, thread_id, count, updates, delays) -> None:
    for n in range(count):
        sent = time.perf_counter()
        await http_append(http, writer, token, thread_id, f"{n}\n")
        delays.append((await asyncio.wait_for(updates.get(), 10) - sent) * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200)
    count = parser.parse_args().calls
    database_url, token = database_and_token("bench-mcp")
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    warnings.simplefilter("ignore")  # resources/subscribe is deprecated in 2026-07-28; it is what 2025 clients use
    first = Server(database_url=database_url, REDIS_URL=redis_url, WORKSPACE_RATE_WRITES="off")
    second = Server(database_url=database_url, REDIS_URL=redis_url, WORKSPACE_RATE_WRITES="off")
    try:
        calls = {
            "HTTP API": asyncio.run(calls_over_http(first, token, count)),
            "MCP, 2026-07-28": asyncio.run(calls_over_mcp(first, token, count, "2026-07-28")),
            "MCP, 2025-11-25 session": asyncio.run(calls_over_mcp(first, token, count, "legacy")),
        }
        delays = {
            "listen, same process": asyncio.run(notification_delays(first, first, token, count, "2026-07-28")),
            "session, same process": asyncio.run(notification_delays(first, first, token, count, "legacy")),
            "listen, other process": asyncio.run(notification_delays(first, second, token, count, "2026-07-28")),
        }
    finally:
        first.stop()
        second.stop()
    for title, rows in (
        (f"append_to_document answered, ms ({count} calls)", calls),
        (f"HTTP append sent -> resources/updated received, ms ({count} appends)", delays),
    ):
        print(title)
        header = f"{'':>24} | {'median':>7} | {'p99':>7} | {'x first':>7}"
        print(header)
        print("-" * len(header))
        baseline = statistics.median(next(iter(rows.values())))
        for name, values in rows.items():
            median = statistics.median(values)
            print(f"{name:>24} | {median:7.2f} | {percentile(values, 0.99):7.2f} | {median / baseline:7.2f}")
        print()


if __name__ == "__main__":
    main()
