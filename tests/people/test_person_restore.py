"""A person's restore, POST threads/<id>/revisions/<version>/restore/:
a kept version made current again as a new revision of the person's."""

import pytest
from django.test import override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from tests.support import stored
from workspace.models import IdempotencyRecord, Revision
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db

WHY = "Testing restores."


@pytest.fixture
def written(user):
    """thread "doc": version 1 "first" (title One), version 2 "second" (title Two)."""
    DocumentTools("doc", actor="planner").update_document(content="first", title="One", action_and_reasoning=WHY)
    DocumentTools("doc", actor="planner").update_document(content="second", title="Two", action_and_reasoning=WHY)


def restore(client, version, **headers):
    url = reverse("workspace:revision-restore", kwargs={"thread_id": "doc", "version": version})
    return client.post(url, **headers)


def test_a_restore_makes_the_version_current_as_the_persons_revision(api, written):
    response = restore(api, 1)

    assert response.status_code == 200
    body = response.json()
    assert (body["content"], body["title"], body["version"]) == ("first", "One", 3)
    assert set(body) == {"thread_id", "title", "content", "length", "version", "review", "created_at", "updated_at"}
    assert response["ETag"] == '"3"'
    revision = Revision.objects.get(document__thread_id="doc", version=3)
    assert (revision.op, revision.restored_from, revision.source) == ("restore", 1, "person")
    assert (revision.actor, revision.tool) == ("agent-owner", None)
    assert revision.action_and_reasoning == "Restored version 1 by agent-owner."
    listed = api.get("/api/workspace/threads/doc/revisions/3/").json()
    assert (listed["source"], listed["restored_from"]) == ("person", 1)


def test_restoring_the_current_content_changes_nothing(api, written):
    assert restore(api, 1).json()["version"] == 3
    response = restore(api, 1)
    assert response.status_code == 200
    assert (response.json()["content"], response.json()["version"], response["ETag"]) == ("first", 3, '"3"')
    assert Revision.objects.filter(document__thread_id="doc").count() == 3


def test_if_match_of_another_version_is_412_and_changes_nothing(api, written):
    response = restore(api, 1, HTTP_IF_MATCH='"1"')
    assert response.status_code == 412
    assert response.json()["current_version"] == 2
    assert stored("doc")["content"] == "second"
    assert restore(api, 1, HTTP_IF_MATCH='"2"').status_code == 200


def test_a_malformed_if_match_is_400(api, written):
    assert restore(api, 1, HTTP_IF_MATCH="two").status_code == 400
    assert stored("doc")["version"] == 2


def test_a_version_not_kept_or_no_document_is_404(api, written):
    assert restore(api, 9).status_code == 404
    Revision.objects.filter(document__thread_id="doc", version=1).delete()
    assert restore(api, 1).status_code == 404
    url = reverse("workspace:revision-restore", kwargs={"thread_id": "none", "version": 1})
    missing = api.post(url)
    assert missing.status_code == 404 and missing.json()["success"] is False
    assert stored("doc")["version"] == 2


def test_a_bad_version_is_400(api, written):
    assert restore(api, "x").status_code == 400


def test_a_session_must_send_the_csrf_token(user, written):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    refused = restore(client, 1)
    assert refused.status_code == 403 and "CSRF" in refused.json()["error"]
    client.cookies["csrftoken"] = "k" * 32
    assert restore(client, 1, HTTP_X_CSRFTOKEN="k" * 32).status_code == 200


def test_an_idempotency_key_restores_once(api, written):
    first = restore(api, 1, HTTP_IDEMPOTENCY_KEY="r-1")
    again = restore(api, 1, HTTP_IDEMPOTENCY_KEY="r-1")
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert stored("doc")["version"] == 3
    assert restore(api, 2, HTTP_IDEMPOTENCY_KEY="r-1").status_code == 422


def test_the_record_of_a_keyed_restore_holds_no_copy_of_the_document(api, user):
    big = "a line of the document\n" * 20_000  # 460,000 characters
    DocumentTools("doc").update_document(content=big, action_and_reasoning=WHY)
    DocumentTools("doc").update_document(content="short", action_and_reasoning=WHY)
    first = restore(api, 1, HTTP_IDEMPOTENCY_KEY="big")
    DocumentTools("doc").update_document(content="later", action_and_reasoning=WHY)
    again = restore(api, 1, HTTP_IDEMPOTENCY_KEY="big")
    assert again.json() == first.json() and again.json()["content"] == big
    assert again["Idempotent-Replayed"] == "true" and again["ETag"] == '"3"'
    assert len(IdempotencyRecord.objects.get().envelope) < 1000
    assert stored("doc")["content"] == "later"


@override_settings(WORKSPACE_RATE_WRITES="1/min")
def test_restores_count_against_the_write_rate(api, written):
    assert restore(api, 1).status_code == 200
    assert restore(api, 2).status_code == 429
    assert stored("doc")["version"] == 3


def test_a_person_may_say_why_they_restore(api, written):
    url = reverse("workspace:revision-restore", kwargs={"thread_id": "doc", "version": 1})
    response = api.post(url, {"action_and_reasoning": "The first plan was better."}, format="json")
    assert response.status_code == 200
    revision = Revision.objects.get(document__thread_id="doc", version=3)
    assert (revision.op, revision.action_and_reasoning) == ("restore", "The first plan was better.")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"action_and_reasoning": "x" * 1001}, "action_and_reasoning has 1001 characters; at most 1000"),
        ({"action_and_reasoning": 7}, "action_and_reasoning must be a string, got int"),
        ({"why": "typo"}, "why"),
    ],
)
def test_a_bad_restore_body_is_400_and_changes_nothing(api, written, body, message):
    url = reverse("workspace:revision-restore", kwargs={"thread_id": "doc", "version": 1})
    response = api.post(url, body, format="json")
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert stored("doc")["version"] == 2


# The storage gives its connection back after each read: outside a test transaction.
@pytest.mark.django_db(transaction=True)
def test_the_event_of_a_restore_names_it_as_its_revision_does(api, written):
    import json

    from workspace.events import ThreadEventStorage, document_channel

    DocumentTools("doc").edit_document(old_str="second", new_str="2nd", action_and_reasoning=WHY)
    restore(api, 1)
    events = [json.loads(event.data) for event in ThreadEventStorage().get_events(document_channel("doc"), 0)]
    revisions = api.get("/api/workspace/threads/doc/revisions/").json()["results"]
    assert [(event["op"], event["revision_op"]) for event in events] == [
        ("update", "update"),
        ("update", "update"),
        ("update", "edit"),
        ("update", "restore"),
    ]
    assert [event["revision_op"] for event in events] == [revision["op"] for revision in revisions]
