"""Every surface an agent writes through proposes instead when the document
is in review, and writes directly when it is not: MCP through the official
client against a real server, and LangChain's tools in process (HTTP and
plain Python: ``test_proposals``)."""

import pytest
from langchain_core.messages import ToolCall

from tests.support import stored
from tests.support.mcp import connect, run
from workspace.documents.repository import WorkspaceRepository
from workspace.langchain import langchain_tools
from workspace.models import Proposal

WHY = "Writing from another surface."


@pytest.mark.django_db(transaction=True)
def test_mcp_tool_calls_propose_in_review_and_write_when_it_is_off(server, token):
    thread = "mcp-review"
    WorkspaceRepository.set_review(thread, True, actor="alice")

    async def call(content):
        async with connect(server, token, thread) as client:
            return await client.call_tool("update_document", {"content": content, "action_and_reasoning": WHY})

    proposed = run(call("proposed text\n"))
    proposal = Proposal.objects.get(thread_id=thread)
    assert proposed.is_error is False
    assert proposed.structured_content["summary"] == (
        f"proposed (14 chars): waits for review as proposal {proposal.pk}; the document is unchanged at version 1"
    )
    assert stored(thread)["content"] == ""

    WorkspaceRepository.set_review(thread, False, actor="alice")
    written = run(call("written text\n"))
    assert written.structured_content["summary"] == "document updated (13 chars)"
    assert stored(thread)["content"] == "written text\n"
    assert Proposal.objects.filter(thread_id=thread).count() == 1


@pytest.mark.django_db
def test_langchain_tool_calls_propose_in_review_and_write_when_it_is_off():
    thread = "lc-review"
    tools = {tool.name: tool for tool in langchain_tools(thread, actor="agent:lc")}
    append = tools["append_to_document"]

    def invoke(text):
        return append.invoke(
            ToolCall(name=append.name, args={"text": text, "action_and_reasoning": WHY}, id="c", type="tool_call")
        )

    invoke("first\n")
    WorkspaceRepository.set_review(thread, True, actor="alice")
    message = invoke("second\n")
    proposal = Proposal.objects.get(thread_id=thread)
    assert message.status == "success"
    assert message.content == (
        f"proposed (13 chars total): waits for review as proposal {proposal.pk}; the document is unchanged at version 1"
    )
    assert (proposal.actor, proposal.tool, proposal.text) == ("agent:lc", "append_to_document", "second\n")
    assert stored(thread)["content"] == "first\n"
    WorkspaceRepository.set_review(thread, False, actor="alice")
    assert invoke("third\n").content == "appended (12 chars total)"
