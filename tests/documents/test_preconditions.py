"""ETag and If-Match: a call applied only to the version its caller read."""

import pytest
from django.db import transaction
from rest_framework.test import APIClient

from tests.support import call_tool, requires_postgresql, run_concurrently, stored
from tests.support.tools import FailingTools
from workspace.documents.repository import WorkspaceRepository
from workspace.exceptions import PreconditionFailed
from workspace.tools import DocumentTools, ToolCollection, workspace_tool

pytestmark = pytest.mark.django_db

WHY = "Precondition test."


call = call_tool


def test_the_document_carries_its_version_as_etag(api):
    DocumentTools("p-1").update_document(content="one", action_and_reasoning=WHY)
    DocumentTools("p-1").append_to_document(text=" two", action_and_reasoning=WHY)
    response = api.get("/api/workspace/threads/p-1/document/")
    assert response["ETag"] == '"2"'


@pytest.mark.parametrize(
    "tool, arguments",
    [
        ("update_document", {"content": "new"}),
        ("append_to_document", {"text": "+"}),
    ],
)
def test_a_matching_if_match_applies_the_call(api, tool, arguments):
    DocumentTools("p-2").update_document(content="old", action_and_reasoning=WHY)
    response = call(api, "p-2", tool, {**arguments, "action_and_reasoning": WHY}, **{"If-Match": '"1"'})
    assert response.status_code == 200, response.json()
    assert stored("p-2")["version"] == 2


@pytest.mark.parametrize(
    "tool, arguments",
    [
        ("update_document", {"content": "new"}),
        ("append_to_document", {"text": "+"}),
        ("append_to_document", {"text": ""}),
    ],
)
def test_a_stale_if_match_is_412_with_the_current_version_and_changes_nothing(api, tool, arguments):
    DocumentTools("p-3").update_document(content="old", action_and_reasoning=WHY)
    DocumentTools("p-3").append_to_document(text="er", action_and_reasoning=WHY)

    response = call(api, "p-3", tool, {**arguments, "action_and_reasoning": WHY}, **{"If-Match": '"1"'})

    assert response.status_code == 412
    assert response.json() == {
        "success": False,
        "error": "the document is at version 2, not the expected version 1; nothing was changed: "
        "read the document again and retry",
        "current_version": 2,
    }
    assert stored("p-3") == {"title": "", "content": "older", "length": 5, "version": 2}


@pytest.mark.parametrize(
    "tool, arguments",
    [
        ("update_document", {"content": "first"}),
        ("append_to_document", {"text": "first"}),
    ],
)
def test_if_match_zero_creates_only_a_new_document(api, tool, arguments):
    body = {**arguments, "action_and_reasoning": WHY}
    assert call(api, "p-4", tool, body, **{"If-Match": '"0"'}).status_code == 200
    again = call(api, "p-4", tool, body, **{"If-Match": '"0"'})
    assert again.status_code == 412
    assert again.json()["current_version"] == 1
    assert stored("p-4")["content"] == "first"


def test_if_match_on_a_missing_document_is_412_with_version_0(api):
    response = call(api, "p-5", "append_to_document", {"text": "x", "action_and_reasoning": WHY}, **{"If-Match": '"3"'})
    assert response.status_code == 412
    assert response.json()["current_version"] == 0
    assert stored("p-5") is None


@pytest.mark.parametrize(
    "value", ['"x"', '"-1"', '""', '"3', "1" * 19, "W/3", '*, "1"', ", ,", ", ".join(['"1"'] * 101)]
)
def test_a_malformed_if_match_is_400(api, value):
    DocumentTools("p-6").update_document(content="old", action_and_reasoning=WHY)
    response = call(
        api, "p-6", "update_document", {"content": "new", "action_and_reasoning": WHY}, **{"If-Match": value}
    )
    assert response.status_code == 400
    assert "If-Match" in response.json()["error"]
    assert stored("p-6")["content"] == "old"


def test_a_tool_that_writes_nothing_still_honours_if_match(api, settings):
    settings.WORKSPACE_TOOL_COLLECTIONS = [
        "workspace.tools.documents.DocumentTools",
        "tests.support.tools.FailingTools",
    ]
    DocumentTools("p-7").update_document(content="old", action_and_reasoning=WHY)
    body = {"points": [1], "action_and_reasoning": WHY}
    assert call(api, "p-7", "make_chart", body, **{"If-Match": '"5"'}).status_code == 412
    assert call(api, "p-7", "make_chart", body, **{"If-Match": '"1"'}).status_code == 200


