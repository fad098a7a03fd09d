"""The app's errors. Each carries the HTTP status it maps to and its code.

Four places turn them into answers: ``ToolResult.failure`` (the failure
envelope of every tool call, over Python and HTTP), the HTTP views' exception
handler (``failures``, for the other endpoints), the MCP endpoint (``mcp.asgi``,
its refusals over HTTP), and LangChain (``langchain``, a
``ToolMessage`` with ``status="error"`` made from the envelope)."""


class WorkspaceError(Exception):
    """Base class: the caller's input is at fault unless a subclass says otherwise.

    A subclass names its HTTP status and its code on its ``class`` line,
    ``class DraftEnded(WorkspaceError, status=409, code="draft_ended")``; they
    are read as ``status_code`` and ``default_code``, and ``retry_after``
    (seconds, for a ``Retry-After`` header) likewise."""

    status_code = 400
    default_code = "invalid"
    retry_after: int | None = None

    def __init_subclass__(
        cls, *, status: int | None = None, code: str | None = None, retry_after: int | None = None, **kwargs: object
    ) -> None:
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status_code = status
        if code is not None:
            cls.default_code = code
        if retry_after is not None:
            cls.retry_after = retry_after

    def envelope_extras(self) -> dict:
        """Fields the failure envelope carries besides ``error``."""
        return {}


class InvalidThreadId(WorkspaceError, ValueError, code="invalid_thread_id"):
    """A thread id that is not 1-128 characters of ``A-Z a-z 0-9 . _ : -``."""


class InvalidArguments(WorkspaceError, ValueError, code="invalid_arguments"):
    """A tool's arguments, a request's body or a header that breaks its rules; the message says which."""


class DocumentTooLarge(WorkspaceError, ValueError, code="document_too_large"):
    """A document past ``WORKSPACE_MAX_DOCUMENT_CHARS``, or a body past ``DATA_UPLOAD_MAX_MEMORY_SIZE``."""


class DocumentNotFound(WorkspaceError, LookupError, status=404, code="document_not_found"):
    """A read, an edit or a restore of a thread that has no document."""


class UnknownTool(WorkspaceError, LookupError, status=404, code="unknown_tool"):
    """A call of a tool no registered collection declares."""


# What a 503 tells the client to wait before retrying.
RETRY_AFTER_SECONDS = 1


class ServiceUnavailable(WorkspaceError, status=503, code="service_unavailable", retry_after=RETRY_AFTER_SECONDS):
    """A service the call needs is down or busy; the call may be retried."""


class DatabaseUnavailable(ServiceUnavailable):
    """The database could not be reached, or did not answer in time (a lock
    wait, a statement timeout, a connection killed, the pool exhausted)."""

    def __init__(self, writing: bool = True) -> None:
        super().__init__(
            "the database is unavailable or busy, so this call may not have been applied: retry it shortly "
            "(with the same Idempotency-Key, a retry is never applied twice)"
            if writing
            else "the database is unavailable or busy: retry shortly"
        )


class ToolFailed(WorkspaceError, status=500, code="internal_error"):
    """An unexpected error inside a tool; details go to the server log, not the agent."""


class RevisionNotFound(WorkspaceError, LookupError, status=404, code="revision_not_found"):
    """A version the document never had, or one pruned from its history."""


class PreconditionFailed(WorkspaceError, status=412, code="precondition_failed"):
    """The document is not at the version the caller expected; nothing changed."""

    def __init__(self, expected: object, current: int) -> None:
        """``expected``: a version number, or what ``If-Match`` asked (``preconditions.ExpectedVersions``)."""
        wanted = f"the expected version {expected}" if isinstance(expected, int) else str(expected)
        super().__init__(
            f"the document is at version {current}, not {wanted}; "
            "nothing was changed: read the document again and retry"
        )
        self.current_version = current

    def envelope_extras(self) -> dict:
        return {"current_version": self.current_version}


