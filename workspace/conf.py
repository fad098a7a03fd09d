"""The app's settings, each read from Django settings on every access so that
``override_settings`` just works."""

from typing import Any

from django.conf import settings

DEFAULTS = {
    "WORKSPACE_MAX_DOCUMENT_CHARS": 1_000_000,
    "WORKSPACE_ACCESS_POLICY": "workspace.access.deny_all",
    "WORKSPACE_TOOL_COLLECTIONS": ["workspace.tools.documents.DocumentTools"],
    "WORKSPACE_EVENT_MAX_CHARS": 65_536,
    "WORKSPACE_REVISION_KEEP_DAYS": None,
    "WORKSPACE_RATE_WRITES": "600/min",
    "WORKSPACE_RATE_READS": "3000/min",
    "WORKSPACE_MAX_STREAMS_PER_USER": 20,
    "WORKSPACE_MCP_MAX_SESSIONS_PER_USER": 100,
}


class Settings:
    """The ``WORKSPACE_*`` settings, each with its default, read on every access."""

    @property
    def MAX_DOCUMENT_CHARS(self) -> int:
        """Most characters (code points) a document may hold."""
        return self._get("WORKSPACE_MAX_DOCUMENT_CHARS")

    @property
    def ACCESS_POLICY(self) -> str:
        """Dotted path to a callable ``(user, thread_id, action) -> bool`` (or one of two arguments)."""
        return self._get("WORKSPACE_ACCESS_POLICY")

    @property
    def TOOL_COLLECTIONS(self) -> list[str]:
        """Dotted paths to the tool collections served over HTTP."""
        return self._get("WORKSPACE_TOOL_COLLECTIONS")

    @property
    def EVENT_MAX_CHARS(self) -> int:
        """Longest ``text`` or ``content`` a live event carries; a longer one is
        left out (``"omitted": true``) and clients fetch the document instead."""
        return self._get("WORKSPACE_EVENT_MAX_CHARS")

    @property
    def REVISION_KEEP_DAYS(self) -> int | None:
        """Days of history ``prune_revisions`` keeps when not told otherwise; None: all."""
        return self._get("WORKSPACE_REVISION_KEEP_DAYS")

    @property
    def RATE_WRITES(self) -> str | None:
        """Tool calls per user, in DRF's notation (``600/min``); None: no limit."""
        return self._get("WORKSPACE_RATE_WRITES")

    @property
    def RATE_READS(self) -> str | None:
        """Reads (document, revisions, tools) per user, in DRF's notation; None: no limit."""
        return self._get("WORKSPACE_RATE_READS")

    @property
    def MAX_STREAMS_PER_USER(self) -> int:
        """Event streams one user may hold open at once, across all processes with Redis."""
        return self._get("WORKSPACE_MAX_STREAMS_PER_USER")

    @property
    def MCP_MAX_SESSIONS_PER_USER(self) -> int:
        """MCP sessions (2025 protocols) one user may hold open at once in one server process."""
        return self._get("WORKSPACE_MCP_MAX_SESSIONS_PER_USER")

    @property
    def ACCESS_POLICY_IS_SET(self) -> bool:
        """Whether the host named a policy (unset, every request is denied: a warning)."""
        return hasattr(settings, "WORKSPACE_ACCESS_POLICY")

    @staticmethod
    def _get(name: str) -> Any:
        return getattr(settings, name, DEFAULTS[name])


conf = Settings()
