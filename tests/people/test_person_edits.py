"""A person's edit, PUT threads/<id>/document/: applied at the
current version, merged three ways from an older kept one, refused on a
conflict (409) or a version not kept (412), and nothing changed whenever refused."""

import json

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.support import stored
from workspace.documents.repository import WorkspaceRepository
from workspace.models import IdempotencyRecord, Revision
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db

URL = "/api/workspace/threads/doc/document/"
WHY = "Testing a person's edits."
START = "# Plan\nday one: museum\nday two: beach\nday three: hills\n"


@pytest.fixture
def written(user):
    """thread "doc" at version 1, written by an agent."""
    DocumentTools("doc", actor="planner").update_document(content=START, title="Plan", action_and_reasoning=WHY)


def put(client, body, version=None, **headers):
    if version is not None:
        headers["HTTP_IF_MATCH"] = f'"{version}"'
    return client.put(URL, body, format="json", **headers)


def agent_appends(text):
    assert DocumentTools("doc", actor="planner").append_to_document(text=text, action_and_reasoning=WHY)["success"]


def newest():
    return Revision.objects.filter(document__thread_id="doc").order_by("-version").first()


def test_an_edit_at_the_current_version_is_applied_as_the_persons(api, written):
    response = put(api, {"content": START.replace("museum", "castle")}, 1)

    assert response.status_code == 200
    body = response.json()
    assert body["merged"] is False
    assert (body["content"], body["title"], body["version"]) == (START.replace("museum", "castle"), "Plan", 2)
    assert response["ETag"] == '"2"'
    revision = newest()
    assert (revision.op, revision.source, revision.tool, revision.actor) == ("update", "person", None, "agent-owner")
    assert revision.action_and_reasoning == "Edited by agent-owner."


def test_the_title_and_the_reason_are_taken_when_given(api, written):
    response = put(api, {"content": "new", "title": "Trip", "action_and_reasoning": "Shorter."}, 1)
    assert response.json()["title"] == "Trip"
    assert newest().action_and_reasoning == "Shorter."


def test_an_edit_from_an_older_version_is_merged_with_an_agents_append(api, written):
    agent_appends("day four: market\n")
    response = put(api, {"content": START.replace("beach", "river")}, 1)

    assert response.status_code == 200
    assert response.json()["merged"] is True
    expected = START.replace("beach", "river") + "day four: market\n"
    assert response.json()["content"] == expected
    assert stored("doc")["content"] == expected and stored("doc")["version"] == 3
    assert response["ETag"] == '"3"'
    assert (newest().op, newest().source) == ("update", "person")


def test_edits_of_different_lines_merge_and_titles_too(api, written):
    DocumentTools("doc").edit_document(old_str="museum", new_str="gallery", action_and_reasoning=WHY)
    DocumentTools("doc").update_document(
        content=stored("doc")["content"], title="Lisbon", action_and_reasoning="Rename."
    )
    response = put(api, {"content": START.replace("hills", "coast"), "title": "Plan"}, 1)

    assert response.status_code == 200
    body = response.json()
    assert body["content"] == START.replace("museum", "gallery").replace("hills", "coast")
    assert body["title"] == "Lisbon"  # only the agent changed it


def test_overlapping_edits_conflict_and_change_nothing(api, written):
    DocumentTools("doc").edit_document(old_str="beach", new_str="surf", action_and_reasoning=WHY)
    before = stored("doc")
    response = put(api, {"content": START.replace("beach", "boat")}, 1)

    assert response.status_code == 409
    body = response.json()
    assert body["success"] is False and body["current_version"] == 2
    assert body["conflicts"] == [{"base": "day two: beach\n", "current": "day two: surf\n", "yours": "day two: boat\n"}]
    assert stored("doc") == before
    assert Revision.objects.filter(document__thread_id="doc").count() == 2


