"""The write path's rules as data, and the old paths of names that moved."""

from typing import Annotated

import pytest
from pydantic import Field

from workspace.documents import calls, repository
from workspace.documents.preconditions import ExpectedVersions, parse_idempotency_key, parse_if_match
from workspace.documents.repository import WorkspaceRepository
from workspace.exceptions import InvalidArguments
from workspace.history import snapshot_policy
from workspace.tools import ToolCollection, decorator, documents, unit_of_work, workspace_tool


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ('"3"', ExpectedVersions.exactly(3)),
        (' "3", ,"4" ', ExpectedVersions(versions=frozenset({3, 4}))),
        ("*", ExpectedVersions(any_existing=True)),
        ('W/"3"', ExpectedVersions()),
    ],
)
def test_if_match_is_read_as_rfc_9110_says(value, expected):
    assert parse_if_match(value) == expected


@pytest.mark.parametrize("value", ["", "abc", '"3" "4"', '"-1"', ", ".join(['"1"'] * 101), " " * 4097 + "*"])
def test_a_malformed_if_match_is_refused(value):
    with pytest.raises(InvalidArguments, match="If-Match must be"):
        parse_if_match(value)


def test_an_idempotency_key_is_printable_ascii():
    assert parse_idempotency_key("k-1") == "k-1" and parse_idempotency_key(None) is None
    with pytest.raises(InvalidArguments, match="Idempotency-Key must be"):
        parse_idempotency_key("é")


def test_a_call_hands_its_precondition_to_the_first_claim_only():
    call = calls.ToolCall(tool="t", reason="r", actor=None, expected_version=ExpectedVersions.exactly(2))
    with calls.calling(call):
        first, second = calls.write_context(), calls.write_context(reason="mine")
    assert (first.expected, second.expected) == (ExpectedVersions.exactly(2), None)
    assert second.author == calls.Author(reason="mine", actor=None, tool="t", proposes=True) and second.in_tool_call
    assert calls.write_context() == calls.WriteContext(calls.Author(reason="", actor=None, tool=None))


def test_tool_collection_keeps_the_call_options():
    tools = ToolCollection("t-1", actor="ann", expected_version=3, idempotency_key="k")
    assert tools.thread_id == "t-1"
    assert tools.call_options == calls.CallOptions(actor="ann", expected_version=3, idempotency_key="k")


@pytest.mark.parametrize(
    ("module", "name", "now"),
    [
        (calls, "making", calls.calling),
        (repository, "SNAPSHOT_EVERY_CHANGES", snapshot_policy.SNAPSHOT_EVERY_CHANGES),
        (repository, "SPLICE_RUN_MIN", snapshot_policy.SPLICE_RUN_MIN),
        (decorator, "EXPECTED_VERSION_ARGUMENT", unit_of_work.EXPECTED_VERSION_ARGUMENT),
        (documents, "FROM_1", documents.LINE_NUMBER_SCHEMA),
    ],
)
def test_a_moved_name_still_works_with_a_deprecation_warning(module, name, now):
    with pytest.warns(DeprecationWarning, match=name):
        assert getattr(module, name) == now


class NoteTools(ToolCollection):
    """The example of ToolCollection's docstring."""

    @workspace_tool(destructive=False)
    def add_note(self, note: Annotated[str, Field(description="One line to add.")]) -> tuple[str, None]:
        """Add a line at the end of the thread's document."""
        change = WorkspaceRepository.append_document(self.thread_id, note + "\n")
        return f"noted (version {change.version})", None


@pytest.mark.django_db
def test_a_host_collection_written_as_the_docstring_shows_works():
    envelope = NoteTools("t-1", actor="ann").add_note(note="Buy milk", action_and_reasoning="The user asked.")
    assert envelope == {"success": True, "summary": "noted (version 1)", "artifact": None}
    assert WorkspaceRepository.get_document("t-1").content == "Buy milk\n"
    assert NoteTools("t-1", expected_version=5).add_note(note="x", action_and_reasoning="w")["success"] is False
