"""Tools for agents: declare them (``workspace_tool`` on a ``ToolCollection``),
list them (``tools_of``, ``registered_tools``), and call them (each answers a ``ToolResult``)."""

from ..calls import CallOptions
from .collection import ToolCollection
from .decorator import ToolSpec, tools_of, workspace_tool
from .documents import DocumentTools
from .envelope import ToolResult
from .registry import registered_tools

__all__ = [
    "CallOptions",
    "DocumentTools",
    "ToolCollection",
    "ToolResult",
    "ToolSpec",
    "registered_tools",
    "tools_of",
    "workspace_tool",
]
