"""``ToolCollection``: the public base class of a collection of tools bound to one thread."""

from ..documents.calls import CallOptions


class ToolCollection:
    """The tools of one conversation thread, declared as methods with ``@workspace_tool``.

    Bound to its ``thread_id`` so that no tool takes it as an argument. The
    keywords apply to every call made through this instance: ``actor`` is
    recorded in each revision; with ``expected_version`` a call changes
    nothing unless the document is at that version (0: has none); with
    ``idempotency_key`` a call is applied at most once (a retry through a new
    instance with the same key and arguments gets the first answer back);
    with ``draft_id`` a call ends that live draft (``workspace.drafts``):
    ``committed`` with its change, ``failed`` if it fails.

    A host writes its own collection as a subclass, and names it in
    ``WORKSPACE_TOOL_COLLECTIONS``::

        from typing import Annotated

        from pydantic import Field

        from workspace.documents.repository import WorkspaceRepository
        from workspace.tools import ToolCollection, workspace_tool


        class NoteTools(ToolCollection):
            @workspace_tool(destructive=False)
            def add_note(
                self, note: Annotated[str, Field(description="One line to add.")]
            ) -> tuple[str, None]:
                \"\"\"Add a line at the end of the thread's document.\"\"\"
                change = WorkspaceRepository.append_document(self.thread_id, note + "\\n")
                return f"noted (version {change.version})", None

    Each call takes ``action_and_reasoning`` besides its arguments, and
    answers with the envelope: ``NoteTools("t-1").add_note(note="Buy milk",
    action_and_reasoning="The user asked.")``.
    """

    def __init__(
        self,
        thread_id: str,
        *,
        actor: str | None = None,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        draft_id: str | None = None,
    ) -> None:
        self.thread_id = thread_id
        self.call_options = CallOptions(
            actor=actor, expected_version=expected_version, idempotency_key=idempotency_key, draft_id=draft_id
        )
