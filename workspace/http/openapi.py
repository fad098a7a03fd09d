"""The OpenAPI 3 schema of the app's endpoints (drf-spectacular), and a page that renders it.

Each tool call is its own path, whose request body is the JSON Schema the
tool's signature gives (the one that validates it), so that clients and
fuzzers see exactly what each tool takes.

The endpoints are documented here, through drf-spectacular's extension
points: an ``OpenApiViewExtension`` gives the schema generator a documented
subclass of each view (the views themselves know nothing of it), and
``WorkspaceSchemaGenerator`` adds the per-tool paths, the MCP path, the
servers and the info. Only the two pages' routes import this module, at
their first request: a process that only serves the API never loads
drf-spectacular (5 MB). Other schema generators (a host's own, or
drf-spectacular's deploy check) leave the app's views out, as their
``schema = None`` asks: ``GET schema/`` is where they are described.
"""

import copy
import warnings
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest
from drf_spectacular.extensions import OpenApiViewExtension
from drf_spectacular.generators import EndpointEnumerator, SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiJsonRenderer2
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView
from rest_framework import permissions, serializers
from rest_framework.response import Response
from rest_framework.schemas.generators import is_api_view
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from ..documents.preconditions import (
    IDEMPOTENCY_KEY_SCHEMA_PATTERN,
    IF_MATCH_PATTERN,
    MAX_IF_MATCH_CHARS,
    VERSION_NUMBER,
)
from ..drafts import openapi as drafts_documentation
from ..people import openapi as people_documentation
from ..review import openapi as review_documentation
from ..tools.envelope import FAILURE_SCHEMA, SUCCESS_SCHEMA
from ..tools.exports import FORMATS
from ..tools.registry import registered_tools
from ..validation import THREAD_ID_PATTERN
from . import content_security, views
from .defaults import AppOwnDefaults
from .failures import FailuresAsEnvelope

DOCUMENT = views.DocumentView.OutputSerializer  # what the document endpoints answer


def _fields(**properties: Any) -> dict:
    """An object with these properties, all required."""
    return {"type": "object", "properties": properties, "required": list(properties)}


STRING, OBJECT = {"type": "string"}, {"type": "object"}
TOOL_LIST = {
    "type": "array",
    "description": "One item per tool, in the shape ?format= asks for.",
    "items": {
        "anyOf": [
            {"description": "plain (the default)", **_fields(name=STRING, description=STRING, parameters=OBJECT)},
            {
                "description": "openai: a function tool, strict unless its arguments take a shape strict mode lacks",
                **_fields(
                    type={"type": "string", "enum": ["function"]},
                    function=_fields(name=STRING, description=STRING, parameters=OBJECT, strict={"type": "boolean"}),
                ),
            },
            {"description": "anthropic", **_fields(name=STRING, description=STRING, input_schema=OBJECT)},
        ]
    },
}
TOOL_LIST_FORMAT = OpenApiParameter(
    "format",
    {"type": "string", "enum": list(FORMATS)},
    OpenApiParameter.QUERY,
    description="The shape of the list: plain (the default), openai (strict function tools) or anthropic.",
)
THREAD_ID = OpenApiParameter(
    "thread_id",
    {"type": "string", "pattern": f"^{THREAD_ID_PATTERN.pattern}$"},
    OpenApiParameter.PATH,
    description="1 to 128 characters of A-Z a-z 0-9 . _ : -",
)
IF_MATCH = OpenApiParameter(
    "If-Match",
    {"type": "string", "pattern": f"^{IF_MATCH_PATTERN}$", "maxLength": MAX_IF_MATCH_CHARS},
    OpenApiParameter.HEADER,
    description='"<version>": applied only if the document is at that version ("0": has none); '
    '"<version>", "<version>": at one of them; *: if the document exists. A weak tag (W/"<version>") never matches.',
)
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "pattern": IDEMPOTENCY_KEY_SCHEMA_PATTERN},
    OpenApiParameter.HEADER,
    description="1 to 255 printable ASCII characters: a retry with the same key is applied at most once.",
)
VERSION = {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}

