"""Tool collections the tests call: tools that fail after writing, to prove a call rolls back."""

from workspace.documents.repository import WorkspaceRepository
from workspace.exceptions import InvalidArguments
from workspace.tools import workspace_tool


class FailingTools:
    """Tools that write and then fail, to prove the write is rolled back."""

    def __init__(self, thread_id):
        self.thread_id = thread_id

    @workspace_tool
    def append_then_crash(self, text: str) -> tuple[str, None]:
        """Append, then hit a bug."""
        WorkspaceRepository.append_document(self.thread_id, text)
        raise RuntimeError("boom")

    @workspace_tool
    def append_then_refuse(self, text: str) -> tuple[str, None]:
        """Append, then refuse."""
        WorkspaceRepository.append_document(self.thread_id, text)
        raise InvalidArguments("text is not allowed after all")

    @workspace_tool
    def make_chart(self, points: list[int]) -> tuple[str, dict]:
        """Return an artifact."""
        return f"chart of {len(points)} points", {"kind": "chart", "points": points}

    @workspace_tool
    def tag(self, labels: dict[str, list[str]]) -> tuple[str, None]:
        """Take nested strings."""
        return f"{len(labels)} labels", None
