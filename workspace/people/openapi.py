"""The OpenAPI description of a person's writes: the edit,
``PUT threads/<id>/document/``, and the restore, ``POST
threads/<id>/revisions/<version>/restore/``. Loaded by ``workspace.http.openapi``
only, which gives it the parameters every endpoint shares."""

from typing import Any, cast

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers

from ..documents.preconditions import VERSION_NUMBER
from ..exceptions import MAX_CONFLICT_CHARS
from ..tools.envelope import FAILURE_SCHEMA
from ..validation import TITLE_MAX_LENGTH
from .request import MAX_REASON_CHARS

STRING = {"type": "string"}


def _fields(**properties: Any) -> dict:
    """An object with these properties, all required."""
    return {"type": "object", "properties": properties, "required": list(properties)}


PERSON_WRITE_FAILURES = {
    400: "The input is at fault: bad thread id, version, body, If-Match or Idempotency-Key.",
    401: "No valid credentials.",
    403: "The access policy does not let this user write the thread; or a session without its CSRF token.",
    404: "No document, or no kept revision of that version.",
    409: "A request with this Idempotency-Key still runs; or the document was deleted while this one wrote it.",
    412: "The document is not at the version If-Match names, or that version is not kept (see current_version).",
    422: "This Idempotency-Key was used for another request.",
    429: "Over the rate of writes; see Retry-After.",
    500: "The server is at fault.",
    503: "The database is unavailable or busy; retry after Retry-After.",
}
EDIT_FAILURES = {
    **PERSON_WRITE_FAILURES,
    404: "Not found.",
    409: PERSON_WRITE_FAILURES[409] + " Or your edit and the changes since it started changed the same lines "
    "differently (see current_version and conflicts); nothing was changed.",
    428: "If-Match is missing: the version the edit started from is required.",
}
_FAILURE_PROPERTIES = cast(dict[str, Any], FAILURE_SCHEMA["properties"])
CONFLICT_FAILURE = {
    **FAILURE_SCHEMA,
    "properties": {
        **_FAILURE_PROPERTIES,
        "current_version": {"type": "integer"},
        "conflicts": {
            "type": "array",
            "maxItems": 20,
            "items": {
                **_fields(base=STRING, current=STRING, yours=STRING),
                "properties": {
                    "base": STRING,
                    "current": STRING,
                    "yours": STRING,
                    "truncated": {"type": "boolean", "description": "The sides were cut to fit the answer."},
                },
            },
            "description": "Each region both sides changed: its text at the version the edit started from, "
            f"now, and in the edit; {MAX_CONFLICT_CHARS} characters in all at most, each side cut to an equal "
            "share past it.",
        },
    },
}
EDIT_BODY = {
    "type": "object",
    "additionalProperties": False,
    "required": ["content"],
    "properties": {
        "content": {"type": "string", "description": "The whole text of the document as the person edited it."},
        "title": {
            "type": "string",
            "nullable": True,
            "maxLength": TITLE_MAX_LENGTH,
            "description": "The title as edited; kept when absent or null.",
        },
        "action_and_reasoning": {
            "type": "string",
            "nullable": True,
            "maxLength": MAX_REASON_CHARS,
            "description": 'Why; default "Edited by <username>."',
        },
    },
}
RESTORE_BODY = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "action_and_reasoning": {
            "type": "string",
            "nullable": True,
            "maxLength": MAX_REASON_CHARS,
            "description": 'Why; default "Restored version <version> by <username>."',
        },
    },
}
EDIT_IF_MATCH = OpenApiParameter(
    "If-Match",
    {"type": "string", "pattern": rf'^[ \t]*"({VERSION_NUMBER})"[ \t]*$'},
    OpenApiParameter.HEADER,
    required=True,
    description='"<version>": the version the edit started from ("0": the thread had no document). Missing: 428.',
)


def person_write_responses(ok: Any, failures: dict[int, str]) -> dict:
    """``ok`` for 200, and each failure of a person's write, with the failure envelope (409: with conflicts)."""
    return {
        200: ok,
        **{
            status: OpenApiResponse(CONFLICT_FAILURE if status == 409 else FAILURE_SCHEMA, description=text)
            for status, text in failures.items()
        },
    }


def edit(shared: dict[str, OpenApiParameter], document: type[serializers.Serializer]) -> dict[str, Any]:
    """The documentation of ``PUT document/``, which answers the ``document`` with whether it was merged."""
    edited_document = inline_serializer(
        "EditedDocument",
        {
            **document().get_fields(),
            "merged": serializers.BooleanField(
                help_text="Whether the edit was merged with changes made since it started."
            ),
        },
    )
    return {
        "summary": "A person's edit, merged with the changes made since it started",
        "parameters": [shared["thread_id"], EDIT_IF_MATCH, shared["Idempotency-Key"], shared["ETag"]],
        "request": {"application/json": EDIT_BODY},
        "responses": person_write_responses(edited_document, EDIT_FAILURES),
    }


def restore(shared: dict[str, OpenApiParameter], document: type[serializers.Serializer]) -> dict[str, Any]:
    """The documentation of ``POST revisions/<version>/restore/``, which answers the ``document``."""
    if_match = OpenApiParameter(
        "If-Match",
        shared["If-Match"].type,
        OpenApiParameter.HEADER,
        description='"<version>": restore only if the document is still at that version (else 412).',
    )
    return {
        "summary": "A person's restore of a kept version, as a new revision",
        "parameters": [
            shared["thread_id"],
            shared["version"],
            if_match,
            shared["Idempotency-Key"],
            shared["ETag"],
        ],
        "request": {"application/json": RESTORE_BODY},
        "responses": person_write_responses(document, PERSON_WRITE_FAILURES),
    }
