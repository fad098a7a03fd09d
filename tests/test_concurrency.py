"""Concurrent tool calls from real threads, each on its own database connection.

On PostgreSQL this proves the row locking; on SQLite (which ignores
select_for_update) it proves that IMMEDIATE transactions make writers wait
rather than fail.
"""

import time

import pytest

from workspace.models import Revision
from workspace.repository import WorkspaceRepository
from workspace.tools import DocumentTools, workspace_tool

from .conftest import run_concurrently, stored

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
    calls += [lambda: tools.update_document(content="reset", action_and_reasoning=WHY) for _ in range(4)]

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


class SlowTools:
    def __init__(self, thread_id, **options):
        self.thread_id = thread_id
        self.call_options = DocumentTools(thread_id, **options).call_options

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
