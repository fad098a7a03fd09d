"""Tools for agents: declare them (``workspace_tool`` on a ``ToolCollection``),
list them (``tools_of``, ``registered_tools``), and call them (each answers a ``ToolResult``).

- ``decorator``: ``workspace_tool``, a method declared as a tool (``ToolSpec``);
- ``arguments``: the argument model a tool's signature gives, and its errors
  in words an agent acts on;
- ``unit_of_work``: one call, validated and run in one transaction, answered
  with the envelope whatever happens;
- ``envelope``: the answer, ``{success, summary, artifact}`` (``ToolResult``);
- ``collection``: ``ToolCollection``, the base of a thread's tools;
- ``documents``: the app's own ``DocumentTools``;
- ``registry``: the tools of ``WORKSPACE_TOOL_COLLECTIONS``, by name;
- ``exports``: the tools in the shapes OpenAI's and Anthropic's APIs take.

The rules: a call's arguments are its signature's, exactly (no unknown
argument, no coercion), checked before anything runs; one call is one
transaction, and every error, of the tool or of the server, is an envelope
(``unit_of_work``); a call with ``Idempotency-Key`` is applied once.
"""

from ..documents.calls import CallOptions
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