TOOL_CALL_FAILURES = {
    400: "The input is at fault: bad thread id, arguments, body, If-Match, Idempotency-Key or Draft-Id "
    "(a read with one, or a call of another tool than the draft's).",
    401: "No valid credentials.",
    403: "The access policy refuses this thread; or Draft-Id names another user's draft.",
    404: "No such tool.",
    405: "Another method than POST.",
    409: "A call with this Idempotency-Key still runs; or the document was deleted while this call wrote it.",
    412: "The document is not at a version If-Match accepts (see current_version).",
    422: "This Idempotency-Key was used for another call.",
    414: "The request line is longer than the server reads.",
    429: "Over the rate of tool calls; see Retry-After.",
    431: "The request's headers are larger than the server reads.",
    500: "The server is at fault.",
    503: "The database is unavailable or busy; retry after Retry-After.",
}
READ_FAILURES = {
    400: "Bad thread id or query parameter.",
    401: "No valid credentials.",
    403: "The access policy refuses this thread.",
    404: "Not found.",
    414: "The request line is longer than the server reads.",
    429: "Over the rate of reads; see Retry-After.",
    431: "The request's headers are larger than the server reads.",
    500: "The server is at fault.",
    503: "The database is unavailable or busy; retry after Retry-After.",
}


def read_failures() -> dict:
    """The failures of a read, each with the failure envelope."""
    return {status: OpenApiResponse(FAILURE_SCHEMA, description=text) for status, text in READ_FAILURES.items()}


def read_responses(ok: Any) -> dict:
    """``ok`` for 200, and the failures of a read."""
    return {200: ok, **read_failures()}


def tool_call_responses() -> dict:
    """The envelope of a call that succeeded, and each failure of a call."""
    return {
        200: OpenApiResponse(SUCCESS_SCHEMA, description="The envelope of a call that succeeded."),
        **{status: OpenApiResponse(FAILURE_SCHEMA, description=text) for status, text in TOOL_CALL_FAILURES.items()},
    }


def documented(
    view: type[APIView], operation_id: str | None = None, methods: dict | None = None, **documentation: Any
) -> type[APIView]:
    """A subclass of ``view`` documented by ``extend_schema`` on drf-spectacular's
    AutoSchema, whatever the host's DEFAULT_SCHEMA_CLASS; its operation named
    ``operation_id`` if given (extend_schema takes that name on methods only);
    ``methods``: the documentation of each method, where they differ."""
    schema_class: type[AutoSchema] = AutoSchema
    if operation_id is not None:
        schema_class = type("NamedOperationSchema", (AutoSchema,), {"get_operation_id": lambda self: operation_id})
    subclass = type(view.__name__, (view,), {"schema": schema_class(), "__module__": view.__module__})
    for name, each in (methods or {}).items():  # each within its method only
        subclass = extend_schema(methods=[name.upper()], **each)(subclass)
    return extend_schema(**documentation)(subclass) if documentation else subclass


DOCUMENT_ETAG = OpenApiParameter(
    "ETag",
    {"type": "string", "pattern": f'^"({VERSION_NUMBER})"$'},
    OpenApiParameter.HEADER,
    response=[200],
    description='"<version>": send it back as If-Match to change only this version.',
)
REVISION_PAGE = inline_serializer(
    "RevisionPage",
    {"results": views.RevisionSerializer(many=True), "next": serializers.URLField(allow_null=True)},
)
REVISION_WITH_CONTENT = inline_serializer(
    "RevisionWithContent",
    {
        **views.RevisionSerializer().get_fields(),
        "content": serializers.CharField(),
        "text": serializers.CharField(required=False, help_text="For an append: its text."),
    },
)
EVENT_STREAM_RESPONSES = {
    (200, "text/event-stream"): OpenApiResponse(
        {"type": "string"}, description="The thread's events (document, artifact, drafts, review, proposals) as SSE."
    ),
    **read_failures(),
}
REVISION_LIMIT = OpenApiParameter(
    "limit",
    {"type": "integer", "minimum": 1, "maximum": views.MAX_REVISIONS_PER_PAGE},
    description="At most this many, 1 to 1,000 (default 100).",
)

