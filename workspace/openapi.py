"""The OpenAPI 3 schema of the app's endpoints (drf-spectacular), and a page that renders it.

Each tool call is its own path, whose request body is the JSON Schema the
tool's signature gives (the one that validates it), so that clients and
fuzzers see exactly what each tool takes.

The endpoints' documentation lives here, not on the views, and is attached
to them when this module is first imported: by the two pages' routes, or
by any schema generator (``views.DocumentedWhenLookedAt``). A process that
only serves the API never loads drf-spectacular (5 MB).
"""

import copy

from django.templatetags.static import static
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiJsonRenderer2
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView
from rest_framework import permissions, serializers
from rest_framework.response import Response
from rest_framework.settings import api_settings

from . import views
from .tools.envelope import FAILURE_SCHEMA, SUCCESS_SCHEMA
from .tools.exports import FORMATS
from .tools.registry import registered_tools
from .validation import THREAD_ID_PATTERN


def _fields(**properties) -> dict:
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
    {"type": "string", "pattern": f"^{views.IF_MATCH_PATTERN}$", "maxLength": views.MAX_IF_MATCH_CHARS},
    OpenApiParameter.HEADER,
    description='"<version>": applied only if the document is at that version ("0": has none); '
    '"<version>", "<version>": at one of them; *: if the document exists. A weak tag (W/"<version>") never matches.',
)
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "pattern": "^[ -~]{1,255}$"},
    OpenApiParameter.HEADER,
    description="1 to 255 printable ASCII characters: a retry with the same key is applied at most once.",
)
VERSION = {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}

TOOL_CALL_FAILURES = {
    400: "The input is at fault: bad thread id, arguments, body, If-Match or Idempotency-Key.",
    401: "No valid credentials.",
    403: "The access policy refuses this thread.",
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
    return {status: OpenApiResponse(FAILURE_SCHEMA, description=text) for status, text in READ_FAILURES.items()}


def read_responses(ok) -> dict:
    return {200: ok, **read_failures()}


def tool_call_responses() -> dict:
    return {
        200: OpenApiResponse(SUCCESS_SCHEMA, description="The envelope of a call that succeeded."),
        **{status: OpenApiResponse(FAILURE_SCHEMA, description=text) for status, text in TOOL_CALL_FAILURES.items()},
    }


def _document(view: type, method: str, **kwargs) -> None:
    """``extend_schema`` on drf-spectacular's AutoSchema, whatever the host's DEFAULT_SCHEMA_CLASS."""
    function = getattr(view, method)
    function.schema = AutoSchema
    extend_schema(**kwargs)(function)


views.WorkspaceView.schema = AutoSchema()  # in place of views.DocumentedWhenLookedAt
_document(
    views.ToolListView,
    "get",
    summary="The tools, with the JSON Schema of their arguments",
    parameters=[TOOL_LIST_FORMAT],
    responses=read_responses(OpenApiResponse(TOOL_LIST, description="One item per tool.")),
)
_document(
    views.ToolCallView,
    "post",
    parameters=[THREAD_ID, IF_MATCH, IDEMPOTENCY_KEY],
    request={"application/json": {"type": "object"}},
    responses=tool_call_responses(),
)
_document(
    views.DocumentView,
    "get",
    parameters=[
        THREAD_ID,
        OpenApiParameter(
            "ETag",
            {"type": "string", "pattern": '^"[0-9]{1,18}"$'},
            OpenApiParameter.HEADER,
            response=[200],
            description='"<version>": send it back as If-Match to change only this version.',
        ),
    ],
    responses=read_responses(views.DocumentView.OutputSerializer),
)
_document(
    views.RevisionListView,
    "get",
    operation_id="threads_revisions_list",
    parameters=[
        THREAD_ID,
        OpenApiParameter("after", VERSION, description="Revisions after this version (default 0)."),
        OpenApiParameter(
            "limit",
            {"type": "integer", "minimum": 1, "maximum": views.MAX_REVISIONS_PER_PAGE},
            description="At most this many, 1 to 1,000 (default 100).",
        ),
    ],
    responses=read_responses(
        inline_serializer(
            "RevisionPage",
            {"results": views.RevisionSerializer(many=True), "next": serializers.URLField(allow_null=True)},
        )
    ),
)
_document(
    views.RevisionDetailView,
    "get",
    operation_id="threads_revision_retrieve",
    parameters=[THREAD_ID, OpenApiParameter("version", VERSION, OpenApiParameter.PATH)],
    responses=read_responses(
        inline_serializer(
            "RevisionWithContent",
            {
                **views.RevisionSerializer().get_fields(),
                "content": serializers.CharField(),
                "text": serializers.CharField(required=False, help_text="For an append: its text."),
            },
        )
    ),
)
_document(
    views.EventStreamView,
    "get",
    parameters=[THREAD_ID, OpenApiParameter("Last-Event-ID", str, OpenApiParameter.HEADER)],
    responses={
        (200, "text/event-stream"): OpenApiResponse(
            {"type": "string"}, description="The thread's `document` and `artifact` events, as Server-Sent Events."
        ),
        **read_failures(),
    },
)

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


class WorkspaceSchemaView(views.AppOwnDefaults, views.FailuresAsEnvelope, SpectacularAPIView):
    """``GET schema/``: the app's endpoints only, under whatever prefix the host chose, as JSON.
    For authenticated users only, as every endpoint of the app (it lists the
    tools, as ``tools/`` does), whatever the host's SPECTACULAR_SETTINGS say."""

    renderer_classes = [OpenApiJsonRenderer, OpenApiJsonRenderer2]  # Accept: application/vnd.oai.openapi+json or JSON
    authentication_classes = api_settings.DEFAULT_AUTHENTICATION_CLASSES
    permission_classes = [permissions.IsAuthenticated]

    def _get_schema_response(self, request):
        from . import urls

        # The documented routes (the ones with names), without these two pages.
        named = [
            pattern for pattern in urls.urlpatterns if getattr(pattern, "name", None) not in (None, "schema", "docs")
        ]
        generator = SchemaGenerator(patterns=named, api_version=self.api_version)
        schema = with_a_path_per_tool(generator.get_schema(request=request, public=True))
        schema["paths"]["/threads/{thread_id}/mcp/"] = MCP_PATH  # served outside DRF (workspace.mcp)
        prefix = request.path.removesuffix("schema/").rstrip("/")
        schema["servers"] = [{"url": prefix or "/"}]
        schema["info"] = {
            "title": "Workspace",
            "version": "1",
            "description": "A shared working document per conversation thread, written by agents through tools.",
        }
        return Response(schema)


class WorkspaceDocsView(views.AppOwnDefaults, SpectacularRedocView):
    """``GET docs/``: the schema rendered by Redoc, served from the app's static files (no CDN)."""

    url_name = "workspace:schema"
    authentication_classes = api_settings.DEFAULT_AUTHENTICATION_CLASSES
    permission_classes = [permissions.IsAuthenticated]
    title = "Workspace API"
    template_name = "workspace/api_docs.html"  # the library's page, without its web fonts

    @staticmethod
    def _redoc_standalone():
        return static("drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js")


schema_view = WorkspaceSchemaView.as_view()
docs_view = WorkspaceDocsView.as_view()
