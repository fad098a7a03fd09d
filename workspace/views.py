"""The HTTP API: thin DRF views over the tool registry and the repository."""

import io
import logging
import re

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, PermissionDenied, RequestDataTooBig
from django.core.handlers.wsgi import LimitedStream
from django.db import InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import ISO_8601, permissions, serializers
from rest_framework.exceptions import APIException, NotFound, ParseError
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView, exception_handler

from . import history
from .access import can_access
from .calls import IDEMPOTENCY_KEY_PATTERN, CallOptions, ExpectedVersions
from .events import link_authentication
from .events.stream import stream_response
from .exceptions import (
    RETRY_AFTER_SECONDS,
    DatabaseUnavailable,
    DocumentTooLarge,
    InvalidArguments,
    ToolFailed,
    WorkspaceError,
)
from .repository import WorkspaceRepository
from .throttling import ReadRateThrottle, WriteRateThrottle
from .tools.arguments import shorten
from .tools.envelope import failure_envelope
from .tools.exports import FORMATS
from .tools.registry import get_tool, registered_tools
from .validation import validate_thread_id

logger = logging.getLogger(__name__)


class JSONOnly(BaseContentNegotiation):
    """Bodies are read as JSON and answers are JSON, whatever the client's
    Content-Type (or its absence) and Accept headers say."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class CanAccessThread(permissions.BasePermission):
    """A valid thread id (else 400), then the access policy (else 403)."""

    message = "You may not use this thread."

    def has_permission(self, request, view) -> bool:
        thread_id = validate_thread_id(view.kwargs["thread_id"])
        return can_access(request.user, thread_id)


class DocumentedWhenLookedAt:
    """``WorkspaceView.schema`` until anything looks at it, as a schema
    generator does before describing a view: then workspace.openapi replaces
    it with drf-spectacular's AutoSchema and attaches every endpoint's
    documentation. Serving requests never looks: drf-spectacular stays
    unloaded (5 MB a process) unless the schema is asked for."""

    def __get__(self, view, owner):
        from . import openapi

        if isinstance(WorkspaceView.__dict__["schema"], DocumentedWhenLookedAt):
            raise ImproperlyConfigured(f"{openapi.__name__} did not document the views")
        return (view if view is not None else owner).schema


# For a DRF view: every failure answered with the envelope. (A comment, not
# a docstring: schema generators would show a docstring as each endpoint's description.)
class FailuresAsEnvelope:
    def handle_exception(self, exc):
        """The app's errors with their status; the database's faults as 503 with
        Retry-After; any other error logged with its traceback and answered 500;
        all of them with the failure envelope."""
        if isinstance(exc, (OperationalError, InterfaceError)):
            logger.exception("the database failed during %s %s", self.request.method, self.request.path)
            exc = DatabaseUnavailable(writing=self.may_write())
        elif not isinstance(exc, (WorkspaceError, APIException, Http404, PermissionDenied)):
            logger.exception("%s %s failed", self.request.method, self.request.path)
            exc = ToolFailed("the server failed to handle this request")
        retry_after = getattr(exc, "retry_after", None)
        if isinstance(exc, WorkspaceError):
            exc = _as_api_exception(exc)
        response = super().handle_exception(exc)
        if retry_after and not response.has_header("Retry-After"):
            response["Retry-After"] = str(retry_after)
        response.data = failure_envelope(_detail_text(response.data))  # one shape for every failure
        return response

    def may_write(self) -> bool:
        """Whether this request may change something (and a retry could apply it twice)."""
        return self.request.method not in permissions.SAFE_METHODS


# What the host's REST_FRAMEWORK defaults must not change in the app's views:
# their permissions (every view needs a signed-in user unless it says more),
# throttles (each view names its own rate; streams are bounded by
# WORKSPACE_MAX_STREAMS_PER_USER), versioning and exception handler (the
# envelope is shaped from DRF's own). The host's authentication classes do
# apply: they are how its users and agents sign in. (Comments, not a
# docstring: schema generators would show it as each endpoint's description.)
class AppOwnDefaults:
    permission_classes = [permissions.IsAuthenticated]
    throttle_classes = []
    versioning_class = None

    def get_exception_handler(self):
        return exception_handler

    def get_authenticate_header(self, request):
        """The challenge of the first authentication class that has one (DRF asks
        only the first): with session authentication listed first, a request
        without credentials is still 401 with a WWW-Authenticate header, not 403."""
        for authenticator in self.get_authenticators():
            header = authenticator.authenticate_header(request)
            if header:
                return header
        return None


class WorkspaceView(AppOwnDefaults, FailuresAsEnvelope, APIView):
    parser_classes = [JSONParser]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONOnly
    schema = DocumentedWhenLookedAt()


class ToolListView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated]
    throttle_classes = [ReadRateThrottle]

    def get(self, request):
        name = request.query_params.get("format", "plain")
        if name not in FORMATS:
            raise InvalidArguments(f"unknown format {shorten(name)!r}; the formats are: {', '.join(FORMATS)}")
        export = FORMATS[name]
        return Response([export(tool) for tool in registered_tools().values()])


class ToolCallView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [WriteRateThrottle]

    def initialize_request(self, request, *args, **kwargs):
        _size_chunked_body(request)
        return super().initialize_request(request, *args, **kwargs)

    def may_write(self) -> bool:
        tool = registered_tools().get(self.kwargs["name"])
        return tool is None or not tool.spec.read_only

    def post(self, request, thread_id: str, name: str):
        tool = get_tool(name)
        try:
            arguments = request.data
        except RecursionError:
            raise InvalidArguments("the request body is nested too deeply") from None
        except ParseError as error:
            raise InvalidArguments(
                "the request body must be a JSON object of the tool's arguments, sent with "
                f"Content-Type: application/json ({_detail_text(error.detail)[:200]})"
            ) from None
        except RequestDataTooBig:
            raise DocumentTooLarge(
                "the request body is larger than this server accepts "
                f"(DATA_UPLOAD_MAX_MEMORY_SIZE = {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes)"
            ) from None
        if not isinstance(arguments, dict):
            raise InvalidArguments("the request body must be a JSON object of the tool's arguments")
        options = CallOptions(
            actor=request.user.get_username(),
            expected_version=_if_match(request.headers.get("If-Match")),
            idempotency_key=_idempotency_key(request.headers.get("Idempotency-Key")),
        )
        result = tool.invoke(thread_id, arguments, options)
        headers = {}
        if result.replayed:
            headers["Idempotent-Replayed"] = "true"
        if result.status_code == 503:
            headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return Response(result.envelope, status=result.status_code, headers=headers)


class DocumentView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [ReadRateThrottle]

    class OutputSerializer(serializers.Serializer):
        thread_id = serializers.CharField()
        title = serializers.CharField()
        content = serializers.CharField()
        length = serializers.IntegerField()
        version = serializers.IntegerField()
        created_at = serializers.DateTimeField(format=ISO_8601)  # whatever the host's DATETIME_FORMAT
        updated_at = serializers.DateTimeField(format=ISO_8601)  # whatever the host's DATETIME_FORMAT

    def get(self, request, thread_id: str):
        document = WorkspaceRepository.get_document(thread_id)
        return Response(self.OutputSerializer(document).data, headers={"ETag": f'"{document.version}"'})


class RevisionSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    op = serializers.CharField()
    title = serializers.CharField()
    length = serializers.IntegerField()
    action_and_reasoning = serializers.CharField()
    actor = serializers.CharField(allow_null=True)
    tool = serializers.CharField(allow_null=True)
    restored_from = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField(format=ISO_8601)  # whatever the host's DATETIME_FORMAT


MAX_REVISIONS_PER_PAGE = 1000


class RevisionListView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [ReadRateThrottle]

    def get(self, request, thread_id: str):
        after = _non_negative_integer("after", _single(request, "after", "0"))
        limit = _non_negative_integer("limit", _single(request, "limit", "100"))
        if not 1 <= limit <= MAX_REVISIONS_PER_PAGE:
            raise InvalidArguments(f"limit must be from 1 to {MAX_REVISIONS_PER_PAGE}, got {limit}")
        revisions = history.revisions_after(thread_id, after, limit + 1)
        next_url = None
        if len(revisions) > limit:
            revisions = revisions[:limit]
            query = request.query_params.copy()
            query["after"] = str(revisions[-1].version)
            query["limit"] = str(limit)
            next_url = request.build_absolute_uri(f"{request.path}?{query.urlencode()}")
        return Response({"results": RevisionSerializer(revisions, many=True).data, "next": next_url})


class RevisionDetailView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [ReadRateThrottle]

    def get(self, request, thread_id: str, version: str):
        number = _non_negative_integer("version", version)
        revision, content = history.revision_with_content(history.document_id_of(thread_id), number)
        data = {**RevisionSerializer(revision).data, "content": content}
        if revision.op == revision.Op.APPEND:
            data["text"] = revision.text
        return Response(data)


class UnknownEndpointView(WorkspaceView):
    """A path under ``threads/`` that no endpoint has: 404 in JSON, after authentication."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        raise NotFound("no such endpoint: see GET tools/ and the thread endpoints document/, revisions/, events/")


