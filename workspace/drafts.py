"""Live drafts from Python: viewers watch a tool call's text while
the model is still generating the call.

A ``DraftWriter`` is one call's draft: ``feed`` each piece of the call's JSON
arguments as the model streams it, then make the call through ``tools()``,
which ends the draft (``committed`` with the change, ``failed`` if the call
fails); or ``cancel()`` it. A draft nobody feeds for
``WORKSPACE_DRAFT_TIMEOUT`` seconds ends as ``expired``::

    from workspace.drafts import DraftWriter

    draft = DraftWriter("plan-7", "call_42", "update_document", actor="planner")
    for piece in ['{"content": "# Pl', 'an\\n\\n1. Draft', '"}']:
        draft.feed(piece)          # every viewer of plan-7 sees "# Plan ..." grow
    draft.tools().update_document(content="# Plan\\n\\n1. Draft", action_and_reasoning="...")

The forwarders feed writers from a model SDK's own stream, passing every
event through (``workspace.draft_forwarders``): ``forward_openai_responses``,
``forward_openai_chat``, ``forward_anthropic``, ``forward_langchain`` and
their async twins ``aforward_...``, each given ``open_draft(call_id, tool)``,
for instance ``lambda call_id, tool: DraftWriter(thread_id, call_id, tool)``;
end each call with ``draft_id=draft_call_id(<the provider's call id>)``.

The same over HTTP: ``POST threads/<id>/drafts/<call_id>/`` with
``{"tool", "delta"}``, ``DELETE`` to cancel, and the tool call with the
header ``Draft-Id: <call_id>``.
"""

from typing import Any

from . import draft_store
from .draft_forwarders import (
    aforward_anthropic,
    aforward_langchain,
    aforward_openai_chat,
    aforward_openai_responses,
    draft_call_id,
    forward_anthropic,
    forward_langchain,
    forward_openai_chat,
    forward_openai_responses,
)
from .tools.documents import DocumentTools

__all__ = [
    "DraftWriter",
    "aforward_anthropic",
    "aforward_langchain",
    "aforward_openai_chat",
    "aforward_openai_responses",
    "draft_call_id",
    "forward_anthropic",
    "forward_langchain",
    "forward_openai_chat",
    "forward_openai_responses",
]


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
