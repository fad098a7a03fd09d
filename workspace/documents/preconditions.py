"""The rules of a call's conditions, as data: which versions ``If-Match`` may
name and how it is read, and what an ``Idempotency-Key`` may be.

The one home of these rules: the HTTP views read the headers with
``parse_if_match`` and ``parse_idempotency_key``, the OpenAPI document shows
the same patterns and limits, and ``calls.CallOptions`` checks its keywords
against them.
"""

import re
from dataclasses import dataclass

from ..exceptions import InvalidArguments

# What an Idempotency-Key may be: 1 to 255 printable ASCII characters.
IDEMPOTENCY_KEY_PATTERN = re.compile(r"[\x20-\x7e]{1,255}")
# The same, as the OpenAPI schema shows it (ECMA-262 syntax).
IDEMPOTENCY_KEY_SCHEMA_PATTERN = "^[ -~]{1,255}$"
# A live draft's call id, in Draft-Id and in the drafts' paths.
DRAFT_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
DRAFT_ID_SCHEMA_PATTERN = "^[A-Za-z0-9_-]{1,64}$"

# An entity tag of this app is a version in quotes, written as the ETag
# header writes it: strong ("7") or weak (W/"7"). A tag this app never hands
# out ("07", a bare 7) is refused, not read as a version: strong comparison
# is character by character (RFC 9110), so it could never match.
VERSION_NUMBER = r"0|[1-9][0-9]{0,17}"
ENTITY_TAG = rf'(W/)?"({VERSION_NUMBER})"'
MAX_IF_MATCH_TAGS = 100
MAX_IF_MATCH_CHARS = 4096
# RFC 9110's If-Match: "*", or a comma-separated list of entity tags, whose empty elements are ignored.
IF_MATCH_PATTERN = (
    rf"[ \t]*(\*|(,[ \t]*)*({ENTITY_TAG})([ \t]*,([ \t]*,)*[ \t]*({ENTITY_TAG})){{0,{MAX_IF_MATCH_TAGS - 1}}}"
    r"([ \t]*,)*)[ \t]*"
)
IF_MATCH = re.compile(IF_MATCH_PATTERN)


@dataclass(frozen=True)
class ExpectedVersions:
    """The versions a call may be applied at, as ``If-Match`` gives them
    (RFC 9110): one (``"3"``; ``"0"``: the thread has no document), any of a
    list (``"3", "4"``), any existing document (``*``), or none at all (only
    weak tags, ``W/"3"``, which never match)."""

    versions: frozenset[int] = frozenset()
    any_existing: bool = False

    @classmethod
    def exactly(cls, version: int) -> "ExpectedVersions":
        return cls(versions=frozenset([version]))

    @property
    def only(self) -> int | None:
        """The version, when exactly one is expected."""
        return next(iter(self.versions)) if len(self.versions) == 1 and not self.any_existing else None

    def match(self, current: int) -> bool:
        """Whether the document, at version ``current`` (0: none), meets the condition."""
        return current > 0 if self.any_existing else current in self.versions

    def __str__(self) -> str:
        if self.any_existing:
            return "any existing version (If-Match: *)"
        if not self.versions:
            return "no version (a weak entity tag, W/, never matches)"
        if self.only is not None:
            return f"the expected version {self.only}"
        return f"one of the expected versions {', '.join(map(str, sorted(self.versions)))}"


def parse_if_match(value: str | None) -> ExpectedVersions | None:
    """``If-Match`` as RFC 9110 reads it: ``*`` (any existing document), or a
    list of entity tags of which one must be the document's (``"3", "4"``;
    ``"0"``: the thread has none). A weak tag (``W/"3"``) never matches.
    None without the header; ``InvalidArguments`` (400) when malformed."""
    if value is None:
        return None
    if len(value) > MAX_IF_MATCH_CHARS or not IF_MATCH.fullmatch(value):
        raise InvalidArguments(
            f"If-Match must be *, or at most {MAX_IF_MATCH_TAGS} versions in quotes as the ETag header gives them, "
            f'such as If-Match: "7" or If-Match: "7", "8" (at most {MAX_IF_MATCH_CHARS} characters); got {value[:40]!r}'
        )
    if value.strip(" \t") == "*":
        return ExpectedVersions(any_existing=True)
    tags = re.finditer(ENTITY_TAG, value)
    return ExpectedVersions(versions=frozenset(int(tag[2]) for tag in tags if not tag[1]))


def parse_idempotency_key(value: str | None) -> str | None:
    """The ``Idempotency-Key`` header as given (None without it); ``InvalidArguments`` (400) when malformed."""
    if value is not None and not IDEMPOTENCY_KEY_PATTERN.fullmatch(value):
        raise InvalidArguments("Idempotency-Key must be 1 to 255 printable ASCII characters")
    return value


def is_draft_id(value: object) -> bool:
    """Whether ``value`` may name a live draft: 1 to 64 characters of ``A-Z a-z 0-9 _ -``."""
    return isinstance(value, str) and DRAFT_ID_PATTERN.fullmatch(value) is not None


def check_draft_id(value: object, name: str) -> str:
    """``value`` if it may name a live draft (``is_draft_id``); InvalidArguments
    (400) naming ``name`` (``"Draft-Id"``) otherwise. Every way a draft is named
    (the header, a call's options, the drafts' paths, a ``DraftWriter``) asks this."""
    if not is_draft_id(value):
        raise InvalidArguments(f"{name} must be 1 to 64 characters of A-Z a-z 0-9 _ -, got {str(value)[:65]!r}")
    assert isinstance(value, str)
    return value


def parse_draft_id(value: str | None) -> str | None:
    """A ``Draft-Id`` header: the call id of the live draft the call ends; InvalidArguments when malformed."""
    return None if value is None else check_draft_id(value, "Draft-Id")
