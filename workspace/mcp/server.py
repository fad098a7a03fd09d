"""The MCP handlers: the registered tools, and the thread's document as a
resource that clients read and subscribe to.

Every handler serves the thread and the caller that ``asgi`` authenticated
for the HTTP request it came in (``Caller``).
"""

import logging
import math
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import mcp_types as types
from django.db import InterfaceError, OperationalError
from mcp.server import Server
from mcp.shared.exceptions import MCPError
from rest_framework.throttling import SimpleRateThrottle

from ..access import can_access
from ..documents.calls import CallOptions
from ..documents.repository import WorkspaceRepository
from ..exceptions import DatabaseUnavailable, DocumentNotFound
from ..http.throttling import ReadRateThrottle, WriteRateThrottle
from ..tools.decorator import ToolSpec
from ..tools.envelope import ENVELOPE_SCHEMA, ToolResult, failure_envelope
from ..tools.registry import RegisteredTool, registered_tools
from ..utils.async_bridge import as_async_request
from .subscriptions import Subscriptions

logger = logging.getLogger(__name__)

CALLER = "workspace.mcp.caller"  # the key of the Caller in the ASGI scope
MIME_TYPE = "text/plain"


@dataclass(frozen=True)
class Caller:
    user: Any
    thread_id: str
    options: CallOptions  # the user as actor, the request's Idempotency-Key


def document_uri(thread_id: str) -> str:
    return f"workspace://threads/{thread_id}/document"


def build_server(subscriptions: Subscriptions) -> Server:
    """One server per process; the thread is each request's."""

    async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
        subscriptions.add_session(ctx.session, _own_document(ctx, str(params.uri)))
        return types.EmptyResult()

    async def unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        subscriptions.remove_session(ctx.session, _own_document(ctx, str(params.uri)))
        return types.EmptyResult()

    async def listen(ctx: Any, params: types.SubscriptionsListenRequestParams) -> types.SubscriptionsListenResult:
        threads = {_own_document(ctx, str(uri)) for uri in params.notifications.resource_subscriptions or ()}
        return await subscriptions.listen(ctx, params, threads, _caller(ctx).user)

    return Server(
        "workspace",
        version=_version(),
        instructions="The tools read and write this thread's shared working document.",
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
        get_tool_input_schema=_input_schema,
        on_list_resources=_list_resources,
        on_read_resource=_read_resource,
        on_subscribe_resource=subscribe,  # clients of the 2025 protocols, in a session
        on_unsubscribe_resource=unsubscribe,
        on_subscriptions_listen=listen,  # clients of 2026-07-28, without a session
    )


async def _list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    await _count_read(ctx)
    return types.ListToolsResult(tools=[_describe(tool.spec) for tool in registered_tools().values()])


async def _call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    caller = _caller(ctx)
    tool = registered_tools().get(params.name)
    if tool is None:
        raise MCPError(types.INVALID_PARAMS, f"unknown tool {params.name[:60]!r}; see tools/list")
    result = await as_async_request(_throttled_invoke)(tool, caller, params.arguments or {})
    envelope = result.envelope
    text = envelope["summary"] if result.succeeded else envelope["error"]
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=envelope,
        is_error=not result.succeeded,
    )


async def _list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    await _count_read(ctx)
    thread_id = _caller(ctx).thread_id
    document = types.Resource(
        name="document",
        title="The working document",
        description=f"The shared working document of thread {thread_id}.",
        uri=document_uri(thread_id),
        mime_type=MIME_TYPE,
    )
    return types.ListResourcesResult(resources=[document])


async def _read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    thread_id = _own_document(ctx, str(params.uri))
    await _count_read(ctx)
    content = await as_async_request(_content)(thread_id)
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=document_uri(thread_id), mime_type=MIME_TYPE, text=content)]
    )


def _version() -> str:
    try:
        return version("django-workspace")
    except PackageNotFoundError:  # run from a checkout, not installed
        return "dev"


def _describe(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.parameters_schema,
        output_schema=ENVELOPE_SCHEMA,
        annotations=types.ToolAnnotations(
            read_only_hint=spec.read_only,
            destructive_hint=None if spec.read_only else spec.destructive,
            open_world_hint=False,
        ),
    )


def _throttled_invoke(tool: RegisteredTool, caller: Caller, arguments: dict[str, Any]) -> ToolResult:
    """The tool call, counted against the user's rate of tool calls as over HTTP."""
    if not tool.spec.read_only and not can_access(caller.user, caller.thread_id, "write"):
        logger.info("%s on thread %.128r: may not write (403)", tool.spec.name, caller.thread_id)
        return ToolResult(failure_envelope("You may read this thread but not change it."), 403)
    throttle = WriteRateThrottle()
    if not throttle.allow_user(caller.user):
        logger.info("%s on thread %.128r: over the rate (429)", tool.spec.name, caller.thread_id)
        return ToolResult(failure_envelope(over_the_rate(throttle, "tool calls")), 429)
    return tool.invoke(caller.thread_id, arguments, caller.options)


async def _count_read(ctx: Any) -> None:
    """A read, counted against the user's rate of reads as over HTTP."""
    if (throttle := await over_read_rate(_caller(ctx).user)) is not None:
        raise MCPError(types.INTERNAL_ERROR, over_the_rate(throttle, "reads"))


async def over_read_rate(user: Any) -> ReadRateThrottle | None:
    """A read of ``user`` counted against their rate of reads: None, or the throttle that refused it."""
    throttle = ReadRateThrottle()
    allowed = await as_async_request(throttle.allow_user)(user)
    return None if allowed else throttle


def over_the_rate(throttle: SimpleRateThrottle, what: str) -> str:
    return f"over the rate of {what}; retry in {retry_after(throttle)} s"


def retry_after(throttle: SimpleRateThrottle) -> int:
    return math.ceil(throttle.wait() or 1)


def _input_schema(name: str) -> dict[str, Any] | None:
    tool = registered_tools().get(name)
    return tool.spec.parameters_schema if tool else None


def _caller(ctx: Any) -> Caller:
    return ctx.request.scope[CALLER]


def _own_document(ctx: Any, uri: str) -> str:
    """The thread of ``uri`` if it is this thread's document; any other URI is refused."""
    thread_id = _caller(ctx).thread_id
    if uri != document_uri(thread_id):
        raise MCPError(
            types.INVALID_PARAMS, f"unknown resource {uri[:200]!r}; this thread's is {document_uri(thread_id)!r}"
        )
    return thread_id


def _content(thread_id: str) -> str:
    try:
        return WorkspaceRepository.get_document(thread_id).content
    except DocumentNotFound:
        return ""
    except (OperationalError, InterfaceError):
        logger.exception("the database failed while reading the document of thread %r over MCP", thread_id)
        raise MCPError(types.INTERNAL_ERROR, str(DatabaseUnavailable(writing=False))) from None
