"""What a person's edit (``PUT threads/<id>/document/``) asks, read from the
request: the version it started from (``If-Match``, required) and its body.
Every rule that fails answers 400 (428 without ``If-Match``), and nothing is written."""

from typing import Any

from .exceptions import InvalidArguments, PreconditionRequired
from .preconditions import parse_if_match
from .validation import check_storable

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
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise InvalidArguments(
            f"unknown fields: {', '.join(name[:40] for name in unknown[:5])}; the fields are {', '.join(FIELDS)}"
        )
    if "content" not in data:
        raise InvalidArguments("content is required: the whole text of the document as you edited it")
    for name in FIELDS:
        if data.get(name) is not None and not isinstance(data[name], str):
            raise InvalidArguments(f"{name} must be a string, got {type(data[name]).__name__}")
    if not isinstance(data["content"], str):
        raise InvalidArguments("content must be a string, got null")
    reason = data.get("action_and_reasoning")
    if reason is not None:
        check_storable("action_and_reasoning", reason)
    if reason is not None and len(reason) > MAX_REASON_CHARS:
        raise InvalidArguments(f"action_and_reasoning has {len(reason)} characters; at most {MAX_REASON_CHARS}")
    return data["content"], data.get("title"), reason
