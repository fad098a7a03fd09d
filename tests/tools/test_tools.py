import inspect
import logging
import re

import pytest

from tests.support import call_tool, stored
from tests.support.tools import FailingTools
from workspace.exceptions import InvalidArguments, WorkspaceError
from workspace.models import Revision
from workspace.signals import artifact_produced
from workspace.tools import DocumentTools, tools_of, workspace_tool

pytestmark = pytest.mark.django_db

WHY = "Writing the plan the user asked for."


@pytest.fixture
def announced():
    """Every artifact_produced announcement during the test, as (thread_id, tool, artifact)."""
    received = []

    def receiver(sender, thread_id, tool, artifact, **kwargs):
        received.append((thread_id, tool, artifact))

    artifact_produced.connect(receiver)
    yield received
    artifact_produced.disconnect(receiver)


def test_update_document_envelope_and_summary_count_code_points():
    tools = DocumentTools("t-1")
    envelope = tools.update_document(content="Plan 😀 計画", title="Plan", action_and_reasoning=WHY)
    assert envelope == {"success": True, "summary": "document updated (9 chars)", "artifact": None}
    assert stored("t-1") == {"title": "Plan", "content": "Plan 😀 計画", "length": 9, "version": 1}


def test_append_to_document_creates_then_reports_the_total():
    tools = DocumentTools("t-1")
    assert tools.append_to_document(text="漢字", action_and_reasoning=WHY) == {
        "success": True,
        "summary": "appended (2 chars total)",
        "artifact": None,
    }
    assert tools.append_to_document(text=" 🎉🎉", action_and_reasoning=WHY)["summary"] == "appended (5 chars total)"
    assert stored("t-1")["content"] == "漢字 🎉🎉"


def test_title_is_kept_when_omitted_or_null_and_emptied_when_empty():
    tools = DocumentTools("t-1")
    tools.update_document(content="a", title="First", action_and_reasoning=WHY)
    tools.update_document(content="b", action_and_reasoning=WHY)
    assert stored("t-1")["title"] == "First"
    tools.update_document(content="c", title=None, action_and_reasoning=WHY)
    assert stored("t-1")["title"] == "First"
    tools.update_document(content="d", title="", action_and_reasoning=WHY)
    assert stored("t-1") == {"title": "", "content": "d", "length": 1, "version": 4}


def test_tools_accept_positional_arguments_from_python():
    tools = DocumentTools("t-1")
    assert tools.update_document("abc", "T", action_and_reasoning=WHY)["success"] is True
    assert tools.append_to_document("d", action_and_reasoning=WHY)["summary"] == "appended (4 chars total)"
    failure = tools.append_to_document("d", "e", action_and_reasoning=WHY)
    assert failure == {"success": False, "error": "append_to_document takes at most 1 positional arguments, got 2"}


@pytest.mark.parametrize(
    "arguments, error",
    [
        ({"content": "x"}, "missing required argument 'action_and_reasoning'"),
        (
            {"content": "x", "action_and_reasoning": ""},
            "argument 'action_and_reasoning': String should have at least 1 character",
        ),
        (
            {"content": "x", "action_and_reasoning": "  "},
            "argument 'action_and_reasoning': must say what you are doing and why",
        ),
        (
            {"content": 5, "action_and_reasoning": WHY},
            "argument 'content': Input should be a valid string, got integer",
        ),
        (
            {"content": None, "action_and_reasoning": WHY},
            "argument 'content': Input should be a valid string, got null",
        ),
        (
            {"content": "x", "title": 3, "action_and_reasoning": WHY},
            "argument 'title': Input should be a valid string, got integer",
        ),
        (
            {"content": "x", "title": "t" * 256, "action_and_reasoning": WHY},
            "argument 'title': String should have at most 255 characters",
        ),
        ({"content": "x", "thread_id": "other", "action_and_reasoning": WHY}, "unknown argument 'thread_id'"),
        ({"content": "a\x00", "action_and_reasoning": WHY}, "argument 'content': contains the NUL character"),
        (
            {"content": "a", "action_and_reasoning": "why\x00"},
            "argument 'action_and_reasoning': contains the NUL character",
        ),
        ({"action_and_reasoning": WHY}, "missing required argument 'content'"),
    ],
)
def test_invalid_arguments_give_a_failure_envelope_and_change_nothing(arguments, error):
    tools = DocumentTools("t-1")
    tools.update_document(content="original", title="T", action_and_reasoning=WHY)

    envelope = tools.update_document(**arguments)

    assert envelope["success"] is False and set(envelope) == {"success", "error"}
    assert error in envelope["error"]
    assert stored("t-1") == {"title": "T", "content": "original", "length": 8, "version": 1}


