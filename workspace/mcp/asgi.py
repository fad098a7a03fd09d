"""``asgi(django_application)``: the ASGI application that serves Django and,
at ``threads/<id>/mcp/``, the MCP server.

Django's ASGI handler refuses lifespan events; the SDK's session manager
needs one. This application owns the lifespan (it runs the session manager
and hears of changes for the subscriptions) and hands every other request
to Django. An MCP request is checked as the API checks its own, before the
SDK sees it: an allowed host, a valid thread id (else 400), a token of the
API as ``Authorization: Bearer <key>`` or ``Token <key>`` (else 401), the
access policy (else 403), a valid ``Idempotency-Key`` if any (else 400).
"""

import contextlib
import json
import logging

from django.apps import apps
from django.conf import settings
from django.core.exceptions import DisallowedHost, ImproperlyConfigured
from django.core.handlers.asgi import ASGIRequest
from django.db import InterfaceError, OperationalError
from django.urls import Resolver404, resolve
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from rest_framework.exceptions import AuthenticationFailed

from ..access import can_access
from ..authentication import TokenAuthentication
from ..calls import CallOptions
from ..db import as_request
from ..exceptions import RETRY_AFTER_SECONDS, WorkspaceError
from ..validation import validate_thread_id
from ..views import mcp_without_asgi
from .server import CALLER, Caller, build_server, document_uri
from .subscriptions import Subscriptions

logger = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024


def asgi(django_application):
    """Wrap Django's ASGI application (``get_asgi_application()``) to serve MCP too."""
    if not apps.is_installed("rest_framework.authtoken"):
        raise ImproperlyConfigured(
            "workspace.mcp authenticates with the API's tokens: install rest_framework.authtoken"
        )
    return WorkspaceASGI(django_application)


class WorkspaceASGI:
    def __init__(self, django_application):
        self.django = django_application
        self.subscriptions = Subscriptions(document_uri)
        self.manager = StreamableHTTPSessionManager(
            app=build_server(self.subscriptions),
            # Hosts are checked here against ALLOWED_HOSTS, as Django checks them.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=settings.DATA_UPLOAD_MAX_MEMORY_SIZE or DEFAULT_MAX_BODY_BYTES,
        )
        self.running = False

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http" and "/mcp" in scope["path"] and (thread_id := _mcp_thread(scope)) is not None:
            await self._mcp(scope, receive, send, thread_id)
        else:
            await self.django(scope, receive, send)

    async def _lifespan(self, receive, send):
        async with contextlib.AsyncExitStack() as stack:
            await receive()  # lifespan.startup
            try:
                await stack.enter_async_context(self.manager.run())
                self.subscriptions.start()
                stack.callback(self.subscriptions.stop)
            except Exception as error:
                await send({"type": "lifespan.startup.failed", "message": str(error)})
                return
            self.running = True
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
            self.running = False
        await send({"type": "lifespan.shutdown.complete"})

    async def _mcp(self, scope, receive, send, thread_id: str):
        if not self.running:
            return await _refuse(send, 503, "unavailable", "MCP needs the ASGI lifespan: run the server with it on")
        request = ASGIRequest(scope, None)
        try:
            request.get_host()  # ALLOWED_HOSTS, as for every Django request
            thread_id = validate_thread_id(thread_id)
        except (DisallowedHost, WorkspaceError) as error:
            return await _refuse(send, 400, "invalid_request", str(error))
        authorization = request.headers.get("Authorization", "")
        try:
            user, key, allowed = await as_request(_authorize)(authorization, thread_id)
        except (OperationalError, InterfaceError):
            logger.exception("the database failed while authenticating an MCP request")
            return await _refuse(send, 503, "unavailable", "the database is unavailable or busy; retry shortly")
        except Exception:
            logger.exception("authenticating an MCP request failed")
            return await _refuse(send, 500, "server_error", "the server failed to handle this request")
        if user is None:
            error = "invalid_token" if authorization else "unauthorized"
            return await _refuse(send, 401, error, "send a token of the API: Authorization: Bearer <key>")
        if not allowed:
            return await _refuse(send, 403, "forbidden", "You may not use this thread.")
        try:
            options = CallOptions(actor=user.get_username(), idempotency_key=request.headers.get("Idempotency-Key"))
        except WorkspaceError as error:
            return await _refuse(send, 400, "invalid_request", str(error))
        # The SDK binds a session (2025 protocols) to the credential that
        # opened it: the user and the thread, so that a session opened on one
        # thread is unknown (404) on another.
        client_id = f"user:{user.pk}:thread:{thread_id}"
        scope = {
            **scope,
            "user": AuthenticatedUser(AccessToken(token=key, client_id=client_id, scopes=[])),
            CALLER: Caller(user=user, thread_id=thread_id, options=options),
        }
        await self.manager.handle_request(scope, receive, send)


def _mcp_thread(scope) -> str | None:
    """The thread id if the path is an MCP endpoint of the app's URLconf."""
    try:  # the path as Django resolves it: without root_path or FORCE_SCRIPT_NAME
        match = resolve(ASGIRequest(scope, None).path_info)
    except Resolver404:
        return None
    return match.kwargs["thread_id"] if match.func is mcp_without_asgi else None


def _authorize(header: str, thread_id: str):
    """The active user of a token of the API (checked by the app's token
    authentication), its key, and whether the policy lets the user use the
    thread; (None, "", False) without a valid token."""
    scheme, _, key = header.partition(" ")
    key = key.strip()
    if scheme.lower() not in ("bearer", "token") or not key or len(key) > 128:
        return None, "", False
    try:
        user, _ = TokenAuthentication().authenticate_credentials(key)
    except AuthenticationFailed:
        return None, "", False
    return user, key, can_access(user, thread_id)


async def _refuse(send, status: int, error: str, description: str) -> None:
    body = json.dumps({"error": error, "error_description": description}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:  # RFC 6750: no error code when no credentials came
        challenge = 'Bearer realm="workspace"' + (f', error="{error}"' if error == "invalid_token" else "")
        headers.append((b"www-authenticate", challenge.encode()))
    if status == 503:
        headers.append((b"retry-after", str(RETRY_AFTER_SECONDS).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
