"""read_document and edit_document: ranges, exact edits, one revision and one event per edit."""

import pytest

from tests.support import call_tool, requires_postgresql, run_concurrently, stored
from workspace.documents.repository import WorkspaceRepository
from workspace.history import revisions as history
from workspace.models import Revision
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db

WHY = "Document tools test."
PLAN = "# Plan\nbuy milk\ncall Ann\nbuy milk\n"


@pytest.fixture
def plan():
    WorkspaceRepository.upsert_document("d-1", content=PLAN)
    return DocumentTools("d-1")


def test_read_numbers_every_line_after_a_header(plan):
    assert plan.read_document(action_and_reasoning=WHY)["summary"] == (
        "version 1, 34 chars, lines 1-4 of 4\n1\t# Plan\n2\tbuy milk\n3\tcall Ann\n4\tbuy milk"
    )


@pytest.mark.parametrize("start, end, shown", [(2, 3, "2-3"), (3, None, "3-4"), (None, 1, "1-1"), (4, 4, "4-4")])
def test_read_a_range(plan, start, end, shown):
    summary = plan.read_document(start_line=start, end_line=end, action_and_reasoning=WHY)["summary"]
    first, last = map(int, shown.split("-"))
    assert summary.splitlines()[0] == f"version 1, 34 chars, lines {shown} of 4"
    assert [line.split("\t")[0] for line in summary.splitlines()[1:]] == [str(n) for n in range(first, last + 1)]


@pytest.mark.parametrize(
    "start, end, error",
    [
        (3, 2, "start_line 3 is after end_line 2; the lines are 1-4"),
        (5, None, "line 5 is past the last line; the lines are 1-4"),
        (1, 9, "line 9 is past the last line; the lines are 1-4"),
        (0, None, "line 0 is before the first line; the lines are 1-4"),
        (2, -1, "line -1 is before the first line; the lines are 1-4"),
    ],
)
def test_a_range_outside_the_document_names_the_valid_one(plan, start, end, error):
    envelope = plan.read_document(start_line=start, end_line=end, action_and_reasoning=WHY)
    assert envelope == {"success": False, "error": error}


def test_a_huge_line_number_is_not_echoed_whole(plan):
    error = plan.read_document(start_line=10**4000, action_and_reasoning=WHY)["error"]
    assert error.startswith("line 1000") and error.endswith("… is past the last line; the lines are 1-4")
    assert len(error) < 200


def test_reading_a_missing_document_succeeds_and_changes_nothing():
    envelope = DocumentTools("none").read_document(action_and_reasoning=WHY)
    assert envelope == {"success": True, "summary": "the document does not exist yet (version 0)", "artifact": None}
    assert stored("none") is None


def test_reading_records_no_revision(plan):
    plan.read_document(action_and_reasoning=WHY)
    assert Revision.objects.filter(document__thread_id="d-1").count() == 1
    assert stored("d-1")["version"] == 1


def test_an_edit_replaces_the_unique_text_and_shows_where(plan):
    envelope = plan.edit_document(old_str="call Ann", new_str="call Ann and Bo", action_and_reasoning=WHY)
    assert envelope["summary"] == (
        "edited (1 replacement(s); 41 chars total)\n1\t# Plan\n2\tbuy milk\n3\tcall Ann and Bo\n4\tbuy milk"
    )
    assert stored("d-1") == {
        "title": "",
        "content": PLAN.replace("call Ann", "call Ann and Bo"),
        "length": 41,
        "version": 2,
    }
    revision, content = history.revision_with_content(Revision.objects.get(version=2).document_id, 2)
    assert (revision.op, revision.tool, content) == ("edit", "edit_document", stored("d-1")["content"])


def test_text_not_found_verbatim_is_refused_with_the_version(plan):
    envelope = plan.edit_document(old_str="call ann", new_str="x", action_and_reasoning=WHY)
    assert envelope["success"] is False
    assert "did not appear verbatim" in envelope["error"] and "version 1" in envelope["error"]
    assert stored("d-1")["version"] == 1


def test_several_matches_are_refused_with_their_count_and_lines(plan):
    envelope = plan.edit_document(old_str="buy milk", new_str="buy oat milk", action_and_reasoning=WHY)
    assert envelope == {
        "success": False,
        "error": "old_str appears 2 times (lines 2, 4); add surrounding context to make it unique, "
        "or set replace_all to replace every one",
    }
    every = plan.edit_document(old_str="buy milk", new_str="buy oat milk", replace_all=True, action_and_reasoning=WHY)
    assert every["summary"].startswith("edited (2 replacement(s); 42 chars total)")
    assert stored("d-1")["content"].count("buy oat milk") == 2


def test_an_empty_old_str_points_to_append(plan):
    envelope = plan.edit_document(old_str="", new_str="more", action_and_reasoning=WHY)
    assert envelope == {"success": False, "error": "old_str is empty: to add text at the end, use append_to_document"}


def test_an_edit_past_the_size_limit_names_the_limit(plan, settings):
    settings.WORKSPACE_MAX_DOCUMENT_CHARS = 40
    envelope = plan.edit_document(old_str="call Ann", new_str="call Ann and Bo", action_and_reasoning=WHY)
    assert envelope["success"] is False and "the limit of 40" in envelope["error"]
    assert stored("d-1")["content"] == PLAN


def test_expected_version_is_checked_and_a_mismatch_is_412_over_http(api, plan):
    body = {"old_str": "# Plan", "new_str": "# Today", "expected_version": 7, "action_and_reasoning": WHY}
    response = call_tool(api, "d-1", "edit_document", body)
    assert response.status_code == 412
    assert response.json()["current_version"] == 1
    assert stored("d-1")["content"] == PLAN
    assert call_tool(api, "d-1", "edit_document", {**body, "expected_version": 1}).status_code == 200
    assert stored("d-1")["content"].startswith("# Today\n")


@requires_postgresql
@pytest.mark.django_db(transaction=True)
def test_16_concurrent_edits_of_distinct_lines_all_apply():
    WorkspaceRepository.upsert_document("busy-edit", content="".join(f"line {n:02d}\n" for n in range(16)))
    envelopes = run_concurrently(
        [
            lambda n=n: DocumentTools("busy-edit").edit_document(
                old_str=f"line {n:02d}\n", new_str=f"LINE {n:02d}\n", action_and_reasoning=WHY
            )
            for n in range(16)
        ]
    )
    assert all(envelope["success"] for envelope in envelopes), envelopes
    assert stored("busy-edit")["content"] == "".join(f"LINE {n:02d}\n" for n in range(16))
    assert stored("busy-edit")["version"] == 17
    assert Revision.objects.filter(document__thread_id="busy-edit", op="edit").count() == 16


def test_reading_an_empty_document_shows_no_lines():
    # Found by schemathesis: the header's "lines 0-0" was read as line 0 (a server error).
    WorkspaceRepository.upsert_document("empty", content="")
    envelope = DocumentTools("empty").read_document(action_and_reasoning=WHY)
    assert envelope["summary"] == "version 1, 0 chars, lines 0-0 of 0"