def test_a_conflict_over_400_000_lines_answers_a_bounded_409(api, user):
    base = "a\n" * 400_000
    DocumentTools("doc").update_document(content=base, action_and_reasoning=WHY)
    DocumentTools("doc").update_document(content="b\n" * 400_000, action_and_reasoning=WHY)
    response = put(api, {"content": "c\n" * 400_000}, 1)
    assert response.status_code == 409
    assert len(response.content) < 100_000
    (conflict,) = response.json()["conflicts"]
    assert conflict["truncated"] is True
    assert conflict["base"].startswith("a\na\n") and conflict["yours"].startswith("c\nc\n")
    assert stored("doc")["version"] == 2


def test_a_title_changed_on_both_sides_conflicts(api, written):
    DocumentTools("doc").update_document(content=START, title="Agent's", action_and_reasoning=WHY)
    response = put(api, {"content": START, "title": "Mine"}, 1)
    assert response.status_code == 409
    assert response.json()["conflicts"] == [{"base": "Plan", "current": "Agent's", "yours": "Mine"}]


@pytest.mark.parametrize("version", [2, 99])
def test_a_version_newer_than_the_current_is_412(api, written, version):
    response = put(api, {"content": "x"}, version)
    assert response.status_code == 412
    assert response.json()["current_version"] == 1
    assert stored("doc")["content"] == START


def test_a_pruned_version_is_412(api, written):
    agent_appends("more\n")
    Revision.objects.filter(document__thread_id="doc", version=1).delete()
    response = put(api, {"content": "x"}, 1)
    assert response.status_code == 412
    assert response.json()["current_version"] == 2
    assert "no longer kept" in response.json()["error"]
    assert stored("doc")["version"] == 2


def test_without_if_match_the_edit_is_428(api, written):
    response = put(api, {"content": "x"})
    assert response.status_code == 428
    assert response.json()["success"] is False and "If-Match" in response.json()["error"]
    assert stored("doc")["content"] == START


@pytest.mark.parametrize("if_match", ["seven", '"1", "2"', "*", 'W/"1"'])
def test_a_malformed_if_match_is_400(api, written, if_match):
    response = api.put(URL, {"content": "x"}, format="json", HTTP_IF_MATCH=if_match)
    assert response.status_code == 400
    assert stored("doc")["content"] == START


@pytest.mark.parametrize(
    "body, message",
    [
        ({}, "content is required"),
        ({"content": 5}, "content must be a string"),
        ({"content": "x", "title": 5}, "title must be a string"),
        ({"content": None}, "content must be a string"),
        ({"content": "x", "action_and_reasoning": "a\x00b"}, "NUL"),
        ({"content": "x", "action_and_reasoning": "y" * 1001}, "at most 1000"),
        ({"content": "x", "color": "red"}, "unknown fields: color"),
        ({"content": "x" * 1_000_001}, "content has"),
        ({"content": "x", "title": "t" * 300}, "title"),
        ([1, 2], "JSON object"),
    ],
)
def test_a_malformed_body_is_400_and_changes_nothing(api, written, body, message):
    response = put(api, body, 1)
    assert response.status_code in (400, 413)
    assert message in response.json()["error"]
    assert stored("doc")["content"] == START


def test_version_0_creates_the_document(api, user):
    response = put(api, {"content": "hello\n", "title": "New"}, 0)
    assert response.status_code == 200
    assert (response.json()["version"], response.json()["merged"]) == (1, False)
    assert Revision.objects.get(document__thread_id="doc").source == "person"


def test_version_0_once_an_agent_wrote_is_412_and_changes_nothing(api, written):
    """Merged from "nothing yet", the person's whole text would go before the document's."""
    response = put(api, {"content": "my notes\n"}, 0)
    assert response.status_code == 412
    assert response.json()["current_version"] == 1
    assert "not the expected version 0" in response.json()["error"]
    assert stored("doc")["content"] == START


def test_version_1_without_a_document_is_412(api, user):
    response = put(api, {"content": "x"}, 1)
    assert response.status_code == 412 and response.json()["current_version"] == 0
    assert stored("doc") is None