def test_in_python_expected_version_gives_the_same_guarantee():
    DocumentTools("p-8").update_document(content="old", action_and_reasoning=WHY)
    stale = DocumentTools("p-8", expected_version=0).append_to_document(text="!", action_and_reasoning=WHY)
    assert stale == {
        "success": False,
        "error": "the document is at version 1, not the expected version 0; nothing was changed: "
        "read the document again and retry",
        "current_version": 1,
    }
    fresh = DocumentTools("p-8", expected_version=1).append_to_document(text="!", action_and_reasoning=WHY)
    assert fresh["success"] is True
    assert FailingTools("p-8").make_chart(points=[1], action_and_reasoning=WHY)["success"] is True
    assert stored("p-8")["content"] == "old!"


class TwoWriteTools(ToolCollection):
    @workspace_tool
    def append_twice(self, text: str) -> tuple[str, None]:
        """Append the text twice."""
        WorkspaceRepository.append_document(self.thread_id, text)
        change = WorkspaceRepository.append_document(self.thread_id, text)
        return f"appended ({change.length} chars total)", None


def test_the_expected_version_is_that_of_the_call_s_first_write():
    DocumentTools("p-9").update_document(content="old", action_and_reasoning=WHY)
    envelope = TwoWriteTools("p-9", expected_version=1).append_twice(text="!", action_and_reasoning=WHY)
    assert envelope == {"success": True, "summary": "appended (5 chars total)", "artifact": None}
    stale = TwoWriteTools("p-9", expected_version=1).append_twice(text="?", action_and_reasoning=WHY)
    assert stale["current_version"] == 3
    assert stored("p-9")["content"] == "old!!"


class ConditionalTools(TwoWriteTools):
    @workspace_tool
    def replace_at(self, content: str, version: int) -> tuple[str, None]:
        """Replace the content if the document is at the given version."""
        change = WorkspaceRepository.upsert_document(self.thread_id, content=content, expected_version=version)
        return f"document updated ({change.length} chars)", None

    @workspace_tool
    def start_or_continue(self, text: str) -> tuple[str, None]:
        """Start the document with the text, or add it to the one there is."""
        try:
            with transaction.atomic():  # as the repository's docstring says, to catch its error and go on
                change = WorkspaceRepository.upsert_document(self.thread_id, content=text, expected_version=0)
        except PreconditionFailed:
            change = WorkspaceRepository.append_document(self.thread_id, text)
        return f"{change.length} chars", None


def test_a_tool_may_catch_a_failed_expected_version_inside_atomic_and_go_on():
    for _ in range(2):
        envelope = ConditionalTools("p-12").start_or_continue(text="ab", action_and_reasoning=WHY)
        assert envelope["success"] is True, envelope
    assert stored("p-12") == {"title": "", "content": "abab", "length": 4, "version": 2}


def test_a_tool_s_own_expected_version_and_the_call_s_must_both_hold():
    DocumentTools("p-11").update_document(content="old", action_and_reasoning=WHY)
    for call_expects, tool_expects in ((2, 1), (1, 2)):
        envelope = ConditionalTools("p-11", expected_version=call_expects).replace_at(
            content="new", version=tool_expects, action_and_reasoning=WHY
        )
        assert (envelope["success"], envelope["current_version"]) == (False, 1)
    envelope = ConditionalTools("p-11", expected_version=1).replace_at(
        content="new", version=1, action_and_reasoning=WHY
    )
    assert envelope["success"] is True
    assert stored("p-11") == {"title": "", "content": "new", "length": 3, "version": 2}


@pytest.mark.parametrize("if_match", ["1", '"01"', '"0001"', '"1.0"', "W/1"])
def test_an_entity_tag_this_app_never_hands_out_is_refused_not_read_as_a_version(api, if_match):
    DocumentTools("p-10").update_document(content="old", action_and_reasoning=WHY)
    arguments = {"text": "!", "action_and_reasoning": WHY}
    response = call(api, "p-10", "append_to_document", arguments, **{"If-Match": if_match})
    assert response.status_code == 400
    assert "as the ETag header gives them" in response.json()["error"]
    assert stored("p-10")["content"] == "old"


@pytest.mark.parametrize(
    "tool, arguments",
    [
        ("update_document", {"content": "new"}),
        ("append_to_document", {"text": "+"}),
        ("append_to_document", {"text": ""}),
        ("edit_document", {"old_str": "old", "new_str": "new"}),
    ],
)
def test_if_match_star_applies_the_call_to_any_existing_document_and_is_412_without_one(api, tool, arguments):
    body = {**arguments, "action_and_reasoning": WHY}
    missing = call(api, "p-20", tool, body, **{"If-Match": "*"})
    assert missing.status_code == 412
    assert missing.json() == {
        "success": False,
        "error": "the document is at version 0, not any existing version (If-Match: *); nothing was changed: "
        "read the document again and retry",
        "current_version": 0,
    }
    assert stored("p-20") is None

    DocumentTools("p-20").update_document(content="old", action_and_reasoning=WHY)
    DocumentTools("p-20").append_to_document(text="", action_and_reasoning=WHY)
    assert call(api, "p-20", tool, body, **{"If-Match": " * "}).status_code == 200


