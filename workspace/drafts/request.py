"""What a piece of a live draft (``POST threads/<id>/drafts/<call_id>/``) sends:
``{"tool": ..., "delta": ...}``, read from the request; 400 saying what is wrong."""

from typing import Any

from ..exceptions import InvalidArguments
from ..validation import refuse_unknown_fields

FIELDS = ("tool", "delta")


def draft_piece(data: dict[str, Any]) -> tuple[str, str]:
    """The tool the draft is of, and the next piece of the call's JSON arguments."""
    refuse_unknown_fields(data, FIELDS)
    for name in FIELDS:
        if name not in data:
            raise InvalidArguments(f'{name} is required: the body is {{"tool": <a tool that writes>, "delta": <text>}}')
        if not isinstance(data[name], str):
            raise InvalidArguments(f"{name} must be a string, got {type(data[name]).__name__}")
    return data["tool"], data["delta"]