def test_a_session_must_send_the_csrf_token(user, written):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    refused = put(client, {"content": "x"}, 1)
    assert refused.status_code == 403 and "CSRF" in refused.json()["error"]
    assert stored("doc")["content"] == START
    token = "k" * 32  # a CSRF secret, as the cookie a page of the host sets holds it
    client.cookies["csrftoken"] = token
    accepted = put(client, {"content": "x"}, 1, HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 200 and stored("doc")["content"] == "x"


def test_an_idempotency_key_applies_the_edit_once(api, written):
    first = put(api, {"content": "once"}, 1, HTTP_IDEMPOTENCY_KEY="edit-1")
    again = put(api, {"content": "once"}, 1, HTTP_IDEMPOTENCY_KEY="edit-1")
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert again["ETag"] == '"2"'
    assert stored("doc")["version"] == 2
    other = put(api, {"content": "twice"}, 2, HTTP_IDEMPOTENCY_KEY="edit-1")
    assert other.status_code == 422 and stored("doc")["content"] == "once"


def test_the_record_of_a_keyed_edit_holds_no_copy_of_the_document(api, written):
    big = START + "a line of the document\n" * 20_000
    first = put(api, {"content": big}, 1, HTTP_IDEMPOTENCY_KEY="big")
    agent_appends("meanwhile\n")
    again = put(api, {"content": big}, 1, HTTP_IDEMPOTENCY_KEY="big")
    assert again.json() == first.json() and again.json()["content"] == big and again["Idempotent-Replayed"] == "true"
    assert len(IdempotencyRecord.objects.get().envelope) < 1000
    assert stored("doc")["content"] == big + "meanwhile\n"


@override_settings(WORKSPACE_RATE_WRITES="2/min")
def test_edits_count_against_the_write_rate(api, written):
    assert put(api, {"content": "a"}, 1).status_code == 200
    assert put(api, {"content": "b"}, 2).status_code == 200
    over = put(api, {"content": "c"}, 3)
    assert over.status_code == 429 and over.json()["success"] is False
    assert stored("doc")["content"] == "b"


def test_an_unchanged_edit_makes_no_revision(api, written):
    response = put(api, {"content": START}, 1)
    assert response.status_code == 200 and response.json()["version"] == 1


def test_the_repository_refuses_a_bad_based_on():
    with pytest.raises(Exception, match="based_on"):
        WorkspaceRepository.save_person_edit("doc", "x", based_on=-1)


# The storage gives its connection back after each read: outside a test transaction.
@pytest.mark.django_db(transaction=True)
def test_a_merged_edit_is_one_revision_and_one_event_of_the_person(api, written):
    from workspace.events import ThreadEventStorage, document_channel

    agent_appends("day four: market\n")
    assert put(api, {"content": START.replace("beach", "river")}, 1).json()["merged"] is True
    events = [event for event in ThreadEventStorage().get_events(document_channel("doc"), 0)]
    assert len(events) == 3 == Revision.objects.filter(document__thread_id="doc").count()
    last = json.loads(events[-1].data)
    assert (last["version"], last["op"], last["source"], last["tool"]) == (3, "update", "person", None)
    assert (last["actor"], last["action_and_reasoning"]) == ("agent-owner", "Edited by agent-owner.")
    assert last["content"] == START.replace("beach", "river") + "day four: market\n"


def test_an_edit_of_a_list_whose_lines_repeat_merges(api, user):
    # lines repeated so often that the diff goes more than ten levels deep (the
    # GPL patiencediff the merge used before stopped there with a Rust panic)
    def items(numbers):
        return "".join(f"- {n}\n" for n in numbers.split())

    base = items("10 14 22 22 22 5 7 7 4 19 19 21")
    DocumentTools("doc").update_document(content=base, action_and_reasoning=WHY)
    DocumentTools("doc").update_document(content=base.replace("- 21\n", "- 21 (agent)\n"), action_and_reasoning=WHY)
    response = put(api, {"content": items("21 10 14 14 22 0 22 22 5 7 5 7 4 19 4 19 21")}, 1)

    assert response.status_code == 200 and response.json()["merged"] is True
    assert response.json()["content"] == items("21 10 14 14 22 0 22 22 5 7 5 7 4 19 4 19") + "- 21 (agent)\n"
