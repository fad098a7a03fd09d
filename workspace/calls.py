"""What a tool call carries besides its arguments: who makes it, why, and on what condition.

``@workspace_tool`` makes the call current around the tool's body; the
repository reads it, so that every change it records names its reason, actor
and tool, and so that the caller's expected version is checked under the
same row lock as the change.
"""

import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from .exceptions import InvalidArguments

IDEMPOTENCY_KEY_PATTERN = re.compile(r"[\x20-\x7e]{1,255}")


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


@dataclass(frozen=True)
class CallOptions:
    """Set by the caller, not the agent: over HTTP from the request (its user,
    ``If-Match``, ``Idempotency-Key``); in Python from the collection's keywords.
    ``expected_version`` may be given as a version number: it is kept as
    ``ExpectedVersions``."""

    actor: str | None = None
    expected_version: ExpectedVersions | int | None = None
    idempotency_key: str | None = None

    def __post_init__(self):
        if self.actor is not None and not isinstance(self.actor, str):
            raise InvalidArguments(f"actor must be a string or None, got {type(self.actor).__name__}")
        version = self.expected_version
        if version is not None and not isinstance(version, ExpectedVersions):
            if isinstance(version, bool) or not isinstance(version, int) or version < 0:
                raise InvalidArguments(f"the expected version must be a non-negative integer, got {version!r:.40}")
            object.__setattr__(self, "expected_version", ExpectedVersions.exactly(version))
        key = self.idempotency_key
        if key is not None and not (isinstance(key, str) and IDEMPOTENCY_KEY_PATTERN.fullmatch(key)):
            raise InvalidArguments("the idempotency key must be 1 to 255 printable ASCII characters")


@dataclass
class ToolCall:
    tool: str
    reason: str
    actor: str | None
    expected_version: ExpectedVersions | None
    # Set once the expected version was compared under the row lock.
    precondition_checked: bool = False


_current: ContextVar[ToolCall | None] = ContextVar("workspace_tool_call", default=None)


def current_call() -> ToolCall | None:
    return _current.get()


@contextmanager
def making(call: ToolCall):
    token = _current.set(call)
    try:
        yield call
    finally:
        _current.reset(token)
