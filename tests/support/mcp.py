"""MCP clients for the tests: the official SDK's, and raw JSON-RPC requests."""

import asyncio
import contextlib
import json
import urllib.error
import urllib.request
import warnings

import httpx2
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning


@contextlib.asynccontextmanager
async def connect(server, token, thread_id, mode="2026-07-28", scheme="Bearer", headers=None, **options):
    http = httpx2.AsyncClient(headers={"Authorization": f"{scheme} {token}", **(headers or {})}, timeout=10)
    transport = streamable_http_client(f"{server.url}/api/workspace/threads/{thread_id}/mcp/", http_client=http)
    async with http, Client(transport, mode=mode, **options) as client:
        yield client


def run(coroutine):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)  # resources/subscribe: gone in 2026-07-28
        return asyncio.run(asyncio.wait_for(coroutine, 30))


def post_initialize(server, thread, headers):
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    return post_mcp(server, thread, headers, json.dumps(body).encode())


def post_mcp(server, thread, headers, body: bytes, method="POST"):
    """A raw request to the thread's MCP endpoint: its status, headers and body."""
    request = urllib.request.Request(
        f"{server.url}/api/workspace/threads/{thread}/mcp/",
        data=body,
        method=method,
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def open_session(server, thread, auth) -> dict:
    """The headers of a new session of the 2025 protocols (initialized)."""
    status, headers, _ = post_initialize(server, thread, auth)
    assert status == 200
    session = {**auth, "Mcp-Session-Id": headers["Mcp-Session-Id"], "Mcp-Protocol-Version": "2025-11-25"}
    initialized = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
    assert post_mcp(server, thread, session, initialized)[0] == 202
    return session


def uri(thread_id):
    return f"workspace://threads/{thread_id}/document"