def test_a_bad_thread_id_gives_a_failure_envelope():
    envelope = DocumentTools("no spaces").append_to_document(text="x", action_and_reasoning=WHY)
    assert envelope["success"] is False
    assert "invalid thread_id 'no spaces'" in envelope["error"]


def test_an_unexpected_error_after_a_write_rolls_it_back_and_is_logged(caplog):
    DocumentTools("t-1").update_document(content="before", action_and_reasoning=WHY)

    with caplog.at_level(logging.ERROR, logger="workspace"):
        envelope = FailingTools("t-1").append_then_crash(text=" after", action_and_reasoning=WHY)

    assert envelope == {"success": False, "error": "append_then_crash failed because of an error on the server"}
    assert stored("t-1") == {"title": "", "content": "before", "length": 6, "version": 1}
    assert "RuntimeError: boom" in caplog.text  # the traceback reaches the server log


def test_a_refusal_after_a_write_rolls_it_back_and_says_why():
    envelope = FailingTools("t-1").append_then_refuse(text="x", action_and_reasoning=WHY)
    assert envelope == {"success": False, "error": "text is not allowed after all"}
    assert stored("t-1") is None


class CalendarLocked(WorkspaceError, status=423, code="calendar_locked", retry_after=30):
    """A host's own error: its status, code and Retry-After on its class line."""


class CalendarTools:
    def __init__(self, thread_id):
        self.thread_id = thread_id

    @workspace_tool
    def book(self, day: str) -> tuple[str, None]:
        """Book a day, unless the calendar is locked."""
        raise CalendarLocked(f"{day} is being booked by someone else")


def test_a_hosts_own_error_answers_with_the_status_code_and_retry_its_class_line_names(api, settings):
    settings.WORKSPACE_TOOL_COLLECTIONS = [
        "workspace.tools.documents.DocumentTools",
        "tests.tools.test_tools.CalendarTools",
    ]
    answer = call_tool(api, "t-10", "book", {"day": "Monday", "action_and_reasoning": WHY})
    assert (answer.status_code, answer.json(), answer["Retry-After"]) == (
        423,
        {"success": False, "error": "Monday is being booked by someone else"},
        "30",
    )
    assert (CalendarLocked.status_code, CalendarLocked.default_code) == (423, "calendar_locked")
    assert (InvalidArguments.status_code, InvalidArguments.default_code, InvalidArguments.retry_after) == (
        400,
        "invalid_arguments",
        None,
    )


def test_a_returned_artifact_is_in_the_envelope_and_announced(announced):
    envelope = FailingTools("t-9").make_chart(points=[1, 2], action_and_reasoning=WHY)

    assert envelope == {
        "success": True,
        "summary": "chart of 2 points",
        "artifact": {"kind": "chart", "points": [1, 2]},
    }
    assert announced == [("t-9", "make_chart", {"kind": "chart", "points": [1, 2]})]


def test_document_tools_announce_no_artifact(announced):
    DocumentTools("t-1").update_document(content="x", action_and_reasoning=WHY)
    DocumentTools("t-1").append_to_document(text="y", action_and_reasoning=WHY)
    assert announced == []


