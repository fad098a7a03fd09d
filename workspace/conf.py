"""The app's settings, each read from Django settings on every access so that
``override_settings`` just works."""

from typing import Any, Generic, TypeVar, overload

from django.conf import settings

DEFAULTS: dict[str, Any] = {
    "WORKSPACE_MAX_DOCUMENT_CHARS": 1_000_000,
    "WORKSPACE_ACCESS_POLICY": "workspace.access.deny_all",
    "WORKSPACE_TOOL_COLLECTIONS": ["workspace.tools.documents.DocumentTools"],
    "WORKSPACE_EVENT_MAX_CHARS": 65_536,
    "WORKSPACE_REVISION_KEEP_DAYS": None,
    "WORKSPACE_RATE_WRITES": "600/min",
    "WORKSPACE_RATE_READS": "3000/min",
    "WORKSPACE_MAX_STREAMS_PER_USER": 20,
    "WORKSPACE_MCP_MAX_SESSIONS_PER_USER": 100,
    "WORKSPACE_DRAFT_TIMEOUT": 30,
    "WORKSPACE_MAX_DRAFTS_PER_THREAD": 8,
    "WORKSPACE_MAX_DRAFTS_PER_USER": 100,
    "WORKSPACE_RATE_DRAFTS": "6000/min",
    "WORKSPACE_REVIEW_DEFAULT": False,
    "WORKSPACE_MAX_OPEN_PROPOSALS": 50,
}


T = TypeVar("T")


class Setting(Generic[T]):
    """One ``WORKSPACE_*`` setting of ``Settings``: its value in Django's
    settings, else its default, read on every access."""

    def __init__(self, name: str):
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type) -> "Setting[T]": ...
    @overload
    def __get__(self, instance: object, owner: type) -> T: ...
    def __get__(self, instance: object, owner: type) -> "T | Setting[T]":
        if instance is None:
            return self
        value: T = getattr(settings, self.name, DEFAULTS[self.name])
        return value


class Settings:
    """The ``WORKSPACE_*`` settings, each with its default, read on every access."""

    MAX_DOCUMENT_CHARS = Setting[int]("WORKSPACE_MAX_DOCUMENT_CHARS")
    """Most characters (code points) a document may hold."""

    ACCESS_POLICY = Setting[str]("WORKSPACE_ACCESS_POLICY")
    """Dotted path to a callable ``(user, thread_id, action) -> bool`` (or one of two arguments)."""

    TOOL_COLLECTIONS = Setting[list[str]]("WORKSPACE_TOOL_COLLECTIONS")
    """Dotted paths to the tool collections served over HTTP."""

    EVENT_MAX_CHARS = Setting[int]("WORKSPACE_EVENT_MAX_CHARS")
    """Longest ``text`` or ``content`` a live event carries; a longer one is left
    out (``"omitted": true``) and clients fetch the document instead."""

    REVISION_KEEP_DAYS = Setting[int | None]("WORKSPACE_REVISION_KEEP_DAYS")
    """Days of history ``prune_revisions`` keeps when not told otherwise; None: all."""

    RATE_WRITES = Setting[str | None]("WORKSPACE_RATE_WRITES")
    """Tool calls per user, in DRF's notation (``600/min``); None: no limit."""

    RATE_READS = Setting[str | None]("WORKSPACE_RATE_READS")
    """Reads (document, revisions, tools) per user, in DRF's notation; None: no limit."""

    MAX_STREAMS_PER_USER = Setting[int]("WORKSPACE_MAX_STREAMS_PER_USER")
    """Event streams one user may hold open at once, across all processes with Redis."""

    MCP_MAX_SESSIONS_PER_USER = Setting[int]("WORKSPACE_MCP_MAX_SESSIONS_PER_USER")
    """MCP sessions (2025 protocols) one user may hold open at once in one server process."""

    DRAFT_TIMEOUT = Setting[int]("WORKSPACE_DRAFT_TIMEOUT")
    """Seconds a draft stays open without a new piece; then it ends as ``expired``."""

    MAX_DRAFTS_PER_THREAD = Setting[int]("WORKSPACE_MAX_DRAFTS_PER_THREAD")
    """Drafts one thread may have open at once; one more is refused (429)."""

    MAX_DRAFTS_PER_USER = Setting[int]("WORKSPACE_MAX_DRAFTS_PER_USER")
    """Drafts one user may have open at once, across threads and processes; one more is refused (429)."""

    RATE_DRAFTS = Setting[str | None]("WORKSPACE_RATE_DRAFTS")
    """Pieces of drafts per user, in DRF's notation (``6000/min``); None: no limit."""

    REVIEW_DEFAULT = Setting[bool]("WORKSPACE_REVIEW_DEFAULT")
    """Whether a new document (and a thread without one) starts in review: agents' changes wait for a person."""

    MAX_OPEN_PROPOSALS = Setting[int]("WORKSPACE_MAX_OPEN_PROPOSALS")
    """Proposals one thread may have waiting for review; one more is refused (429)."""

    @property
    def ACCESS_POLICY_IS_SET(self) -> bool:
        """Whether the host named a policy (unset, every request is denied: a warning)."""
        return hasattr(settings, "WORKSPACE_ACCESS_POLICY")


conf = Settings()
