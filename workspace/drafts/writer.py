"""``DraftWriter``: one tool call's live draft, written from Python, ended by the call made through its ``tools()``."""

from typing import Any

from ..tools.documents import DocumentTools
from . import store as draft_store


class DraftWriter:
    """The draft of one tool call (``tool``: ``update_document``,
    ``append_to_document`` or ``edit_document``) on ``thread_id``, named by
    the call's id (1 to 64 characters of ``A-Z a-z 0-9 _ -``; the model's
    own call id usually is one)."""

    def __init__(self, thread_id: str, call_id: str, tool: str, *, actor: str | None = None) -> None:
        draft_store.validate_call_id(call_id)
        self.thread_id = thread_id
        self.call_id = call_id
        self.tool = tool
        self.actor = actor

    def feed(self, delta: str) -> int:
        """Add the next piece of the call's JSON arguments (the first opens the
        draft); the characters received so far. Raises the app's errors
        (``workspace.exceptions``) as the HTTP API answers them."""
        return draft_store.add(self.thread_id, self.call_id, self.tool, delta, self.actor)

    def cancel(self) -> bool:
        """End the draft as ``cancelled``; False when it is not open."""
        return draft_store.cancel(self.thread_id, self.call_id, self.actor)

    def tools(self, collection: type = DocumentTools, **options: Any) -> Any:
        """The thread's tools (``collection``, with ``options`` such as
        ``expected_version``), whose call ends this draft."""
        return collection(self.thread_id, actor=self.actor, draft_id=self.call_id, **options)
