"""The answer of every tool call, over every transport:
``{"success": true, "summary": ..., "artifact": ...}`` or
``{"success": false, "error": ...}`` (plus what the error adds, such as
``current_version``)."""

from dataclasses import dataclass
from typing import Any

from ..exceptions import WorkspaceError


@dataclass(frozen=True)
class ToolResult:
    envelope: dict
    status_code: int
    replayed: bool = False  # answered from an earlier call with the same Idempotency-Key
    retry_after: int | None = None  # seconds, for a Retry-After header: the error's

    @property
    def succeeded(self) -> bool:
        return self.envelope["success"]

    @classmethod
    def success(cls, summary: str, artifact: Any) -> "ToolResult":
        return cls({"success": True, "summary": summary, "artifact": artifact}, 200)

    @classmethod
    def failure(cls, error: WorkspaceError) -> "ToolResult":
        envelope = {**failure_envelope(str(error)), **error.envelope_extras()}
        return cls(envelope, error.status_code, retry_after=error.retry_after)


def failure_envelope(error: str) -> dict:
    return {"success": False, "error": error}


# The envelope as JSON Schema: shown in the OpenAPI document and as the
# output schema of every MCP tool.
SUCCESS_SCHEMA = {
    "type": "object",
    "properties": {
        "success": {"type": "boolean", "enum": [True]},
        "summary": {"type": "string"},
        "artifact": {"description": "What the tool returned besides the summary, or null."},
    },
    "required": ["success", "summary", "artifact"],
}
FAILURE_SCHEMA = {
    "type": "object",
    "properties": {
        "success": {"type": "boolean", "enum": [False]},
        "error": {"type": "string"},
        "current_version": {"type": "integer", "description": "With 412: the document's version now."},
    },
    "required": ["success", "error"],
}
ENVELOPE_SCHEMA = {"type": "object", "oneOf": [SUCCESS_SCHEMA, FAILURE_SCHEMA]}
