"""Concurrent tool calls from real threads, each on its own database connection.

On PostgreSQL this proves the row locking; on SQLite (which ignores
select_for_update) it proves that IMMEDIATE transactions make writers wait
rather than fail.
"""

import threading
import time
from unittest import mock

import pytest
from django.db import connections, transaction

from tests.support import requires_postgresql, run_concurrently, stored
from workspace.documents import writes
from workspace.documents.repository import WorkspaceRepository
from workspace.models import Revision, WorkingDocument
from workspace.tools import DocumentTools, ToolCollection, workspace_tool

pytestmark = pytest.mark.django_db(transaction=True)

WHY = "Concurrency test."


@pytest.mark.parametrize("document_exists", [False, True], ids=["new thread", "existing document"])
def test_32_concurrent_appends_all_land_once_with_exact_totals(document_exists):
    if document_exists:
        WorkspaceRepository.upsert_document("busy", content="")
    chunks = [f"<chunk{n:03d}>" for n in range(32)]  # 10 characters each
    assert {len(chunk) for chunk in chunks} == {10}
    tools = DocumentTools("busy")

    envelopes = run_concurrently(
        [lambda chunk=chunk: tools.append_to_document(text=chunk, action_and_reasoning=WHY) for chunk in chunks]
    )

    assert [envelope["success"] for envelope in envelopes] == [True] * 32, envelopes
    totals = sorted(int(envelope["summary"].split("(")[1].split()[0]) for envelope in envelopes)
    assert totals == list(range(10, 330, 10))
    document = stored("busy")
    assert sorted(document["content"][i : i + 10] for i in range(0, 320, 10)) == sorted(chunks)
    assert document["length"] == 320
    assert document["version"] == 32 + (1 if document_exists else 0)


def test_16_concurrent_updates_of_a_new_thread_all_succeed():
    tools = DocumentTools("contested")
    contents = [f"version from writer {n}" for n in range(16)]

    envelopes = run_concurrently(
        [
            lambda content=content: tools.update_document(content=content, action_and_reasoning=WHY)
            for content in contents
        ]
    )

    assert [envelope["success"] for envelope in envelopes] == [True] * 16, envelopes
    document = stored("contested")
    assert document["content"] in contents
    assert document["version"] == 16


def test_concurrent_appends_and_updates_keep_version_and_length_in_step():
    WorkspaceRepository.upsert_document("mixed", content="start")
    tools = DocumentTools("mixed")
    calls = [lambda: tools.append_to_document(text="+a", action_and_reasoning=WHY) for _ in range(12)]
    # Each update different: one equal to the content before it would change nothing.
    calls += [lambda n=n: tools.update_document(content=f"reset {n}", action_and_reasoning=WHY) for n in range(4)]

    envelopes = run_concurrently(calls)

    assert all(envelope["success"] for envelope in envelopes), envelopes
    document = stored("mixed")
    assert document["version"] == 1 + 16
    assert document["length"] == len(document["content"])
    assert document["content"].startswith(("start", "reset"))


def test_16_conditional_updates_at_the_same_version_apply_exactly_one():
    WorkspaceRepository.upsert_document("cas", content="v1")
    contents = [f"writer {n}" for n in range(16)]

    envelopes = run_concurrently(
        [
            lambda content=content: DocumentTools("cas", expected_version=1).update_document(
                content=content, action_and_reasoning=WHY
            )
            for content in contents
        ]
    )

    winners = [envelope for envelope in envelopes if envelope["success"]]
    assert len(winners) == 1, envelopes
    assert all(envelope.get("current_version") == 2 for envelope in envelopes if not envelope["success"])
    assert stored("cas")["version"] == 2
    assert stored("cas")["content"] in contents


def test_8_concurrent_retries_with_one_key_apply_once():
    envelopes = run_concurrently(
        [
            lambda: DocumentTools("retried", actor="agent", idempotency_key="same").append_to_document(
                text="once", action_and_reasoning=WHY
            )
            for _ in range(8)
        ]
    )

    assert envelopes == [{"success": True, "summary": "appended (4 chars total)", "artifact": None}] * 8
    assert stored("retried") == {"title": "", "content": "once", "length": 4, "version": 1}
    assert Revision.objects.filter(document__thread_id="retried").count() == 1


class SlowTools(ToolCollection):
    @workspace_tool
    def slow_append(self, text: str) -> tuple[str, None]:
        """Append, then take a while before the transaction commits."""
        change = WorkspaceRepository.append_document(self.thread_id, text)
        time.sleep(1)
        return f"appended ({change.length} chars total)", None


def test_a_retry_while_the_first_call_runs_waits_and_replays_or_is_told_409():
    def first():
        return SlowTools("inflight", idempotency_key="k").slow_append(text="x", action_and_reasoning=WHY)

    def retry():
        time.sleep(0.3)  # while the first one sleeps in its transaction
        return SlowTools("inflight", idempotency_key="k").slow_append(text="x", action_and_reasoning=WHY)

    first_envelope, retry_envelope = run_concurrently([first, retry])

    assert first_envelope == {"success": True, "summary": "appended (1 chars total)", "artifact": None}
    assert retry_envelope == first_envelope or "still running" in retry_envelope["error"]
    assert stored("inflight")["version"] == 1


@requires_postgresql
@pytest.mark.parametrize(
    "first_write",
    [
        lambda: DocumentTools("race").append_to_document(text="mine", action_and_reasoning=WHY),
        lambda: DocumentTools("race", expected_version=0).update_document(content="mine", action_and_reasoning=WHY),
    ],
    ids=["append", "update with If-Match 0"],
)
def test_a_create_that_collides_with_a_document_deleted_at_once_creates_it(first_write):
    """Another call creates the document while this one tries to; the host deletes
    it before this call can lock it. The thread has no document again: this
    call creates it, rather than failing because the other created it first."""
    created, collided, deleted = threading.Event(), threading.Event(), threading.Event()
    lock_at = writes.lock_at

    def lock_at_after_the_delete(thread_id, expected):
        if threading.current_thread().name == "collider" and not collided.is_set():
            collided.set()  # this call's INSERT met the other's row; the host now deletes it
            assert deleted.wait(10)
        lock_at(thread_id, expected)

    def create_and_commit_after_a_while():
        try:
            with transaction.atomic():
                WorkspaceRepository.upsert_document("race", content="theirs")
                created.set()
                time.sleep(0.5)  # the collider's INSERT waits for this transaction
        finally:
            connections.close_all()

    result = {}

    def collide():
        try:
            assert created.wait(10)
            result["envelope"] = first_write()
        finally:
            connections.close_all()

    with mock.patch.object(writes, "lock_at", lock_at_after_the_delete):
        threads = [
            threading.Thread(target=create_and_commit_after_a_while),
            threading.Thread(target=collide, name="collider"),
        ]
        for thread in threads:
            thread.start()
        assert collided.wait(10)
        WorkingDocument.objects.filter(thread_id="race").delete()
        deleted.set()
        for thread in threads:
            thread.join(10)

    assert result["envelope"]["success"] is True, result["envelope"]
    assert stored("race") == {"title": "", "content": "mine", "length": 4, "version": 1}
