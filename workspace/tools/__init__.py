from .documents import DocumentTools
from .registry import ToolResult, ToolSpec, registered_tools, tools_of, workspace_tool

__all__ = ["DocumentTools", "ToolResult", "ToolSpec", "registered_tools", "tools_of", "workspace_tool"]
