"""A shared working document per conversation thread, written by AI agents through tools.

This module is the app's public API: the names in ``__all__`` below, importable
as ``from workspace import WorkspaceRepository``. They are stable within a
minor release and change only with a deprecation first. Everything else (the
modules under ``workspace.``, the names not listed here) is the app's own and
may change in any release; the settings' dotted paths docs/public-api.md names
(``workspace.urls``, ``workspace.events.ThreadChannelManager``, ...) stay too.

- writing and reading documents from Python: ``WorkspaceRepository``;
- declaring tools: ``ToolCollection``, ``workspace_tool``, ``ToolSpec``,
  ``ToolResult``, ``CallOptions``, ``registered_tools``, and the app's own
  collection ``DocumentTools``;
- who may use which thread: ``can_access``;
- live drafts of tool calls still being generated: ``DraftWriter`` (and
  ``workspace.drafts``' forwarders of the model SDKs' streams);
- hearing of changes: the signals ``document_changed`` (with a
  ``DocumentChange``), ``artifact_produced`` and ``draft_changed``; of
  review, ``review_changed``, ``proposal_stored`` and ``proposal_decided``
  (``WorkspaceRepository.set_review`` and ``decide_proposal`` drive it);
- serving it: ``with_workspace``, the ASGI application around the host's;
- the errors: ``WorkspaceError`` and its subclasses.

The names are looked up lazily (PEP 562): ``import workspace`` loads no model,
so that a settings module or an ``INSTALLED_APPS`` entry may import it before
Django's app registry is ready.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .deprecation import moved_modules

# name -> the module that defines it
_PUBLIC_NAMES = {
    "WorkspaceRepository": "workspace.documents.repository",
    "DocumentTools": "workspace.tools.documents",
    "ToolCollection": "workspace.tools",
    "workspace_tool": "workspace.tools",
    "ToolSpec": "workspace.tools",
    "ToolResult": "workspace.tools",
    "CallOptions": "workspace.documents.calls",
    "registered_tools": "workspace.tools",
    "can_access": "workspace.access",
    "DocumentChange": "workspace.signals",
    "document_changed": "workspace.signals",
    "artifact_produced": "workspace.signals",
    "with_workspace": "workspace.asgi",
    "WorkspaceError": "workspace.exceptions",
    "InvalidThreadId": "workspace.exceptions",
    "InvalidArguments": "workspace.exceptions",
    "DocumentTooLarge": "workspace.exceptions",
    "DocumentNotFound": "workspace.exceptions",
    "UnknownTool": "workspace.exceptions",
    "ServiceUnavailable": "workspace.exceptions",
    "DatabaseUnavailable": "workspace.exceptions",
    "ToolFailed": "workspace.exceptions",
    "RevisionNotFound": "workspace.exceptions",
    "PreconditionFailed": "workspace.exceptions",
    "IdempotencyConflict": "workspace.exceptions",
    "IdempotencyKeyReused": "workspace.exceptions",
    "TooManyStreams": "workspace.exceptions",
    "DeletedWhileWriting": "workspace.exceptions",
    "EditConflict": "workspace.exceptions",
    "PreconditionRequired": "workspace.exceptions",
    "DraftNotFound": "workspace.exceptions",
    "DraftEnded": "workspace.exceptions",
    "DraftForbidden": "workspace.exceptions",
    "DraftTooLarge": "workspace.exceptions",
    "TooManyDrafts": "workspace.exceptions",
    "TooManyProposals": "workspace.exceptions",
    "ProposalNotFound": "workspace.exceptions",
    "ProposalDecided": "workspace.exceptions",
    "review_changed": "workspace.signals",
    "proposal_stored": "workspace.signals",
    "proposal_decided": "workspace.signals",
    "DraftWriter": "workspace.drafts",
    "draft_changed": "workspace.signals",
}

__all__ = [
    "CallOptions",
    "DatabaseUnavailable",
    "DeletedWhileWriting",
    "DocumentChange",
    "DocumentNotFound",
    "DocumentTooLarge",
    "DocumentTools",
    "DraftEnded",
    "DraftForbidden",
    "DraftNotFound",
    "DraftTooLarge",
    "DraftWriter",
    "EditConflict",
    "IdempotencyConflict",
    "IdempotencyKeyReused",
    "InvalidArguments",
    "InvalidThreadId",
    "PreconditionFailed",
    "PreconditionRequired",
    "ProposalDecided",
    "ProposalNotFound",
    "RevisionNotFound",
    "ServiceUnavailable",
    "TooManyDrafts",
    "TooManyProposals",
    "TooManyStreams",
    "ToolCollection",
    "ToolFailed",
    "ToolResult",
    "ToolSpec",
    "UnknownTool",
    "WorkspaceError",
    "WorkspaceRepository",
    "artifact_produced",
    "can_access",
    "document_changed",
    "draft_changed",
    "proposal_decided",
    "proposal_stored",
    "registered_tools",
    "review_changed",
    "with_workspace",
    "workspace_tool",
]

if TYPE_CHECKING:  # what the names are, for type checkers and editors
    from workspace.access import can_access
    from workspace.asgi import with_workspace
    from workspace.documents.calls import CallOptions
    from workspace.exceptions import (
        DatabaseUnavailable,
        DeletedWhileWriting,
        DocumentNotFound,
        DocumentTooLarge,
        DraftEnded,
        DraftForbidden,
        DraftNotFound,
        DraftTooLarge,
        EditConflict,
        IdempotencyConflict,
        IdempotencyKeyReused,
        InvalidArguments,
        InvalidThreadId,
        PreconditionFailed,
        PreconditionRequired,
        ProposalDecided,
        ProposalNotFound,
        RevisionNotFound,
        ServiceUnavailable,
        ToolFailed,
        TooManyDrafts,
        TooManyProposals,
        TooManyStreams,
        UnknownTool,
        WorkspaceError,
    )
    from workspace.signals import (
        DocumentChange,
        artifact_produced,
        document_changed,
        draft_changed,
        proposal_decided,
        proposal_stored,
        review_changed,
    )
    from workspace.tools import ToolCollection, ToolResult, ToolSpec, registered_tools, workspace_tool
    from workspace.tools.documents import DocumentTools

    from .documents.repository import WorkspaceRepository
    from .drafts import DraftWriter


# The modules that moved into the capabilities' packages in 0.4.0: the old
# paths still import, each name with a DeprecationWarning, until 0.5.0 at the earliest.
moved_modules(
    {
        "workspace.asgi_types": "workspace.utils.asgi_types",
        "workspace.async_bridge": "workspace.utils.async_bridge",
        "workspace.calls": "workspace.documents.calls",
        "workspace.content_security": "workspace.http.content_security",
        "workspace.db": {"as_request": "workspace.utils.async_bridge.as_async_request"},
        "workspace.draft_expiry": "workspace.drafts.expiry",
        "workspace.draft_forwarders": "workspace.drafts.forwarders",
        "workspace.draft_request": "workspace.drafts.request",
        "workspace.draft_store": "workspace.drafts.store",
        "workspace.edit_request": "workspace.people.request",
        "workspace.edits": "workspace.documents.edits",
        "workspace.failures": "workspace.http.failures",
        "workspace.idempotency": "workspace.documents.idempotency",
        "workspace.json_strings": "workspace.drafts.json_strings",
        "workspace.line_diff": "workspace.documents.line_diff",
        "workspace.merging": "workspace.documents.merging",
        "workspace.openapi": "workspace.http.openapi",
        "workspace.openapi_drafts": "workspace.drafts.openapi",
        "workspace.openapi_people": "workspace.people.openapi",
        "workspace.parameters": "workspace.http.request",
        "workspace.partial_json": "workspace.drafts.partial_json",
        "workspace.person_edits": "workspace.documents.person_edits",
        "workspace.preconditions": "workspace.documents.preconditions",
        "workspace.pruning": "workspace.documents.pruning",
        "workspace.repository": "workspace.documents.repository",
        "workspace.request_body": "workspace.http.request",
        "workspace.shutdown": "workspace.events.shutdown",
        "workspace.snapshot_policy": "workspace.history.snapshot_policy",
        "workspace.splices": "workspace.history.splices",
        "workspace.statements": "workspace.documents.statements",
        "workspace.throttling": "workspace.http.throttling",
        "workspace.view_defaults": "workspace.http.defaults",
        "workspace.views": "workspace.http.views",
        "workspace.writes": "workspace.documents.writes",
    }
)


def __getattr__(name: str) -> Any:
    try:
        module = _PUBLIC_NAMES[name]
    except KeyError:
        raise AttributeError(f"module 'workspace' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
