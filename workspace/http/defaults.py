"""What every view of the app's HTTP API is: JSON in and out whatever the
client says, the app's own DRF defaults rather than the host's, failures as
the envelope, and the access policy for a thread's endpoints."""

from collections.abc import Callable, Iterable
from typing import Any

from django.http import HttpRequest
from rest_framework import permissions
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser, JSONParser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView, exception_handler

from ..access import can_access
from ..validation import validate_thread_id
from .failures import FailuresAsEnvelope
from .request import size_chunked_body


class JSONOnly(BaseContentNegotiation):
    """Bodies are read as JSON and answers are JSON, whatever the client's
    Content-Type (or its absence) and Accept headers say."""

    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> BaseParser:
        return next(iter(parsers))

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, renderer.media_type


class CanAccessThread(permissions.BasePermission):
    """A valid thread id (else 400), then the access policy (else 403): asked
    ``"write"`` for a request that may change something (the view's
    ``may_write()``: a method that is not safe, or a tool that is not read-only),
    ``"read"`` otherwise."""

    message = "You may not use this thread."

    def has_permission(self, request: Request, view: APIView) -> bool:
        thread_id = validate_thread_id(view.kwargs["thread_id"])
        may_write = getattr(view, "may_write", None)
        action = "write" if may_write is not None and may_write() else "read"
        if can_access(request.user, thread_id, action):
            return True
        if action == "write" and can_access(request.user, thread_id, "read"):
            self.message = "You may read this thread but not change it."
        return False


# What the host's REST_FRAMEWORK defaults must not change in the app's views:
# their permissions (every view needs a signed-in user unless it says more),
# throttles (each view names its own rate; streams are bounded by
# WORKSPACE_MAX_STREAMS_PER_USER), versioning and exception handler (the
# envelope is shaped from DRF's own). The host's authentication classes do
# apply: they are how its users and agents sign in. (Comments, not a
# docstring: schema generators would show it as each endpoint's description.)
class AppOwnDefaults(APIView):
    permission_classes = [permissions.IsAuthenticated]
    throttle_classes = []
    versioning_class = None

    def get_exception_handler(self) -> Callable[..., Any]:
        return exception_handler

    def get_authenticate_header(self, request: Request) -> str:
        """The challenge of the first authentication class that has one (DRF asks
        only the first): with session authentication listed first, a request
        without credentials is still 401 with a WWW-Authenticate header, not 403.
        Empty if none has one: then DRF answers 403."""
        for authenticator in self.get_authenticators():
            header = authenticator.authenticate_header(request)
            if header:
                return header
        return ""


# The base of the app's API views; left out of schema generators other than
# the app's own (workspace.http.openapi), which alone documents these endpoints.
# Every view sizes a body sent chunked (no Content-Length) before DRF reads it,
# so that each endpoint that reads a JSON body takes one the same way.
class WorkspaceView(AppOwnDefaults, FailuresAsEnvelope):
    parser_classes = [JSONParser]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONOnly
    schema = None

    def initialize_request(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Request:
        size_chunked_body(request)
        return super().initialize_request(request, *args, **kwargs)