# What the documentation of a person's writes shares with the others'.
SHARED_PARAMETERS = {
    "thread_id": THREAD_ID,
    "version": OpenApiParameter("version", VERSION, OpenApiParameter.PATH),
    "If-Match": IF_MATCH,
    "Idempotency-Key": IDEMPOTENCY_KEY,
    "ETag": DOCUMENT_ETAG,
}

# How each view of views.py is documented.
DOCUMENTATION: list[tuple[type[APIView], dict[str, Any]]] = [
    (
        views.ToolListView,
        {
            "summary": "The tools, with the JSON Schema of their arguments",
            "parameters": [TOOL_LIST_FORMAT],
            "responses": read_responses(OpenApiResponse(TOOL_LIST, description="One item per tool.")),
        },
    ),
    (
        views.ToolCallView,
        {
            "parameters": [THREAD_ID, IF_MATCH, IDEMPOTENCY_KEY, drafts_documentation.DRAFT_ID],
            "request": {"application/json": {"type": "object"}},
            "responses": tool_call_responses(),
        },
    ),
    (
        views.DocumentView,
        {
            "methods": {
                "get": {
                    "parameters": [THREAD_ID, DOCUMENT_ETAG],
                    "responses": read_responses(DOCUMENT),
                },
                "put": people_documentation.edit(SHARED_PARAMETERS, DOCUMENT),
                "patch": review_documentation.review_mode(SHARED_PARAMETERS, DOCUMENT),
            }
        },
    ),
    (
        views.RevisionListView,
        {
            "operation_id": "threads_revisions_list",
            "parameters": [
                THREAD_ID,
                OpenApiParameter("after", VERSION, description="Revisions after this version (default 0)."),
                REVISION_LIMIT,
            ],
            "responses": read_responses(REVISION_PAGE),
        },
    ),
    (
        views.RevisionDetailView,
        {
            "operation_id": "threads_revision_retrieve",
            "parameters": [THREAD_ID, OpenApiParameter("version", VERSION, OpenApiParameter.PATH)],
            "responses": read_responses(REVISION_WITH_CONTENT),
        },
    ),
    (
        views.RevisionRestoreView,
        {"operation_id": "threads_revision_restore", **people_documentation.restore(SHARED_PARAMETERS, DOCUMENT)},
    ),
    (views.DraftView, drafts_documentation.draft(SHARED_PARAMETERS)),
    *review_documentation.views(SHARED_PARAMETERS, read_responses),
    (
        views.EventStreamView,
        {
            "parameters": [THREAD_ID, OpenApiParameter("Last-Event-ID", str, OpenApiParameter.HEADER)],
            "responses": EVENT_STREAM_RESPONSES,
        },
    ),
]
# Each documented view of views.py, as the schema generator is given it in its place.
DOCUMENTED_VIEWS = {view: documented(view, **documentation) for view, documentation in DOCUMENTATION}


class DocumentedViews(OpenApiViewExtension):
    """Gives drf-spectacular's generator each view of the app documented (DOCUMENTED_VIEWS)."""

    target_class = views.WorkspaceView
    match_subclasses = True

    def view_replacement(self) -> type[APIView]:
        return DOCUMENTED_VIEWS.get(self.target, self.target)


class AppEndpoints(EndpointEnumerator):
    """Every DRF view of the urlconf, the app's included: they leave themselves
    out of other generators (``schema = None``), not out of this one."""

    def should_include_endpoint(self, path: str, callback: Callable[..., Any]) -> bool:
        return is_api_view(callback)


