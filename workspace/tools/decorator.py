"""Declaring tools: ``@workspace_tool`` makes a method of a tool collection a
tool, whose one function signature gives its argument validation, the JSON
Schema shown to agents, and the envelope it answers with; ``tools_of`` lists
the tools a collection declares.

A tool is a method of a collection bound to one thread (``ToolCollection``).
It returns ``(content, artifact)``; callers get
``{"success": true, "summary": content, "artifact": artifact}`` or, on any
error, ``{"success": false, "error": message}`` with nothing changed. Each
call runs as one unit of work (``unit_of_work``).
"""

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ..deprecation import moved_names
from ..documents.calls import CallOptions
from .arguments import Arguments
from .envelope import ToolResult
from .unit_of_work import run_tool_call


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
        """Validate, run in one transaction, and answer with the envelope; never raises
        (``unit_of_work.run_tool_call``)."""
        return run_tool_call(self, collection, args, kwargs, options)


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
    def call(self: Any, *args: Any, **kwargs: Any) -> dict:
        return spec.invoke(self, args, kwargs).envelope

    declared: Any = call  # a function given attributes functools.wraps's type does not know
    declared.__signature__ = spec.signature
    declared.workspace_tool = spec
    return declared


def tools_of(collection: type) -> dict[str, ToolSpec]:
    """The tools a collection class declares (or inherits), by name, in declaration order."""
    members: dict[str, object] = {}
    for klass in reversed(collection.__mro__):
        members.update(vars(klass))
    specs = [getattr(member, "workspace_tool", None) for member in members.values()]
    return {spec.name: spec for spec in specs if isinstance(spec, ToolSpec)}


__getattr__ = moved_names(
    __name__,
    {"EXPECTED_VERSION_ARGUMENT": "workspace.tools.unit_of_work.EXPECTED_VERSION_ARGUMENT"},
)
