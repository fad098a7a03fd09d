"""``@workspace_tool``: one function signature gives a tool its argument
validation, the JSON Schema shown to agents, and the envelope it answers with.

A tool is a method of a collection bound to one thread (``DocumentTools``).
It returns ``(content, artifact)``; callers get
``{"success": true, "summary": content, "artifact": artifact}`` or, on any
error, ``{"success": false, "error": message}`` with nothing changed.
"""

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any

from django.db import InterfaceError, OperationalError, router, transaction

from .. import idempotency
from ..calls import CallOptions, ExpectedVersions, ToolCall, making
from ..exceptions import DatabaseUnavailable, InvalidArguments, ToolFailed, WorkspaceError
from ..models import WorkingDocument
from ..repository import check_precondition
from ..signals import artifact_produced
from ..validation import validate_thread_id
from .arguments import INJECTED_ARGUMENT, Arguments
from .envelope import ToolResult

logger = logging.getLogger(__name__)


class ToolSpec:
    """What ``@workspace_tool`` knows of one tool: name, description, arguments, hints."""

    def __init__(self, function: Callable, *, read_only: bool = False, destructive: bool = True):
        self.function = function
        self.name = function.__name__
        self.description = inspect.getdoc(function) or ""
        if not self.description:
            raise TypeError(f"tool {self.name!r} needs a docstring: it is the description shown to the agent")
        self.read_only = read_only
        self.destructive = destructive and not read_only
        self.arguments = Arguments(self.name, function)
        self.parameters_schema = self.arguments.schema
        self.signature = self.arguments.signature

    def describe(self) -> dict:
        return {"name": self.name, "description": self.description, "parameters": self.parameters_schema}

    def invoke(
        self, collection: Any, args: tuple = (), kwargs: dict | None = None, options: CallOptions | None = None
    ) -> ToolResult:
        """Validate, run in one transaction, and answer with the envelope; never raises.

        ``options`` (over HTTP, from the request) default to the collection's
        ``call_options`` (in Python, from its keywords)."""
        result = self._invoke(collection, args, kwargs, options)
        outcome = "replayed" if result.replayed else "ok" if result.status_code == 200 else "failed"
        logger.info(
            "%s on thread %.128r: %s (%d)",
            self.name,
            getattr(collection, "thread_id", None),
            outcome,
            result.status_code,
        )
        return result

    def _invoke(self, collection: Any, args: tuple, kwargs: dict | None, options: CallOptions | None) -> ToolResult:
        try:
            options = options or getattr(collection, "call_options", None) or CallOptions()
            thread_id = validate_thread_id(collection.thread_id)
            arguments = self.arguments.validate(args, kwargs or {})
            _check_agreement(options.expected_version, arguments.get(EXPECTED_VERSION_ARGUMENT))
            call = ToolCall(
                tool=self.name,
                reason=arguments[INJECTED_ARGUMENT],
                actor=options.actor,
                expected_version=options.expected_version,
            )
            with transaction.atomic(using=router.db_for_write(WorkingDocument)), making(call):
                claimed = None
                if options.idempotency_key is not None:
                    request = idempotency.fingerprint(thread_id, self.name, arguments)
                    claimed = idempotency.claim(options.actor or "", options.idempotency_key, request)
                    if claimed.envelope is not None:
                        return ToolResult(claimed.envelope, claimed.status_code, replayed=True)
                del arguments[INJECTED_ARGUMENT]
                summary, artifact = self.function(collection, **arguments)
                if call.expected_version is not None and not call.precondition_checked:
                    check_precondition(thread_id, call.expected_version)  # the tool wrote nothing
                result = ToolResult.success(summary, artifact)
                if artifact is not None:
                    artifact_produced.send(
                        sender=type(collection), thread_id=thread_id, tool=self.name, artifact=artifact
                    )
                if claimed is not None:
                    idempotency.store_answer(claimed, result.status_code, result.envelope)
        except WorkspaceError as error:
            return ToolResult.failure(error)
        except (OperationalError, InterfaceError):
            logger.exception(
                "tool %s failed on thread %r: the database failed", self.name, getattr(collection, "thread_id", None)
            )
            return ToolResult.failure(DatabaseUnavailable(writing=not self.read_only))
        except Exception:
            logger.exception("tool %s failed on thread %r", self.name, getattr(collection, "thread_id", None))
            return ToolResult.failure(ToolFailed(f"{self.name} failed because of an error on the server"))
        return result


# A tool's own argument for the version it expects (edit_document's), which
# the call's expected version (If-Match) must not contradict.
EXPECTED_VERSION_ARGUMENT = "expected_version"


def _check_agreement(expected: ExpectedVersions | None, argument: object) -> None:
    """Refuse a call whose expected version (If-Match) and ``expected_version``
    argument no document could meet together: the caller means one of them."""
    if expected is not None and isinstance(argument, int) and not expected.match(argument):
        raise InvalidArguments(
            f"If-Match asks for {expected}, and the argument expected_version for version {argument}: "
            "they disagree, so nothing was changed; give the version in one of them, or the same in both"
        )


def workspace_tool(function: Callable | None = None, *, read_only: bool = False, destructive: bool = True) -> Callable:
    """Declare a method of a tool collection as a tool: ``@workspace_tool``.

    Hints for clients (MCP annotations): ``@workspace_tool(read_only=True)``
    for a tool that changes nothing, ``@workspace_tool(destructive=False)``
    for one that only adds to what exists."""
    if function is None:
        return functools.partial(workspace_tool, read_only=read_only, destructive=destructive)
    if not callable(function):
        raise TypeError(
            "@workspace_tool takes keyword arguments only: write @workspace_tool or @workspace_tool(read_only=True)"
        )
    spec = ToolSpec(function, read_only=read_only, destructive=destructive)

    @functools.wraps(function)
    def call(self, *args, **kwargs) -> dict:
        return spec.invoke(self, args, kwargs).envelope

    call.__signature__ = spec.signature
    call.workspace_tool = spec
    return call


def tools_of(collection: type) -> dict[str, ToolSpec]:
    """The tools a collection class declares (or inherits), by name, in declaration order."""
    members = {}
    for klass in reversed(collection.__mro__):
        members.update(vars(klass))
    return {
        member.workspace_tool.name: member.workspace_tool
        for member in members.values()
        if isinstance(getattr(member, "workspace_tool", None), ToolSpec)
    }
