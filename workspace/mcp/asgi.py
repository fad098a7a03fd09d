"""``asgi(django_application)``: the ASGI application that serves Django and,
at ``threads/<id>/mcp/``, the MCP server. Hosts reach it through
``workspace.asgi.with_workspace``, which puts it around the event streams.

Django's ASGI handler refuses lifespan events; the SDK's session manager
needs one. This application owns the lifespan (it runs the session manager
and hears of changes for the subscriptions; when the server begins to stop,
``workspace.events.shutdown``, it ends the MCP streams) and hands every other
request to Django. An MCP request is checked as the API checks its own, before the
SDK sees it: an allowed host, a valid thread id (else 400), an ``Origin``, if
any, of an allowed host (else 403: DNS rebinding), a token of the API as
``Authorization: Bearer <key>`` or ``Token <key>`` (else 401), the access
policy (else 403), a valid ``Idempotency-Key`` if any (else 400), one
well-formed JSON-RPC message (``messages``; else a JSON-RPC error).

Its limits: a request that opens a session (``initialize``) counts against
the user's rate of reads and ``WORKSPACE_MCP_MAX_SESSIONS_PER_USER``
(``sessions``); a session's standalone ``GET`` stream holds one of the
user's stream slots while it is open (``WORKSPACE_MAX_STREAMS_PER_USER``, with
their event streams and listen streams). Over any of them: 429.
"""

import contextlib
import io
import json
import logging
from collections.abc import Sequence
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.exceptions import DisallowedHost, ImproperlyConfigured
from django.core.handlers.asgi import ASGIRequest
from django.db import InterfaceError, OperationalError
from django.http.request import split_domain_port, validate_host
from django.urls import Resolver404, resolve
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from rest_framework.exceptions import AuthenticationFailed

from ..access import can_access
from ..authentication import TokenAuthentication, token_key
from ..conf import conf
from ..documents.calls import CallOptions
from ..events import shutdown, slots
from ..exceptions import RETRY_AFTER_SECONDS, TooManyStreams, WorkspaceError
from ..http.views import mcp_without_asgi
from ..internals.mcp import session_transports
from ..utils.asgi_types import ASGIApplication, Receive, Scope, Send
from ..utils.async_bridge import as_async_request
from ..validation import validate_thread_id
from . import messages
from .server import CALLER, Caller, build_server, document_uri, over_read_rate, over_the_rate, retry_after
from .sessions import UserSessions
from .subscriptions import Subscriptions

logger = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
LIMITS_RETRY_AFTER = TooManyStreams.retry_after  # at the streams' or the sessions' limit


def asgi(django_application: ASGIApplication) -> "WorkspaceASGI":
    """Wrap Django's ASGI application (``get_asgi_application()``) to serve MCP too."""
    if not apps.is_installed("rest_framework.authtoken"):
        raise ImproperlyConfigured(
            "workspace.mcp authenticates with the API's tokens: install rest_framework.authtoken"
        )
    return WorkspaceASGI(django_application)


