"""The request headers of a tool call, ``If-Match`` and ``Idempotency-Key``:
their rules, read here for the views and shown from here by the OpenAPI schema."""

import re

from django.http import HttpRequest
from rest_framework.request import Request

from .calls import IDEMPOTENCY_KEY_PATTERN, ExpectedVersions
from .exceptions import InvalidArguments

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

# IDEMPOTENCY_KEY_PATTERN as the schema shows it: the same characters (\x20-\x7e), the same lengths.
IDEMPOTENCY_KEY_SCHEMA_PATTERN = "^[ -~]{1,255}$"


def expected_versions_from(request: Request | HttpRequest) -> ExpectedVersions | None:
    """``If-Match`` as RFC 9110 reads it: ``*`` (any existing document), or a
    list of entity tags of which one must be the document's (``"3", "4"``;
    ``"0"``: the thread has none). A weak tag (``W/"3"``) never matches.
    None without the header; InvalidArguments (400) if it is malformed."""
    value = request.headers.get("If-Match")
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


def idempotency_key_from(request: Request | HttpRequest) -> str | None:
    """``Idempotency-Key``: None without the header; InvalidArguments (400) if it is malformed."""
    value = request.headers.get("Idempotency-Key")
    if value is not None and not IDEMPOTENCY_KEY_PATTERN.fullmatch(value):
        raise InvalidArguments("Idempotency-Key must be 1 to 255 printable ASCII characters")
    return value
