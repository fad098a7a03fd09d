"""Discovery: the tools of the collections named in ``WORKSPACE_TOOL_COLLECTIONS``,
looked up by name for every transport (HTTP, MCP, LangChain, exports)."""

import functools
from dataclasses import dataclass

from django.utils.module_loading import import_string

from ..conf import conf
from ..documents.calls import CallOptions
from ..exceptions import UnknownTool
from .arguments import shorten
from .decorator import ToolSpec, tools_of
from .envelope import ToolResult


@dataclass(frozen=True)
class RegisteredTool:
    collection: type
    spec: ToolSpec

    def invoke(self, thread_id: str, arguments: dict, options: CallOptions | None = None) -> ToolResult:
        return self.spec.invoke(self.collection(thread_id), (), arguments, options)


def registered_tools() -> dict[str, RegisteredTool]:
    """Every tool of ``WORKSPACE_TOOL_COLLECTIONS``, by name; duplicates are refused."""
    return load_tools(tuple(conf.TOOL_COLLECTIONS))


@functools.lru_cache(maxsize=8)
def load_tools(paths: tuple[str, ...]) -> dict[str, RegisteredTool]:
    registry: dict[str, RegisteredTool] = {}
    for path in paths:
        collection = import_string(path)
        for name, spec in tools_of(collection).items():
            if name in registry:
                raise ValueError(
                    f"tool {name!r} is declared by both {registry[name].collection.__qualname__} "
                    f"and {collection.__qualname__}"
                )
            registry[name] = RegisteredTool(collection, spec)
    return registry


def get_tool(name: str) -> RegisteredTool:
    try:
        return registered_tools()[name]
    except KeyError:
        raise UnknownTool(
            f"unknown tool {shorten(name)!r}; the tools are: {', '.join(sorted(registered_tools()))}"
        ) from None
