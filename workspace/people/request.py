"""What a person's edit (``PUT threads/<id>/document/``) asks, read from the
request: the version it started from (``If-Match``, required) and its body;
and the reason a person's restore may give.
Every rule that fails answers 400 (428 without ``If-Match``), and nothing is written."""

from typing import Any

from ..documents.preconditions import parse_if_match
from ..exceptions import InvalidArguments, PreconditionRequired
from ..validation import check_storable, refuse_unknown_fields

FIELDS = ("content", "title", "action_and_reasoning")
MAX_REASON_CHARS = 1000


def based_on(if_match: str | None) -> int:
    """The one version ``If-Match`` names (``"0"``: the thread had no document)."""
    if if_match is None:
        raise PreconditionRequired(
            'If-Match is required: the version your edit started from, such as If-Match: "7" '
            '(the ETag of GET document/; "0" when the thread has no document yet); nothing was changed'
        )
    expected = parse_if_match(if_match)
    if expected is None or expected.only is None:
        raise InvalidArguments(
            f'If-Match must name the one version your edit started from, such as If-Match: "7"; got {if_match[:40]!r}'
        )
    return expected.only


def body(data: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """``content`` (required), ``title`` and ``action_and_reasoning`` (None when absent or null)."""
    refuse_unknown_fields(data, FIELDS)
    if "content" not in data:
        raise InvalidArguments("content is required: the whole text of the document as you edited it")
    for name in FIELDS:
        if data.get(name) is not None and not isinstance(data[name], str):
            raise InvalidArguments(f"{name} must be a string, got {type(data[name]).__name__}")
    if not isinstance(data["content"], str):
        raise InvalidArguments("content must be a string, got null")
    return data["content"], data.get("title"), _reason(data)


def restore_reason(data: dict[str, Any]) -> str | None:
    """The optional ``action_and_reasoning`` of a restore's body (None when absent or null)."""
    refuse_unknown_fields(data, ("action_and_reasoning",))
    return _reason(data)


def _reason(data: dict[str, Any]) -> str | None:
    reason = data.get("action_and_reasoning")
    if reason is None:
        return None
    if not isinstance(reason, str):
        raise InvalidArguments(f"action_and_reasoning must be a string, got {type(reason).__name__}")
    check_storable("action_and_reasoning", reason)
    if len(reason) > MAX_REASON_CHARS:
        raise InvalidArguments(f"action_and_reasoning has {len(reason)} characters; at most {MAX_REASON_CHARS}")
    return reason