class IdempotencyConflict(WorkspaceError, status=409, code="idempotency_in_flight"):
    """A call with this ``Idempotency-Key`` is still running; retry once it has answered."""


class IdempotencyKeyReused(WorkspaceError, status=422, code="idempotency_key_reused"):
    """An ``Idempotency-Key`` already used for another call (thread, tool or arguments)."""


class TooManyStreams(WorkspaceError, status=429, code="too_many_streams", retry_after=5):
    """A user at ``WORKSPACE_MAX_STREAMS_PER_USER`` open streams."""


class DeletedWhileWriting(WorkspaceError, status=409, code="deleted_while_writing"):
    """The document was deleted (by the host) while this call was writing it, twice in a row."""


class PreconditionRequired(WorkspaceError, status=428, code="precondition_required"):
    """A person's edit without ``If-Match``: the version it started from is needed to merge it."""


# The most characters the sides of an answer's conflicts hold in all: past
# it, each side is cut to an equal share (a million one-character lines
# changed on both sides answered 4.5 MB).
MAX_CONFLICT_CHARS = 65_536


class EditConflict(WorkspaceError, status=409, code="edit_conflict"):
    """A person's edit and the changes since it started changed the same lines
    differently; nothing changed. ``conflicts``: each region's three sides, as
    dicts of ``base``, ``current`` and ``yours``, cut to ``MAX_CONFLICT_CHARS``
    in all (a cut region says ``"truncated": true``)."""

    def __init__(self, current: int, conflicts: list[dict[str, str]]) -> None:
        regions = "region" if len(conflicts) == 1 else "regions"
        super().__init__(
            f"your edit and the changes made since it started (the document is at version {current}) "
            f"changed the same lines differently ({len(conflicts)} {regions}); nothing was changed: "
            "resolve the conflicts and save again from the current version"
        )
        self.current_version = current
        self.conflicts = _bounded(conflicts)

    def envelope_extras(self) -> dict:
        return {"current_version": self.current_version, "conflicts": self.conflicts}


def _bounded(conflicts: list[dict[str, str]]) -> list[dict]:
    sides = ("base", "current", "yours")
    if sum(len(conflict[side]) for conflict in conflicts for side in sides) <= MAX_CONFLICT_CHARS:
        return list(conflicts)
    share = MAX_CONFLICT_CHARS // (len(sides) * len(conflicts))
    cut: list[dict] = []
    for conflict in conflicts:
        region: dict = {side: conflict[side][:share] for side in sides}
        if any(len(conflict[side]) > share for side in sides):
            region["truncated"] = True
        cut.append(region)
    return cut


class DraftNotFound(WorkspaceError, LookupError, status=404, code="draft_not_found"):
    """A cancel of a call id with no open draft on this thread."""


class DraftEnded(WorkspaceError, status=409, code="draft_ended"):
    """A piece of a draft that has ended: a new tool call needs a new call id."""


class DraftForbidden(WorkspaceError, status=403, code="draft_forbidden"):
    """A piece or a cancel of a draft another user opened."""


class DraftTooLarge(WorkspaceError, ValueError, code="draft_too_large"):
    """A draft's arguments past ``DATA_UPLOAD_MAX_MEMORY_SIZE``; the draft ended as failed."""


class TooManyDrafts(WorkspaceError, status=429, code="too_many_drafts", retry_after=5):
    """A thread at ``WORKSPACE_MAX_DRAFTS_PER_THREAD`` open drafts, or a user at
    ``WORKSPACE_MAX_DRAFTS_PER_USER``."""


class TooManyProposals(WorkspaceError, status=429, code="too_many_proposals", retry_after=30):
    """A thread at ``WORKSPACE_MAX_OPEN_PROPOSALS`` proposals waiting for review: one must be decided first."""


class ProposalNotFound(WorkspaceError, LookupError, status=404, code="proposal_not_found"):
    """No proposal of that id on the thread."""


class ProposalDecided(WorkspaceError, status=409, code="proposal_decided"):
    """A decision on a proposal that was decided already; nothing changed."""