@csrf_exempt  # as DRF's views are: its authentication enforces CSRF for session users
def unrouted_thread_path(request, rest: str):
    """What the routes leave: a tool name holding a "/" (an unknown tool, 404
    with the envelope), or no endpoint at all. One split: linear in the path."""
    thread_id, tools, name = rest.partition("/tools/")
    if tools:
        return tool_call_view(request, thread_id=thread_id, name=name.removesuffix("/"))
    return unknown_endpoint_view(request)


@csrf_exempt
def mcp_without_asgi(request, thread_id: str):
    """``threads/<id>/mcp/`` reached Django: the host serves Django without the
    MCP wrapper (under WSGI, or a bare ASGI handler)."""
    error = "MCP is served by workspace.mcp.asgi(django_application) in front of Django's ASGI application"
    return JsonResponse(failure_envelope(error), status=501)


class EventStreamView(WorkspaceView):
    """``text/event-stream`` of the thread's changes; the same authentication
    (a token for programs, the session cookie for the panel) and policy."""

    permission_classes = [permissions.IsAuthenticated, CanAccessThread]

    def get_authenticators(self):
        if link_authentication.proxied(self.request):
            return [*super().get_authenticators(), link_authentication.LinkAuthentication()]
        return super().get_authenticators()

    def get(self, request, thread_id: str):
        return stream_response(request._request, thread_id)


