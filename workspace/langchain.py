"""The tools as LangChain ``StructuredTool``s bound to one thread.

Needs ``langchain-core`` (``pip install "django-workspace[langchain]"``)::

    from workspace.langchain import langchain_tools

    tools = langchain_tools("thread-42", actor="agent:writer")
    model = chat_model.bind_tools(tools)  # any LangChain chat model; an agent takes the same list

Each tool takes the arguments of the plain schema (``action_and_reasoning``
included), validated by the tool's own argument model, and answers with
``response_format="content_and_artifact"``: the summary as the message's
content and the whole envelope as its artifact. A failure (bad arguments,
a failed precondition, an edit that found nothing...) becomes a
``ToolMessage`` with ``status="error"`` whose content is the envelope's
error, so that the model reads what to fix. The calls take the same path as
HTTP tool calls: one transaction, a revision with the actor and the reason,
the events. docs/tools.md has an example that runs as printed.
"""

from typing import Any

import pydantic
from langchain_core.tools import StructuredTool, ToolException

from .documents.calls import CallOptions
from .tools.arguments import describe_errors
from .tools.registry import RegisteredTool, registered_tools
from .utils.async_bridge import as_async_request


def langchain_tools(thread_id: str, *, actor: str | None = None) -> list[StructuredTool]:
    """Every registered tool, bound to ``thread_id``; ``actor`` is recorded in each revision."""
    return [_structured_tool(tool, thread_id, CallOptions(actor=actor)) for tool in registered_tools().values()]


def _structured_tool(tool: RegisteredTool, thread_id: str, options: CallOptions) -> StructuredTool:
    def run(**arguments: Any) -> tuple[str, dict[str, Any]]:
        result = tool.invoke(thread_id, arguments, options)
        if not result.succeeded:
            raise ToolException(result.envelope["error"])
        return result.envelope["summary"], result.envelope

    return StructuredTool.from_function(
        func=run,
        coroutine=as_async_request(run),
        name=tool.spec.name,
        description=tool.spec.description,
        args_schema=tool.spec.arguments.model,
        infer_schema=False,
        response_format="content_and_artifact",
        handle_tool_error=True,
        handle_validation_error=lambda error: _describe(error, tool.spec.arguments.names),
    )


def _describe(error: Exception, names: list[str]) -> str:
    """A refused argument in the words of the HTTP API's errors."""
    return describe_errors(error, names) if isinstance(error, pydantic.ValidationError) else str(error)
