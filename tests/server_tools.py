"""Tools that only test servers serve (``tests.server_settings``)."""

import os

from django.db import transaction

from workspace.documents.repository import WorkspaceRepository
from workspace.tools import workspace_tool


class DyingTools:
    def __init__(self, thread_id):
        self.thread_id = thread_id

    @workspace_tool
    def append_then_die(self, text: str) -> tuple[str, None]:
        """Append, and end the server process right after the commit, before the change is announced."""
        transaction.on_commit(lambda: os._exit(17))  # registered first, so it runs first
        change = WorkspaceRepository.append_document(self.thread_id, text)
        return f"appended ({change.length} chars total)", None


class ChartTools:
    def __init__(self, thread_id):
        self.thread_id = thread_id

    @workspace_tool(read_only=True)
    def make_chart(self, points: list[int]) -> tuple[str, dict]:
        """Return an artifact (a chart of the points), writing nothing."""
        return f"chart of {len(points)} points", {"kind": "chart", "points": points}