MCP_PATH = {
    "post": {
        "operationId": "threads_mcp",
        "summary": "The thread as an MCP server (streamable HTTP, JSON-RPC)",
        "description": "The Model Context Protocol's streamable HTTP transport: the thread's tools and its "
        "document as the resource workspace://threads/{thread_id}/document. Authenticated like the API "
        "(Authorization: Bearer <token> or Token <token>), under the same access policy.",
        "parameters": [{"name": "thread_id", "in": "path", "required": True, "schema": THREAD_ID.type}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": {"type": "object"}}}},
        "responses": {
            "200": {
                "description": "The JSON-RPC answer, as JSON or as Server-Sent Events.",
                "content": {"application/json": {"schema": {"type": "object"}}, "text/event-stream": {}},
            },
            "202": {"description": "A notification or a response, accepted."},
            "400": {"description": "A bad thread id or JSON-RPC message."},
            "401": {"description": "No valid credentials."},
            "403": {"description": "The access policy refuses this thread."},
            "404": {"description": "An unknown MCP session."},
        },
        "security": [{"tokenAuth": []}],
    }
}


def with_a_path_per_tool(schema: dict) -> dict:
    """Replace ``.../tools/{name}/`` by one path per registered tool, with its arguments' schema."""
    paths = schema["paths"]
    generic = next(path for path in paths if path.endswith("/tools/{name}/"))
    template = paths.pop(generic)
    for name, tool in registered_tools().items():
        operation = copy.deepcopy(template["post"])
        operation["operationId"] = f"call_{name}"
        operation["summary"] = tool.spec.description
        operation["parameters"] = [p for p in operation.get("parameters", []) if p["name"] != "name"]
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": copy.deepcopy(tool.spec.parameters_schema)}},
        }
        paths[generic.replace("{name}", name)] = {"post": operation}
    return schema


class WorkspaceSchemaGenerator(SchemaGenerator):
    """The app's endpoints, each tool call a path of its own, the MCP path,
    and the servers and info of the app's API."""

    endpoint_inspector_cls = AppEndpoints

    def get_schema(self, request: HttpRequest | None = None, public: bool = False) -> dict:
        schema = with_a_path_per_tool(super().get_schema(request=request, public=public))
        schema["paths"]["/threads/{thread_id}/mcp/"] = MCP_PATH  # served outside DRF (workspace.mcp)
        for path, method in review_documentation.BODIES_REQUIRED:  # schemas, not serializers: required said here
            schema["paths"][path][method]["requestBody"]["required"] = True
        if request is not None:  # served under whatever prefix the host chose
            prefix = request.path.removesuffix("schema/").rstrip("/")
            schema["servers"] = [{"url": prefix or "/"}]
        schema["info"] = {
            "title": "Workspace",
            "version": "1",
            "description": "A shared working document per conversation thread, written by agents through tools.",
        }
        return schema


class WorkspaceSchemaView(AppOwnDefaults, FailuresAsEnvelope, SpectacularAPIView):
    """``GET schema/``: the app's endpoints only, under whatever prefix the host chose, as JSON.
    For authenticated users only, as every endpoint of the app (it lists the
    tools, as ``tools/`` does), whatever the host's SPECTACULAR_SETTINGS say.
    ``urlconf``: the app's urls module, given by its route."""

    renderer_classes = [OpenApiJsonRenderer, OpenApiJsonRenderer2]  # Accept: application/vnd.oai.openapi+json or JSON
    authentication_classes = api_settings.DEFAULT_AUTHENTICATION_CLASSES
    permission_classes = [permissions.IsAuthenticated]
    generator_class = WorkspaceSchemaGenerator
    serve_public = True  # every endpoint, whatever the host's SERVE_PUBLIC (its views check their own access)


class WorkspaceDocsView(AppOwnDefaults, SpectacularRedocView):
    """``GET docs/``: the schema rendered by Redoc, served from the app's static files
    (no CDN), under a Content-Security-Policy that lets it load nothing from elsewhere."""

    url_name = "workspace:schema"
    authentication_classes = api_settings.DEFAULT_AUTHENTICATION_CLASSES
    permission_classes = [permissions.IsAuthenticated]
    title = "Workspace API"
    template_name = "workspace/api_docs.html"  # the library's page, Redoc from the sidecar's static files

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Response:
        response = super().get(request, *args, **kwargs)
        response["Content-Security-Policy"] = content_security.API_DOCS
        return response


# The two pages' views as this module named them before their routes made them.
MOVED = {"schema_view": WorkspaceSchemaView, "docs_view": WorkspaceDocsView}


def __getattr__(name: str) -> Callable[..., Any]:
    if name not in MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    message = f"{__name__}.{name} is deprecated: route {MOVED[name].__name__}.as_view() (see workspace.urls)"
    warnings.warn(message, DeprecationWarning, stacklevel=2)
    initkwargs = {"urlconf": "workspace.urls"} if name == "schema_view" else {}
    return MOVED[name].as_view(**initkwargs)
