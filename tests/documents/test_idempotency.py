"""Idempotency-Key: a retried tool call is applied once and answered as the first time."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.support import call_tool, stored
from workspace.models import IdempotencyRecord, Revision
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db

WHY = "Idempotency test."
APPEND = {"text": "- milk\n", "action_and_reasoning": WHY}


def call(api, thread_id, body, key, tool="append_to_document"):
    return call_tool(api, thread_id, tool, body, **{"Idempotency-Key": key})


def test_a_retry_is_answered_from_the_first_call_and_changes_nothing(api):
    first = call(api, "i-1", APPEND, "k-1")
    retry = call(api, "i-1", APPEND, "k-1")

    assert first.status_code == retry.status_code == 200
    assert retry.json() == first.json() == {"success": True, "summary": "appended (7 chars total)", "artifact": None}
    assert retry["Idempotent-Replayed"] == "true"
    assert not first.has_header("Idempotent-Replayed")
    assert stored("i-1") == {"title": "", "content": "- milk\n", "length": 7, "version": 1}
    assert Revision.objects.filter(document__thread_id="i-1").count() == 1


@pytest.mark.parametrize(
    "change",
    [
        {"thread": "i-other"},
        {"tool": "update_document", "body": {"content": "x", "action_and_reasoning": WHY}},
        {"body": {"text": "- eggs\n", "action_and_reasoning": WHY}},
    ],
    ids=["thread", "tool", "arguments"],
)
def test_the_same_key_for_a_different_call_is_422_and_changes_nothing(api, change):
    call(api, "i-2", APPEND, "k-2")
    response = call(
        api,
        change.get("thread", "i-2"),
        change.get("body", APPEND),
        "k-2",
        tool=change.get("tool", "append_to_document"),
    )
    assert response.status_code == 422
    assert "different call" in response.json()["error"]
    assert stored("i-2")["version"] == 1
    assert stored("i-other") is None


def test_a_call_that_failed_is_not_stored_so_a_corrected_retry_runs(api):
    bad = call(api, "i-3", {"text": 5, "action_and_reasoning": WHY}, "k-3")
    good = call(api, "i-3", APPEND, "k-3")
    assert (bad.status_code, good.status_code) == (400, 200)
    assert stored("i-3")["content"] == "- milk\n"


def test_keys_belong_to_their_user(api):
    other = get_user_model().objects.create_user("someone-else")
    other_api = APIClient()
    other_api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=other).key}")

    call(api, "i-4", APPEND, "shared-key")
    theirs = call(other_api, "i-4", APPEND, "shared-key")

    assert not theirs.has_header("Idempotent-Replayed")
    assert theirs.json()["summary"] == "appended (14 chars total)"


def test_a_key_older_than_a_day_is_free_again(api):
    call(api, "i-5", APPEND, "k-5")
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=25))
    again = call(api, "i-5", APPEND, "k-5")
    assert not again.has_header("Idempotent-Replayed")
    assert stored("i-5")["version"] == 2


@pytest.mark.parametrize("key", ["", "x" * 256, "caf\u00e9", "tab\there"])
def test_a_bad_key_is_400(api, key):
    response = call(api, "i-6", APPEND, key)
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["error"]
    assert stored("i-6") is None


def test_in_python_the_collection_takes_the_key():
    first = DocumentTools("i-7", actor="agent-1", idempotency_key="k-7").append_to_document(
        text="a", action_and_reasoning=WHY
    )
    retry = DocumentTools("i-7", actor="agent-1", idempotency_key="k-7").append_to_document(
        text="a", action_and_reasoning=WHY
    )
    assert retry == first
    assert stored("i-7")["version"] == 1


def test_a_read_is_not_kept_so_a_retry_reads_again(api):
    def read():
        return call_tool(api, "keyed-read", "read_document", {"action_and_reasoning": WHY}, **{"Idempotency-Key": "r"})

    assert read().json()["summary"] == "the document does not exist yet (version 0)"
    DocumentTools("keyed-read").update_document(content="a line", action_and_reasoning=WHY)
    again = read()
    assert again.json()["summary"].startswith("version 1, 6 chars") and "Idempotent-Replayed" not in again
    assert not IdempotencyRecord.objects.exists()
