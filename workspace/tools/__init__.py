from ..calls import CallOptions
from .decorator import ToolSpec, tools_of, workspace_tool
from .documents import DocumentTools
from .envelope import ToolResult
from .registry import registered_tools

__all__ = ["CallOptions", "DocumentTools", "ToolResult", "ToolSpec", "registered_tools", "tools_of", "workspace_tool"]