class WorkspaceASGI:
    """Django's ASGI application with the threads' MCP servers in front of it."""

    def __init__(self, django_application: ASGIApplication) -> None:
        self.django = django_application
        self.subscriptions = Subscriptions(document_uri)
        self.sessions = UserSessions()
        server = build_server(self.subscriptions)
        server.middleware.append(self.sessions.middleware)
        self.manager = StreamableHTTPSessionManager(
            app=server,
            # Hosts are checked here against ALLOWED_HOSTS, as Django checks them.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=settings.DATA_UPLOAD_MAX_MEMORY_SIZE or DEFAULT_MAX_BODY_BYTES,
        )
        self.running = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http" and "/mcp" in scope["path"] and (thread_id := _mcp_thread(scope)) is not None:
            await self._serve_mcp(scope, receive, send, thread_id)
        else:
            await self.django(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        async with contextlib.AsyncExitStack() as stack:
            await receive()  # lifespan.startup
            try:
                await stack.enter_async_context(self.manager.run())
                self.subscriptions.start()
                stack.callback(self.subscriptions.stop)
                stack.callback(shutdown.on_shutdown(self._end_streams))
            except Exception as error:
                await send({"type": "lifespan.startup.failed", "message": str(error)})
                return
            self.running = True
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
            self.running = False
        await send({"type": "lifespan.shutdown.complete"})

    def _end_streams(self) -> None:
        """The server stops: end the listen streams, and the sessions' standalone
        streams, as the SDK ends them; their clients listen again, or reconnect,
        elsewhere."""
        self.subscriptions.end_listen_streams()
        for transport in session_transports(self.manager):
            transport.close_standalone_sse_stream()

    async def _serve_mcp(self, scope: Scope, receive: Receive, send: Send, thread_id: str) -> None:
        """An MCP request, checked as the API checks its own, then handed to the SDK."""
        if not self.running:
            return await _refuse(send, 503, "unavailable", "MCP needs the ASGI lifespan: run the server with it on")
        request = ASGIRequest(scope, io.BytesIO())  # its headers only: the body is the SDK's
        try:
            request.get_host()  # ALLOWED_HOSTS, as for every Django request
            thread_id = validate_thread_id(thread_id)
        except (DisallowedHost, WorkspaceError) as error:
            return await _refuse(send, 400, "invalid_request", str(error))
        if (origin := request.headers.get("Origin")) is not None and not _allowed_origin(origin):
            return await _refuse(send, 403, "forbidden", f"Origin {origin[:200]!r} is not one of this server's hosts")
        authorization = request.headers.get("Authorization", "")
        try:
            user, key, allowed = await as_async_request(_authorize)(authorization, thread_id)
        except (OperationalError, InterfaceError):
            logger.exception("the database failed while authenticating an MCP request")
            return await _refuse(send, 503, "unavailable", "the database is unavailable or busy; retry shortly")
        except Exception:
            logger.exception("authenticating an MCP request failed")
            return await _refuse(send, 500, "server_error", "the server failed to handle this request")
        if user is None:
            error_code = "invalid_token" if authorization else "unauthorized"
            return await _refuse(send, 401, error_code, "send a token of the API: Authorization: Bearer <key>")
        if not allowed:
            return await _refuse(send, 403, "forbidden", "You may not use this thread.")
        try:
            options = CallOptions(actor=user.get_username(), idempotency_key=request.headers.get("Idempotency-Key"))
        except WorkspaceError as error:
            return await _refuse(send, 400, "invalid_request", str(error))
        caller = Caller(user=user, thread_id=thread_id, options=options)
        await self._hand_to_sdk(request, caller, key, scope, receive, send)

    async def _hand_to_sdk(
        self, request: ASGIRequest, caller: Caller, key: str, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """An authorized request, its JSON-RPC message checked, handed to the SDK
        within the user's limits (sessions, streams)."""
        user = caller.user
        if scope["method"] == "POST" and messages.is_json(scope):
            try:
                body = await messages.read_body(receive, self.manager.max_request_body_size)
                messages.check(body)
            except messages.Malformed as malformed:
                return await _answer(send, malformed.status, malformed.body())
            receive = messages.replaying(body, receive)
        # The SDK binds a session (2025 protocols) to the credential that
        # opened it: the user and the thread, so that a session opened on one
        # thread is unknown (404) on another.
        client_id = f"user:{user.pk}:thread:{caller.thread_id}"
        scope = {
            **scope,
            "user": AuthenticatedUser(AccessToken(token=key, client_id=client_id, scopes=[])),
            CALLER: caller,
        }
        if _opens_session(request):
            await self._open_session(user, scope, receive, send)
        elif scope["method"] == "GET":  # a session's standalone stream, as long as the client keeps it
            async with slots.held(user) as slot:
                if slot is None:
                    return await _refuse(send, 429, "too_many_streams", slots.limit_reached(), LIMITS_RETRY_AFTER)
                await self.manager.handle_request(scope, receive, send)
        else:
            await self.manager.handle_request(scope, receive, send)

    async def _open_session(self, user: Any, scope: Scope, receive: Receive, send: Send) -> None:
        """A request that opens a session: ``initialize``, counted against the
        user's rate of reads and share of this process's sessions."""
        if (throttle := await over_read_rate(user)) is not None:
            return await _refuse(send, 429, "throttled", over_the_rate(throttle, "reads"), retry_after(throttle))
        if not self.sessions.reserve(user):
            limit = conf.MCP_MAX_SESSIONS_PER_USER
            description = (
                f"you have {limit} MCP sessions open (WORKSPACE_MCP_MAX_SESSIONS_PER_USER); "
                "end one (DELETE with its Mcp-Session-Id) or let it expire"
            )
            return await _refuse(send, 429, "too_many_sessions", description, LIMITS_RETRY_AFTER)
        try:
            await self.manager.handle_request(scope, receive, send)
        finally:
            self.sessions.unreserve(user)


def _mcp_thread(scope: Scope) -> str | None:
    """The thread id if the path is an MCP endpoint of the app's URLconf."""
    try:  # the path as Django resolves it: without root_path or FORCE_SCRIPT_NAME
        match = resolve(ASGIRequest(scope, io.BytesIO()).path_info)
    except Resolver404:
        return None
    return match.kwargs["thread_id"] if match.func is mcp_without_asgi else None


def _opens_session(request: ASGIRequest) -> bool:
    """Whether the SDK would open a session for ``request``: one of the 2025
    protocols (no protocol version yet, or one of theirs) without a session id."""
    version = request.headers.get("Mcp-Protocol-Version")
    return "Mcp-Session-Id" not in request.headers and (version is None or version in HANDSHAKE_PROTOCOL_VERSIONS)


def _allowed_origin(origin: str) -> bool:
    """Whether a browser's ``Origin`` names one of ALLOWED_HOSTS (as Django
    judges ``Host``, DEBUG's local defaults included): the MCP specification's
    guard against DNS rebinding."""
    scheme, _, netloc = origin.partition("://")
    if scheme not in ("http", "https") or not netloc or "/" in netloc:
        return False  # "null" (a sandboxed page, a file) or nothing a browser sends
    domain, _ = split_domain_port(netloc.lower())
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    return bool(domain) and validate_host(domain, allowed)


def _authorize(header: str, thread_id: str) -> tuple[Any, str, bool]:
    """The active user of a token of the API (checked by the app's token
    authentication), its key, and whether the policy lets the user use the
    thread; (None, "", False) without a valid token."""
    try:
        key = token_key(header)
        if key is None:
            return None, "", False
        user, _ = TokenAuthentication().authenticate_credentials(key)
    except AuthenticationFailed:
        return None, "", False
    return user, key, can_access(user, thread_id)


async def _refuse(send: Send, status: int, error: str, description: str, retry_after: int | None = None) -> None:
    body = json.dumps({"error": error, "error_description": description}).encode()
    headers: list[tuple[bytes, bytes]] = []
    if status == 401:  # RFC 6750: no error code when no credentials came
        challenge = 'Bearer realm="workspace"' + (f', error="{error}"' if error == "invalid_token" else "")
        headers.append((b"www-authenticate", challenge.encode()))
    if status == 503:
        retry_after = RETRY_AFTER_SECONDS
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await _answer(send, status, body, headers)


async def _answer(send: Send, status: int, body: bytes, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    all_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": all_headers})
    await send({"type": "http.response.body", "body": body})
