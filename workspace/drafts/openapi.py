"""The OpenAPI description of live drafts: ``POST`` and
``DELETE threads/<id>/drafts/<call_id>/``, and the ``Draft-Id`` header of a
tool call. Loaded by ``workspace.http.openapi`` only, which gives it the
parameters every endpoint shares."""

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from ..documents.preconditions import DRAFT_ID_SCHEMA_PATTERN
from ..tools.envelope import FAILURE_SCHEMA
from .store import TEXT_FIELDS

CALL_ID = {"type": "string", "pattern": DRAFT_ID_SCHEMA_PATTERN}
DRAFT_ID = OpenApiParameter(
    "Draft-Id",
    CALL_ID,
    OpenApiParameter.HEADER,
    description="The call id of the live draft of this call: it ends as committed with the call's change, "
    "or failed if the call fails. Only for a call of the draft's own tool by the draft's own user.",
)
PIECE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["tool", "delta"],
    "properties": {
        "tool": {"type": "string", "enum": list(TEXT_FIELDS), "description": "The tool being called."},
        "delta": {
            "type": "string",
            "description": "The next piece of the call's JSON arguments, as the model made it.",
        },
    },
}
RECEIVED = {
    "type": "object",
    "required": ["call_id", "received"],
    "properties": {
        "call_id": {"type": "string"},
        "received": {"type": "integer", "description": "Characters of the call's arguments received so far."},
    },
}
DRAFT_FAILURES = {
    400: "The input is at fault: bad thread or call id, body, another tool than the draft's; or its arguments "
    "stopped being JSON or passed DATA_UPLOAD_MAX_MEMORY_SIZE characters (the draft has then ended as failed).",
    401: "No valid credentials.",
    403: "The access policy does not let this user write the thread; or the draft is another user's.",
    404: "No open draft of that call id (DELETE).",
    409: "The draft has ended: a new call needs a new call id.",
    429: "Over the rate of drafts' pieces, or the thread has WORKSPACE_MAX_DRAFTS_PER_THREAD open drafts, "
    "or the user WORKSPACE_MAX_DRAFTS_PER_USER; see Retry-After.",
    500: "The server is at fault.",
    503: "The database is unavailable or busy; retry after Retry-After.",
}


def _failures(*statuses: int) -> dict:
    return {status: OpenApiResponse(FAILURE_SCHEMA, description=DRAFT_FAILURES[status]) for status in statuses}


def draft(shared: dict[str, OpenApiParameter]) -> dict[str, Any]:
    """The documentation of ``POST`` and ``DELETE drafts/<call_id>/``."""
    call_id = OpenApiParameter("call_id", CALL_ID, OpenApiParameter.PATH, description="The tool call's id.")
    return {
        "methods": {
            "post": {
                "summary": "A piece of a tool call still being generated, shown live to the thread's viewers",
                "parameters": [shared["thread_id"], call_id],
                "request": {"application/json": PIECE},
                "responses": {
                    202: OpenApiResponse(RECEIVED, description="Taken; the first piece opens the draft."),
                    **_failures(400, 401, 403, 409, 429, 500, 503),
                },
            },
            "delete": {
                "summary": "Cancel a live draft",
                "parameters": [shared["thread_id"], call_id],
                "responses": {
                    204: OpenApiResponse(description="Ended as cancelled."),
                    **_failures(400, 401, 403, 404, 429, 500, 503),
                },
            },
        }
    }