def test_a_list_in_if_match_applies_the_call_if_any_of_its_versions_is_the_current_one(api):
    DocumentTools("p-21").update_document(content="a", action_and_reasoning=WHY)
    DocumentTools("p-21").append_to_document(text="b", action_and_reasoning=WHY)
    body = {"text": "c", "action_and_reasoning": WHY}

    stale = call(api, "p-21", "append_to_document", body, **{"If-Match": '"1", "3"'})
    assert stale.status_code == 412
    assert stale.json()["error"].startswith("the document is at version 2, not one of the expected versions 1, 3;")
    assert stale.json()["current_version"] == 2

    assert call(api, "p-21", "append_to_document", body, **{"If-Match": '"1", , "2"'}).status_code == 200
    assert stored("p-21")["content"] == "abc"


def test_a_list_with_version_0_creates_the_document_or_changes_it_at_the_other_versions(api):
    def body(content):  # a new content each time: the same again would change nothing
        return {"content": content, "action_and_reasoning": WHY}

    assert call(api, "p-22", "update_document", body("first"), **{"If-Match": '"0", "1"'}).status_code == 200
    assert call(api, "p-22", "update_document", body("second"), **{"If-Match": '"0", "1"'}).status_code == 200
    assert call(api, "p-22", "update_document", body("third"), **{"If-Match": '"0", "1"'}).status_code == 412
    assert (stored("p-22")["version"], stored("p-22")["content"]) == (2, "second")


@pytest.mark.parametrize("value", ['W/"1"', 'W/"1", W/"2"', 'W/"0"'])
def test_a_weak_if_match_never_matches(api, value):
    DocumentTools("p-23").update_document(content="old", action_and_reasoning=WHY)
    body = {"content": "new", "action_and_reasoning": WHY}
    response = call(api, "p-23", "update_document", body, **{"If-Match": value})
    assert response.status_code == 412
    assert response.json()["current_version"] == 1
    assert stored("p-23")["content"] == "old"
    # A strong tag beside the weak one still matches.
    assert call(api, "p-23", "update_document", body, **{"If-Match": f'{value}, "1"'}).status_code == 200


@pytest.mark.parametrize(
    "if_match, expected_version",
    [('"1"', 2), ('"2"', 1), ("*", 0), ('W/"1"', 1), ('"2", "3"', 1)],
)
def test_if_match_and_an_expected_version_argument_that_disagree_are_400(api, if_match, expected_version):
    DocumentTools("p-24").update_document(content="old", action_and_reasoning=WHY)
    body = {"old_str": "old", "new_str": "new", "expected_version": expected_version, "action_and_reasoning": WHY}
    response = call(api, "p-24", "edit_document", body, **{"If-Match": if_match})
    assert response.status_code == 400
    assert "If-Match" in response.json()["error"] and "expected_version" in response.json()["error"]
    assert stored("p-24")["content"] == "old"
    in_python = DocumentTools("p-24", expected_version=2).edit_document(
        old_str="old", new_str="new", expected_version=1, action_and_reasoning=WHY
    )
    assert "disagree" in in_python["error"]


@pytest.mark.parametrize("if_match", ['"1"', "*", '"1", "2"'])
def test_if_match_and_an_expected_version_argument_that_agree_apply_the_edit(api, if_match):
    DocumentTools("p-25").update_document(content="old", action_and_reasoning=WHY)
    body = {"old_str": "old", "new_str": "new", "expected_version": 1, "action_and_reasoning": WHY}
    assert call(api, "p-25", "edit_document", body, **{"If-Match": if_match}).status_code == 200
    assert stored("p-25") == {"title": "", "content": "new", "length": 3, "version": 2}


@requires_postgresql
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("if_match, winners", [('"7", "1"', 1), ('W/"1", "1"', 1), ("*", 16)])
def test_if_match_lists_and_star_are_checked_under_the_row_lock(token, if_match, winners):
    DocumentTools("p-26").update_document(content="v1", action_and_reasoning=WHY)

    def update(n: int):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        body = {"content": f"writer {n}", "action_and_reasoning": WHY}
        return call(client, "p-26", "update_document", body, **{"If-Match": if_match})

    responses = run_concurrently([lambda n=n: update(n) for n in range(16)])

    assert sorted(response.status_code for response in responses) == [200] * winners + [412] * (16 - winners)
    assert stored("p-26")["version"] == 1 + winners
