"""The app's errors. Each carries the HTTP status it maps to and its code.

Four places turn them into answers: ``ToolResult.failure`` (the failure
envelope of every tool call, over Python and HTTP), the HTTP views' exception
handler (``failures``, for the other endpoints), the MCP endpoint (``mcp.asgi``,
its refusals over HTTP), and LangChain (``langchain``, a
``ToolMessage`` with ``status="error"`` made from the envelope)."""


class WorkspaceError(Exception):
    """Base class: the caller's input is at fault unless a subclass says otherwise."""

    status_code = 400
    default_code = "invalid"
    retry_after: int | None = None  # seconds, for a Retry-After header

    def envelope_extras(self) -> dict:
        """Fields the failure envelope carries besides ``error``."""
        return {}


class InvalidThreadId(WorkspaceError, ValueError):
    default_code = "invalid_thread_id"


class InvalidArguments(WorkspaceError, ValueError):
    default_code = "invalid_arguments"


class DocumentTooLarge(WorkspaceError, ValueError):
    default_code = "document_too_large"


class DocumentNotFound(WorkspaceError, LookupError):
    status_code = 404
    default_code = "document_not_found"


class UnknownTool(WorkspaceError, LookupError):
    status_code = 404
    default_code = "unknown_tool"


# What a 503 tells the client to wait before retrying.
RETRY_AFTER_SECONDS = 1


class ServiceUnavailable(WorkspaceError):
    status_code = 503
    default_code = "service_unavailable"
    retry_after = RETRY_AFTER_SECONDS


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


class ToolFailed(WorkspaceError):
    """An unexpected error inside a tool; details go to the server log, not the agent."""

    status_code = 500
    default_code = "internal_error"


class RevisionNotFound(WorkspaceError, LookupError):
    status_code = 404
    default_code = "revision_not_found"


class PreconditionFailed(WorkspaceError):
    """The document is not at the version the caller expected; nothing changed."""

    status_code = 412
    default_code = "precondition_failed"

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


class IdempotencyConflict(WorkspaceError):
    status_code = 409
    default_code = "idempotency_in_flight"


class IdempotencyKeyReused(WorkspaceError):
    status_code = 422
    default_code = "idempotency_key_reused"


class TooManyStreams(WorkspaceError):
    status_code = 429
    default_code = "too_many_streams"
    retry_after = 5


class DeletedWhileWriting(WorkspaceError):
    """The document was deleted (by the host) while this call was writing it, twice in a row."""

    status_code = 409
    default_code = "deleted_while_writing"


class PreconditionRequired(WorkspaceError):
    """A person's edit without ``If-Match``: the version it started from is needed to merge it."""

    status_code = 428
    default_code = "precondition_required"


class EditConflict(WorkspaceError):
    """A person's edit and the changes since it started changed the same lines
    differently; nothing changed. ``conflicts``: each region's three sides, as
    dicts of ``base``, ``current`` and ``yours``."""

    status_code = 409
    default_code = "edit_conflict"

    def __init__(self, current: int, conflicts: list[dict[str, str]]) -> None:
        regions = "region" if len(conflicts) == 1 else "regions"
        super().__init__(
            f"your edit and the changes made since it started (the document is at version {current}) "
            f"changed the same lines differently ({len(conflicts)} {regions}); nothing was changed: "
            "resolve the conflicts and save again from the current version"
        )
        self.current_version = current
        self.conflicts = conflicts

    def envelope_extras(self) -> dict:
        return {"current_version": self.current_version, "conflicts": self.conflicts}


class DraftNotFound(WorkspaceError, LookupError):
    status_code = 404
    default_code = "draft_not_found"


class DraftEnded(WorkspaceError):
    """A piece of a draft that has ended: a new tool call needs a new call id."""

    status_code = 409
    default_code = "draft_ended"


class DraftForbidden(WorkspaceError):
    """A piece or a cancel of a draft another user opened."""

    status_code = 403
    default_code = "draft_forbidden"


class DraftTooLarge(WorkspaceError, ValueError):
    """A draft's arguments past ``DATA_UPLOAD_MAX_MEMORY_SIZE``; the draft ended as failed."""

    default_code = "draft_too_large"


class TooManyDrafts(WorkspaceError):
    """A thread at ``WORKSPACE_MAX_DRAFTS_PER_THREAD`` open drafts."""

    status_code = 429
    default_code = "too_many_drafts"
    retry_after = 5
