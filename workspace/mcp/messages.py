"""The JSON-RPC message of an MCP ``POST``, read and checked before the SDK
sees it, so that a malformed one gets a JSON-RPC error in the app's words.

The SDK (2.3) answers such bodies with its parser's or pydantic's own text
(``Validation error: 3 validation errors for union[...]``), which names
library internals and echoes the body back. Here the body is read once
(bounded by the server's request size, within a timeout), checked, and
handed on to the SDK unchanged.
"""

import json
from collections.abc import MutableMapping
from typing import Any

import anyio
import mcp_types as types
from pydantic import ValidationError

from ..utils.asgi_types import Receive, Scope

READ_TIMEOUT_SECONDS = 30


class Malformed(Exception):
    """What is wrong with a body, as a JSON-RPC error (its HTTP status: ``status``)."""

    def __init__(self, code: int, message: str, status: int = 400):
        super().__init__(message)
        self.code, self.message, self.status = code, message, status

    def body(self) -> bytes:
        error = {"code": self.code, "message": self.message}
        return json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()


def is_json(scope: Scope) -> bool:
    """Whether the request says its body is JSON (the SDK answers any other 415 itself)."""
    content_type = dict(scope["headers"]).get(b"content-type", b"").decode("latin-1")
    return content_type.split(";")[0].strip().lower() == "application/json"


async def read_body(receive: Receive, limit: int) -> bytes:
    """The whole body, at most ``limit`` bytes, or ``Malformed`` (413, 408)."""
    body = bytearray()
    try:
        with anyio.fail_after(READ_TIMEOUT_SECONDS):
            while True:
                message = await receive()
                if message["type"] != "http.request":  # the client left
                    raise Malformed(types.INVALID_REQUEST, "the request ended before its body")
                body += message.get("body", b"")
                if len(body) > limit:
                    raise Malformed(
                        types.INVALID_REQUEST, f"the body is larger than this server accepts ({limit} bytes)", 413
                    )
                if not message.get("more_body", False):
                    return bytes(body)
    except TimeoutError:
        raise Malformed(
            types.INVALID_REQUEST, f"the body did not arrive within {READ_TIMEOUT_SECONDS} s", 408
        ) from None


def check(body: bytes) -> None:
    """Nothing if ``body`` is one JSON-RPC 2.0 message; else ``Malformed``
    saying what is wrong with it, in terms of the JSON-RPC specification."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        raise Malformed(types.PARSE_ERROR, "Parse error: the body is not valid JSON") from None
    if isinstance(message, list):
        raise Malformed(types.INVALID_REQUEST, "batches are not supported: send one JSON-RPC message per request")
    if not isinstance(message, dict):
        raise Malformed(types.INVALID_REQUEST, "Invalid Request: a JSON-RPC 2.0 message is an object")
    if message.get("jsonrpc") != "2.0":
        raise Malformed(types.INVALID_REQUEST, 'Invalid Request: a JSON-RPC 2.0 message has "jsonrpc": "2.0"')
    if "id" in message and (isinstance(message["id"], bool) or not isinstance(message["id"], str | int)):
        raise Malformed(types.INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer')
    if "method" in message:
        if not isinstance(message["method"], str):
            raise Malformed(types.INVALID_REQUEST, 'Invalid Request: "method" must be a string')
        if not isinstance(message.get("params", {}), dict):
            raise Malformed(types.INVALID_REQUEST, 'Invalid Request: "params" must be an object')
    elif "id" not in message or ("result" in message) == ("error" in message):
        raise Malformed(
            types.INVALID_REQUEST,
            'Invalid Request: a request has "method" and "id", a notification "method", '
            'a response "id" and either "result" or "error"',
        )
    try:  # what the SDK will ask of it: anything left is as unusual as it is unlikely
        types.jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError:
        raise Malformed(types.INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message MCP accepts") from None


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body already read, then what the client sends next."""
    given = False

    async def replay() -> MutableMapping[str, Any]:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
