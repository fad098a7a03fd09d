from ..calls import CallOptions
from .documents import DocumentTools
from .registry import ToolResult, ToolSpec, registered_tools, tools_of, workspace_tool

__all__ = ["CallOptions", "DocumentTools", "ToolResult", "ToolSpec", "registered_tools", "tools_of", "workspace_tool"]
