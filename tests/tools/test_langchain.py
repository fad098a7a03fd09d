"""The tools as LangChain ``StructuredTool``s: langchain-tests' standard
classes, then what an agent sees (content, artifact, errors) and what is
recorded."""

import pytest
from langchain_core.messages import ToolCall
from langchain_tests.integration_tests import ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

from tests.support import stored
from workspace.langchain import langchain_tools
from workspace.models import Revision

WHY = "Writing what the user asked for."


def bound(name: str, thread_id: str = "lc-standard"):
    return {tool.name: tool for tool in langchain_tools(thread_id, actor="agent:lc")}[name]


class AppendExample:
    @property
    def tool_constructor(self):
        return bound("append_to_document")

    @property
    def tool_invoke_params_example(self):
        return {"text": "a line\n", "action_and_reasoning": WHY}


class ReadExample:
    @property
    def tool_constructor(self):
        return bound("read_document")

    @property
    def tool_invoke_params_example(self):
        return {"start_line": None, "end_line": None, "action_and_reasoning": "Checking what is there."}


class TestAppendUnit(AppendExample, ToolsUnitTests):
    pass


@pytest.mark.django_db(transaction=True)  # the async tests run the tool in another thread
class TestAppendIntegration(AppendExample, ToolsIntegrationTests):
    pass


class TestReadUnit(ReadExample, ToolsUnitTests):
    pass


@pytest.mark.django_db(transaction=True)
class TestReadIntegration(ReadExample, ToolsIntegrationTests):
    pass


def invoke(tool, args):
    return tool.invoke(ToolCall(name=tool.name, args=args, id="call-1", type="tool_call"))


@pytest.mark.django_db
def test_a_call_answers_the_summary_with_the_envelope_as_artifact_and_records_the_actor():
    tools = {tool.name: tool for tool in langchain_tools("lc-1", actor="agent:lc")}
    assert list(tools) == ["update_document", "append_to_document", "read_document", "edit_document"]
    message = invoke(tools["update_document"], {"content": "one\ntwo\n", "action_and_reasoning": WHY})
    assert message.status == "success"
    assert message.content == "document updated (8 chars)"
    assert message.artifact == {"success": True, "summary": "document updated (8 chars)", "artifact": None}
    message = invoke(tools["read_document"], {"start_line": 2, "action_and_reasoning": WHY})
    assert message.content == "version 1, 8 chars, lines 2-2 of 2\n2\ttwo"
    revision = Revision.objects.get(document__thread_id="lc-1")
    assert (revision.actor, revision.tool, revision.action_and_reasoning) == ("agent:lc", "update_document", WHY)


@pytest.mark.django_db
def test_a_failure_is_an_error_message_that_says_what_to_fix_and_changes_nothing():
    edit = bound("edit_document", "lc-2")
    invoke(bound("update_document", "lc-2"), {"content": "alpha", "action_and_reasoning": WHY})
    message = invoke(edit, {"old_str": "beta", "new_str": "gamma", "action_and_reasoning": WHY})
    assert message.status == "error"
    assert "did not appear verbatim" in message.content
    assert stored("lc-2")["content"] == "alpha"


@pytest.mark.django_db
def test_arguments_are_validated_by_the_tools_own_model():
    append = bound("append_to_document", "lc-3")
    message = invoke(append, {"text": 42, "action_and_reasoning": WHY})
    assert message.status == "error"
    assert message.content == "argument 'text': Input should be a valid string, got integer"
    message = invoke(append, {"text": "x", "action_and_reasoning": "   "})
    assert message.content == "argument 'action_and_reasoning': must say what you are doing and why; it is blank"
    message = invoke(append, {"text": "x", "action_and_reasoning": WHY, "extra": 1})
    assert message.status == "error"
    assert "unknown argument 'extra'" in message.content
    assert stored("lc-3") is None


def test_the_model_sees_the_arguments_of_the_plain_schema():
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from workspace.tools.registry import registered_tools

    for tool in langchain_tools("lc-4"):
        function = convert_to_openai_tool(tool)["function"]
        plain = registered_tools()[tool.name].spec.parameters_schema
        assert function["description"] == registered_tools()[tool.name].spec.description
        for name, value in function["parameters"]["properties"].items():
            assert value["description"] == plain["properties"][name]["description"]
        assert list(function["parameters"]["properties"]) == list(plain["properties"])
        assert function["parameters"]["required"] == plain["required"]
