"""The tools that write a thread's shared working document (the center panel)."""

from typing import Annotated

from pydantic import Field

from ..calls import CallOptions
from ..repository import TITLE_MAX_LENGTH, WorkspaceRepository
from .registry import workspace_tool


class DocumentTools:
    """The document tools of one conversation thread.

    Bound to its ``thread_id`` so that no tool takes it as an argument. The
    keywords apply to every call made through this instance: ``actor`` is
    recorded in each revision; with ``expected_version`` a call changes
    nothing unless the document is at that version (0: has none); with
    ``idempotency_key`` a call is applied at most once (a retry through a new
    instance with the same key and arguments gets the first answer back).
    """

    def __init__(
        self,
        thread_id: str,
        *,
        actor: str | None = None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ):
        self.thread_id = thread_id
        self.call_options = CallOptions(actor=actor, expected_version=expected_version, idempotency_key=idempotency_key)

    @workspace_tool
    def update_document(
        self,
        content: Annotated[str, Field(description="The whole new content of the document.")],
        title: Annotated[
            str | None,
            Field(
                max_length=TITLE_MAX_LENGTH,
                description="A new title; omit it or pass null to keep the current one.",
            ),
        ] = None,
    ) -> tuple[str, None]:
        """Replace the full content of the shared working document."""
        change = WorkspaceRepository.upsert_document(self.thread_id, content=content, title=title)
        return f"document updated ({change.length} chars)", None

    @workspace_tool
    def append_to_document(
        self,
        text: Annotated[str, Field(description="The chunk of text to add at the end of the document.")],
    ) -> tuple[str, None]:
        """Append a chunk of text to the shared working document."""
        change = WorkspaceRepository.append_document(self.thread_id, text)
        return f"appended ({change.length} chars total)", None
