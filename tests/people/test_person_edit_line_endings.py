"""A person's edit, PUT threads/<id>/document/, merged by the lines a person
sees, whatever ends them, and keeping the document's line endings: a
browser's text box sends every line ending as LF (docs/http-api.md)."""

import pytest
from django.test import override_settings

from tests.support import stored
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db

URL = "/api/workspace/threads/doc/document/"
WHY = "Testing a person's edits."
WORDS = ["plan", "museum", "beach", "hills", "river", "coast", "market", "park", "bridge", "tower"]
LINES = [f"line {n}: {word}" for n, word in enumerate(WORDS)]


def agent_writes(content):
    assert DocumentTools("doc", actor="planner").update_document(content=content, action_and_reasoning=WHY)["success"]


def put(api, content, version):
    return api.put(URL, {"content": content}, format="json", HTTP_IF_MATCH=f'"{version}"')


def joined(lines, ending):
    return "".join(line + ending for line in lines)


def changed(lines, at, text):
    return [text if n == at else line for n, line in enumerate(lines)]


def test_a_text_box_edit_of_a_crlf_document_merges_with_an_agents_edit_and_keeps_crlf(api, user):
    agent_writes(joined(LINES, "\r\n"))
    agent_writes(joined(changed(LINES, 0, "line 0: PLAN"), "\r\n"))  # version 2: the agent edited line 1
    # the person started from version 1, in a browser's text box: every ending LF; edited line 10
    response = put(api, joined(changed(LINES, 9, "line 9: the tower, at dusk"), "\n"), 1)

    assert response.status_code == 200, response.json()
    assert response.json()["merged"] is True
    expected = joined(changed(changed(LINES, 0, "line 0: PLAN"), 9, "line 9: the tower, at dusk"), "\r\n")
    assert response.json()["content"] == expected
    assert stored("doc")["content"] == expected


def test_a_text_box_save_at_the_current_version_changes_only_the_edited_line(api, user):
    agent_writes(joined(LINES, "\r\n"))
    response = put(api, joined(changed(LINES, 4, "line 4: the river, by boat"), "\n"), 1)

    assert response.status_code == 200 and response.json()["merged"] is False
    assert stored("doc")["content"] == joined(changed(LINES, 4, "line 4: the river, by boat"), "\r\n")


def test_lines_a_person_adds_get_the_documents_ending_and_those_left_keep_theirs(api, user):
    agent_writes("one\r\ntwo\nthree\r\n")  # mostly CR LF, one LF
    response = put(api, "one\ntwo\nnew\nthree\n", 1)

    assert stored("doc")["content"] == "one\r\ntwo\nnew\r\nthree\r\n"
    assert response.json()["merged"] is False


@pytest.mark.parametrize("separator", ["\u2028", "\x85"], ids=["U+2028", "U+0085"])
def test_a_persons_new_lines_never_take_a_separator_markdown_does_not_break_at(api, user, separator):
    agent_writes(f"Intro{separator}still intro{separator}more intro\n")  # mostly separators, one LF
    put(api, f"Intro{separator}still intro{separator}more intro\n\n## New\nmore\n", 1)

    assert stored("doc")["content"] == f"Intro{separator}still intro{separator}more intro\n\n## New\nmore\n"


def test_an_ending_the_person_gave_other_than_lf_is_kept(api, user):
    agent_writes("one\r\ntwo\r\n")
    put(api, "one\rtwo\r\nthree\u2028", 1)  # over the API, not from a text box

    assert stored("doc")["content"] == "one\r\ntwo\r\nthree\u2028"  # "one" left as it was: the document's ending


@pytest.mark.parametrize("ending", ["\r", "\u2028", "\x85"], ids=["CR", "U+2028", "U+0085"])
def test_lines_ended_by_cr_or_unicode_separators_merge_line_by_line(api, user, ending):
    agent_writes(joined(LINES, ending))
    agent_writes(joined(changed(LINES, 0, "line 0: PLAN"), ending))
    response = put(api, joined(changed(LINES, 9, "line 9: TOWER"), ending), 1)

    assert response.status_code == 200, response.json()
    assert response.json()["content"] == joined(changed(changed(LINES, 0, "line 0: PLAN"), 9, "line 9: TOWER"), ending)


def test_u2029_does_not_end_a_line_so_edits_beside_it_conflict(api, user):
    # a text box shows U+2029 as a space, not a break: one line, changed on both sides
    agent_writes("one\u2029two\n")
    agent_writes("ONE\u2029two\n")
    response = put(api, "one\u2029TWO\n", 1)

    assert response.status_code == 409
    assert response.json()["conflicts"] == [
        {"base": "one\u2029two\n", "current": "ONE\u2029two\n", "yours": "one\u2029TWO\n"}
    ]


@override_settings(WORKSPACE_MAX_DOCUMENT_CHARS=100)
def test_an_edit_too_long_once_its_line_endings_are_kept_is_refused_and_changes_nothing(api, user):
    agent_writes("a\r\n" * 20)  # 60 characters
    before = stored("doc")
    response = put(api, "b\n" * 40, 1)  # 80 characters as sent, 120 with the document's CR LF

    assert response.status_code == 400
    assert "the document with its line endings kept would have 120 characters" in response.json()["error"]
    assert stored("doc") == before