def test_descriptions_are_the_seed_wording():
    tools = tools_of(DocumentTools)
    assert list(tools) == ["update_document", "append_to_document", "read_document", "edit_document"]
    assert tools["update_document"].description == "Replace the full content of the shared working document."
    assert tools["append_to_document"].description == "Append a chunk of text to the shared working document."


def test_the_schema_comes_from_the_signature_with_action_and_reasoning_injected():
    schema = tools_of(DocumentTools)["update_document"].describe()["parameters"]
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert list(schema["properties"]) == ["content", "title", "action_and_reasoning"]
    assert schema["required"] == ["content", "action_and_reasoning"]
    assert schema["properties"]["action_and_reasoning"]["type"] == "string"
    assert {"type": "string", "maxLength": 255} in schema["properties"]["title"]["anyOf"]

    signature = inspect.signature(DocumentTools.update_document)
    assert signature.parameters["action_and_reasoning"].kind is inspect.Parameter.KEYWORD_ONLY


def test_a_tool_may_not_declare_action_and_reasoning():
    with pytest.raises(TypeError, match="must not declare 'action_and_reasoning'"):

        @workspace_tool
        def tool(self, action_and_reasoning: str):
            """Doc."""


def test_a_tool_needs_a_description_and_annotations():
    with pytest.raises(TypeError, match="needs a docstring"):

        @workspace_tool
        def undocumented(self, text: str):
            pass

    with pytest.raises(TypeError, match="argument 'text' needs a type annotation"):

        @workspace_tool
        def unannotated(self, text):
            """Doc."""


def test_the_decorator_given_a_positional_argument_says_how_to_use_it():
    with pytest.raises(TypeError, match="keyword arguments only: write @workspace_tool or"):
        workspace_tool("read_only")


def test_a_tool_that_touches_no_document_still_refuses_a_bad_thread_id(announced):
    envelope = FailingTools("bad id!").make_chart(points=[1], action_and_reasoning=WHY)
    assert envelope["success"] is False
    assert "invalid thread_id 'bad id!'" in envelope["error"]
    assert announced == []


@pytest.mark.parametrize("labels", [{"a": ["ok", "x\x00"]}, {"a\x00": []}, {"a": ["\ud800"]}])
def test_unstorable_strings_are_refused_however_deep(labels):
    envelope = FailingTools("t-1").tag(labels=labels, action_and_reasoning=WHY)
    assert envelope["success"] is False
    assert envelope["error"].startswith("argument 'labels': contains ")


def test_action_and_reasoning_is_recorded_with_the_change():
    DocumentTools("t-1", actor="planner").append_to_document(text="x", action_and_reasoning="Noting the user's budget.")
    revision = Revision.objects.get(document__thread_id="t-1")
    assert (revision.action_and_reasoning, revision.actor, revision.tool) == (
        "Noting the user's budget.",
        "planner",
        "append_to_document",
    )


def test_action_and_reasoning_is_bounded():
    envelope = DocumentTools("t-1").append_to_document(text="x", action_and_reasoning="why " * 1001)
    assert envelope == {
        "success": False,
        "error": "argument 'action_and_reasoning': String should have at most 4000 characters",
    }
    assert stored("t-1") is None


@pytest.mark.parametrize("reason", [" ", "\t\n\r", "\x0b\x0c ", "\x1f", "\u3000", "ok"])
def test_the_schema_and_the_check_agree_on_what_a_blank_reason_is(reason):
    # Found by schemathesis: "\x1f" passed the schema's pattern and failed Python's str.strip() check.
    pattern = tools_of(DocumentTools)["append_to_document"].parameters_schema["properties"]["action_and_reasoning"]
    envelope = DocumentTools("t-1").append_to_document(text="x", action_and_reasoning=reason)
    assert envelope["success"] is bool(re.search(pattern["pattern"], reason))
