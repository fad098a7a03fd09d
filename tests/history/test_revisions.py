"""GET threads/<id>/revisions/ and revisions/<version>/."""

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from workspace.documents.repository import WorkspaceRepository
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db

WHY = "Revisions API test."
URL = "/api/workspace/threads/r-1/revisions/"


@pytest.fixture
def written():
    DocumentTools("r-1", actor="agent-owner").update_document(
        content="# Notes\n", title="Notes", action_and_reasoning="Start."
    )
    for n in range(4):
        DocumentTools("r-1", actor="agent-owner").append_to_document(text=f"- {n}\n", action_and_reasoning=f"Item {n}.")
    WorkspaceRepository.restore("r-1", 2, actor="editor", reason="Back to one item.")


def test_the_list_gives_every_field_but_the_text_in_version_order(api, written):
    response = api.get(URL)
    assert response.status_code == 200
    body = response.json()
    assert body["next"] is None
    assert [item["version"] for item in body["results"]] == [1, 2, 3, 4, 5, 6]
    second = body["results"][1]
    assert set(second) == {
        "version",
        "op",
        "title",
        "length",
        "action_and_reasoning",
        "actor",
        "tool",
        "source",
        "restored_from",
        "reviewed_by",
        "proposal",
        "created_at",
    }
    assert {k: v for k, v in second.items() if k != "created_at"} == {
        "version": 2,
        "op": "append",
        "title": "Notes",
        "length": 12,
        "action_and_reasoning": "Item 0.",
        "actor": "agent-owner",
        "tool": "append_to_document",
        "source": "agent",
        "restored_from": None,
        "reviewed_by": None,
        "proposal": None,
    }
    assert body["results"][5]["op"] == "restore" and body["results"][5]["restored_from"] == 2


def test_the_list_pages_with_after_and_limit(api, written):
    first = api.get(URL, {"limit": 2}).json()
    assert [item["version"] for item in first["results"]] == [1, 2]
    assert first["next"] == "http://testserver/api/workspace/threads/r-1/revisions/?limit=2&after=2"
    second = api.get(first["next"]).json()
    assert [item["version"] for item in second["results"]] == [3, 4]
    last = api.get(URL, {"after": 4, "limit": 2}).json()
    assert [item["version"] for item in last["results"]] == [5, 6] and last["next"] is None


@pytest.mark.parametrize(
    "query", [{"after": "-1"}, {"after": "x"}, {"limit": "0"}, {"limit": "1001"}, {"limit": "1.5"}]
)
def test_bad_after_or_limit_is_400(api, written, query):
    response = api.get(URL, query)
    assert response.status_code == 400
    assert list(query)[0] in response.json()["error"]


def test_one_revision_carries_the_content_then_and_an_append_its_text(api, written):
    append = api.get(f"{URL}3/").json()
    assert append["content"] == "# Notes\n- 0\n- 1\n"
    assert append["text"] == "- 1\n"
    update = api.get(f"{URL}1/").json()
    assert update["content"] == "# Notes\n" and "text" not in update
    restore = api.get(f"{URL}6/").json()
    assert restore["content"] == "# Notes\n- 0\n" and restore["actor"] == "editor"


@pytest.mark.parametrize("path, status", [("99/", 404), ("x/", 400), ("-1/", 400)])
def test_a_missing_or_bad_version_is_refused(api, written, path, status):
    assert api.get(f"{URL}{path}").status_code == status


def test_a_thread_without_a_document_has_no_revisions(api):
    assert api.get("/api/workspace/threads/none-yet/revisions/").status_code == 404


def test_revisions_need_authentication_and_the_policy(api, written):
    assert APIClient().get(URL).status_code == 401
    with override_settings(WORKSPACE_ACCESS_POLICY="tests.http.test_access.only_thread_mine"):
        assert api.get(URL).status_code == 403
        assert api.get(f"{URL}1/").status_code == 403


@pytest.mark.parametrize("query", ["after=1&after=2", "limit=5&limit=6"])
def test_a_repeated_parameter_is_400(api, written, query):
    response = api.get(f"{URL}?{query}")
    assert response.status_code == 400
    assert "once" in response.json()["error"]