def _size_chunked_body(request) -> None:
    """Give a body sent with ``Transfer-Encoding: chunked`` (no Content-Length)
    the length it has, which DRF needs to read it at all; never reading more
    than one byte past DATA_UPLOAD_MAX_MEMORY_SIZE, so that the usual limit applies."""
    meta = request.META
    if meta.get("CONTENT_LENGTH") or "chunked" not in meta.get("HTTP_TRANSFER_ENCODING", "").lower():
        return
    if "wsgi.input" in meta:  # WSGI: Django reads no further than a Content-Length, so read here
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        data = meta["wsgi.input"].read() if limit is None else meta["wsgi.input"].read(limit + 1)
        request._stream = LimitedStream(io.BytesIO(data), len(data))
        meta["CONTENT_LENGTH"] = str(len(data))
    elif hasattr(request._stream, "seekable") and request._stream.seekable():  # ASGI: already spooled
        meta["CONTENT_LENGTH"] = str(request._stream.seek(0, io.SEEK_END))
        request._stream.seek(0)


MAX_DIGITS = 18  # what a 64-bit integer surely holds


def _single(request, name: str, default: str) -> str:
    values = request.query_params.getlist(name)
    if len(values) > 1:
        raise InvalidArguments(f"give {name} once, not {len(values)} times")
    return values[0] if values else default


def _non_negative_integer(name: str, value: str) -> int:
    if not (value.isascii() and value.isdigit() and len(value) <= MAX_DIGITS):
        raise InvalidArguments(f"{name} must be a non-negative integer, got {value[:40]!r}")
    return int(value)


# An entity tag of this app is a version in quotes, weak (W/"7") or strong ("7"); bare digits are taken too.
ENTITY_TAG = r'(W/)?"([0-9]{1,18})"|([0-9]{1,18})'
MAX_IF_MATCH_TAGS = 100
MAX_IF_MATCH_CHARS = 4096
# RFC 9110's If-Match: "*", or a comma-separated list of entity tags, whose empty elements are ignored.
IF_MATCH_PATTERN = (
    rf"[ \t]*(\*|(,[ \t]*)*({ENTITY_TAG})([ \t]*,([ \t]*,)*[ \t]*({ENTITY_TAG})){{0,{MAX_IF_MATCH_TAGS - 1}}}"
    r"([ \t]*,)*)[ \t]*"
)
IF_MATCH = re.compile(IF_MATCH_PATTERN)


def _if_match(value: str | None) -> ExpectedVersions | None:
    """``If-Match`` as RFC 9110 reads it: ``*`` (any existing document), or a
    list of entity tags of which one must be the document's (``"3", "4"``;
    ``"0"``: the thread has none). A weak tag (``W/"3"``) never matches."""
    if value is None:
        return None
    if len(value) > MAX_IF_MATCH_CHARS or not IF_MATCH.fullmatch(value):
        raise InvalidArguments(
            f'If-Match must be *, or at most {MAX_IF_MATCH_TAGS} versions in quotes, such as If-Match: "7" '
            f'or If-Match: "7", "8" (at most {MAX_IF_MATCH_CHARS} characters); got {value[:40]!r}'
        )
    if value.strip(" \t") == "*":
        return ExpectedVersions(any_existing=True)
    tags = re.finditer(ENTITY_TAG, value)
    return ExpectedVersions(versions=frozenset(int(tag[2] or tag[3]) for tag in tags if not tag[1]))


def _idempotency_key(value: str | None) -> str | None:
    if value is not None and not IDEMPOTENCY_KEY_PATTERN.fullmatch(value):
        raise InvalidArguments("Idempotency-Key must be 1 to 255 printable ASCII characters")
    return value


def _as_api_exception(error: WorkspaceError) -> APIException:
    exc = APIException(detail=str(error), code=error.default_code)
    exc.status_code = error.status_code
    return exc


def _detail_text(detail) -> str:
    """DRF's error detail (``{"detail": "..."}``, or a list or dict of them) as one line."""
    if isinstance(detail, dict):
        if set(detail) == {"detail"}:
            return _detail_text(detail["detail"])
        return "; ".join(f"{key}: {_detail_text(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return "; ".join(_detail_text(item) for item in detail)
    return str(detail)


tool_call_view = ToolCallView.as_view()
unknown_endpoint_view = UnknownEndpointView.as_view()
