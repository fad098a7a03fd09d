"""Concurrent tool calls from real threads, each on its own database connection.

On PostgreSQL this proves the row locking; on SQLite (which ignores
select_for_update) it proves that IMMEDIATE transactions make writers wait
rather than fail.
"""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections

from workspace.repository import WorkspaceRepository
from workspace.tools import DocumentTools

from .conftest import stored

pytestmark = pytest.mark.django_db(transaction=True)

WHY = "Concurrency test."


def run_concurrently(calls):
    """Run every call at once, each in its own thread and connection; return their results."""
    barrier = threading.Barrier(len(calls))

    def run(call):
        try:
            barrier.wait(timeout=30)
            return call()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(run, calls))


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
        [lambda content=content: tools.update_document(content=content, action_and_reasoning=WHY) for content in contents]
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
