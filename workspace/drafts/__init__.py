"""Live drafts: viewers watch a tool call's text while the model is still
generating the call.

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
event through (``workspace.drafts.forwarders``): ``forward_openai_responses``,
``forward_openai_chat``, ``forward_anthropic``, ``forward_langchain`` and
their async twins ``aforward_...``, each given ``open_draft(call_id, tool)``,
for instance ``lambda call_id, tool: DraftWriter(thread_id, call_id, tool)``;
end each call with ``draft_id=draft_call_id(<the provider's call id>)``.

The same over HTTP: ``POST threads/<id>/drafts/<call_id>/`` with
``{"tool", "delta"}``, ``DELETE`` to cancel, and the tool call with the
header ``Draft-Id: <call_id>``.

The modules, from the entry points down:

- ``writer``: ``DraftWriter``, a draft written from Python;
- ``forwarders``: a model SDK's stream forwarded to writers (the module
  imports no SDK);
- ``request`` and ``openapi``: what a piece sent over HTTP carries, and its
  description in the API's schema (the view is ``workspace.http.views.DraftView``);
- ``expiry``: drafts nobody feeds end as ``expired``, ended ones are deleted;
- ``store``: the drafts' state in the database, where every process sees
  it; the one place that opens, grows and ends a draft;
- ``partial_json`` and ``json_strings``: the field a viewer watches, read
  from JSON that is still arriving, in time linear in what arrived.

The rules, each kept in one place:

- a draft is named by its call id, 1 to 64 characters of ``A-Z a-z 0-9 _ -``
  (``workspace.documents.preconditions.parse_draft_id``);
- only the draft's own user feeds, cancels or ends it, and only a call of the
  draft's own tool, one that writes, ends it (``store.check_call_may_end``);
- a committed draft ends in its call's transaction, after the change, so its
  ``draft-end`` reaches every viewer after the change's ``document`` event
  (``workspace.events.drafts``);
- a user holds at most ``WORKSPACE_MAX_DRAFTS_PER_USER`` open drafts, each at
  most ``WORKSPACE_MAX_DRAFT_CHARS``.

The names load lazily (PEP 562): the tools end drafts through ``store``, and
``writer`` makes tool calls, so this package imports neither until a name is asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# name -> the module that defines it
_NAMES = {
    "DraftWriter": "workspace.drafts.writer",
    **{
        name: "workspace.drafts.forwarders"
        for name in (
            "aforward_anthropic",
            "aforward_langchain",
            "aforward_openai_chat",
            "aforward_openai_responses",
            "draft_call_id",
            "forward_anthropic",
            "forward_langchain",
            "forward_openai_chat",
            "forward_openai_responses",
        )
    },
}

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

if TYPE_CHECKING:
    from .forwarders import (
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
    from .writer import DraftWriter


def __getattr__(name: str) -> Any:
    try:
        module = _NAMES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
