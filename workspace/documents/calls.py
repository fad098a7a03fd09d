"""What a tool call carries besides its arguments: who makes it, why, and on what condition.

The unit of work (``tools.unit_of_work``) makes the call current around the
tool's body. Each write of the repository asks it once, at its top, for its
``WriteContext``: the author every change records (reason, actor, tool), and
the call's expected version, which the call hands out to its first write
only (``claim_precondition``), to be checked under the same row lock as the
change. What no write claimed, the unit of work claims and checks after the
tool ran.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from ..deprecation import moved_names
from ..exceptions import InvalidArguments
from .preconditions import IDEMPOTENCY_KEY_PATTERN, ExpectedVersions, check_draft_id

__all__ = [
    "IDEMPOTENCY_KEY_PATTERN",
    "AGENT",
    "PERSON",
    "SOURCES",
    "Author",
    "CallOptions",
    "ExpectedVersions",
    "ToolCall",
    "WriteContext",
    "calling",
    "current_call",
    "write_context",
]


@dataclass(frozen=True)
class CallOptions:
    """Set by the caller, not the agent: over HTTP from the request (its user,
    ``If-Match``, ``Idempotency-Key``, ``Draft-Id``); in Python from the collection's keywords.
    ``expected_version`` may be given as a version number: it is kept as
    ``ExpectedVersions``. ``draft_id``: the live draft this call ends
    (``committed`` with its change, ``failed`` otherwise)."""

    actor: str | None = None
    expected_version: ExpectedVersions | int | None = None
    idempotency_key: str | None = None
    draft_id: str | None = None

    def __post_init__(self) -> None:
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
        if self.draft_id is not None:
            check_draft_id(self.draft_id, "the draft id")

    @property
    def expected_versions(self) -> ExpectedVersions | None:
        """``expected_version`` as ``ExpectedVersions`` (``__post_init__`` made it one)."""
        version = self.expected_version
        return ExpectedVersions.exactly(version) if isinstance(version, int) else version


AGENT = "agent"
PERSON = "person"
SOURCES = (AGENT, PERSON)


@dataclass(frozen=True)
class Author:
    """Who made a change and why, as its revision records it: ``source`` is
    ``"agent"`` for a tool call's change, ``"person"`` for a person's."""

    reason: str
    actor: str | None
    tool: str | None
    source: str = AGENT
    # An agent's tool call: its change waits as a proposal when the document is in review.
    proposes: bool = False
    # A proposal a person accepted: who, and which.
    reviewed_by: str | None = None
    proposal: int | None = None


@dataclass(frozen=True)
class WriteContext:
    """What one write of the repository takes from the current call, asked once at its top."""

    author: Author
    # The call's precondition, for its first write only: a second write builds on the first.
    expected: ExpectedVersions | None = None
    in_tool_call: bool = False


@dataclass
class ToolCall:
    tool: str
    reason: str
    actor: str | None
    expected_version: ExpectedVersions | None
    proposal: int | None = None  # the proposal the call stored instead of writing, if it did
    _precondition_claimed: bool = field(default=False, repr=False)

    def claim_precondition(self) -> ExpectedVersions | None:
        """The call's expected version, to the first who claims it; None afterwards
        (and for a call that expects none). Whoever claims it checks it."""
        if self._precondition_claimed:
            return None
        self._precondition_claimed = True
        return self.expected_version

    def author(self, reason: str | None, actor: str | None) -> Author:
        """The author of a change: ``reason`` and ``actor`` as given, else this call's."""
        return Author(
            reason=self.reason if reason is None else reason,
            actor=self.actor if actor is None else actor,
            tool=self.tool,
            proposes=True,
        )


_current: ContextVar[ToolCall | None] = ContextVar("workspace_tool_call", default=None)


def current_call() -> ToolCall | None:
    return _current.get()


def write_context(reason: str | None = None, actor: str | None = None, source: str = AGENT) -> WriteContext:
    """What a write takes from the current call (claiming its precondition);
    outside a tool call, the ``reason``, ``actor`` and ``source`` given and no
    precondition. The one place a change's source is decided: inside a tool
    call it is always ``"agent"``."""
    if source not in SOURCES:
        raise InvalidArguments(f"source must be one of {', '.join(SOURCES)}, got {source!r:.40}")
    call = current_call()
    if call is None:
        return WriteContext(Author(reason=reason or "", actor=actor, tool=None, source=source))
    return WriteContext(call.author(reason, actor), call.claim_precondition(), in_tool_call=True)


@contextmanager
def calling(call: ToolCall) -> Iterator[ToolCall]:
    """Make ``call`` the current call for the duration of the block."""
    token = _current.set(call)
    try:
        yield call
    finally:
        _current.reset(token)


__getattr__ = moved_names(__name__, {"making": "workspace.documents.calls.calling"})
