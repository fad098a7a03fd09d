"""What goes wrong on the server's side: logged with its traceback, answered
with the envelope, 503 and Retry-After when the database fails, and bounded."""

import contextlib
import json
import os
import random
import threading
import time

import psycopg
import pytest
from django.db import connection

from tests.support import END_SERVER_SESSIONS, live, requires_postgresql, run_concurrently, stored
from tests.support.live import Server
from workspace.models import WorkingDocument
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db(transaction=True)

WHY = "Fault test."


def broken_policy(user, thread_id):
    raise RuntimeError("the policy broke")


def test_server_errors_are_logged_with_their_traceback_when_debug_is_off(token):
    server = Server(
        DJANGO_DEBUG="0", DJANGO_SECRET_KEY="fault-test", WORKSPACE_ACCESS_POLICY="tests.http.test_faults.broken_policy"
    )
    try:
        read = server.request("GET", "/api/workspace/threads/t/document/", token)
        write = server.request(
            "POST",
            "/api/workspace/threads/t/tools/append_to_document/",
            token,
            json.dumps({"text": "x", "action_and_reasoning": WHY}),
        )
        assert read == (500, {"success": False, "error": "the server failed to handle this request"})
        assert write == (500, {"success": False, "error": "the server failed to handle this request"})
        log = server.output()
        assert log.count("Traceback (most recent call last)") == 2
        assert "RuntimeError: the policy broke" in log
    finally:
        server.stop()


def test_an_answer_stays_small_however_many_arguments_are_wrong(api):
    unknown = {f"key{n}-" + "x" * 100: n for n in range(50_000)}
    response = api.post(
        "/api/workspace/threads/t/tools/append_to_document/",
        json.dumps({**unknown, "action_and_reasoning": WHY}),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert len(response.content) < 2048
    assert "and 49990 more" in response.json()["error"]
    assert stored("t") is None


def test_many_invalid_values_are_summed_up(api, settings):
    settings.WORKSPACE_TOOL_COLLECTIONS = [
        "workspace.tools.documents.DocumentTools",
        "tests.support.tools.FailingTools",
    ]
    labels = {f"label-{n}": [n] for n in range(10_000)}  # lists of integers, not of strings
    response = api.post(
        "/api/workspace/threads/t/tools/tag/", {"labels": labels, "action_and_reasoning": WHY}, format="json"
    )
    assert response.status_code == 400
    assert len(response.content) < 2048
    assert response.json()["error"].endswith("and 9990 more problems")


KILL_SERVER_CONNECTIONS = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s"


def append_until_acknowledged(server, token, thread_id: str, chunk: str, statuses: list) -> None:
    """Append ``chunk``, retrying each 503 with the same Idempotency-Key, as a
    careful client does (here at once: a pause would let the killer below
    kill the pool's idle connections first), for up to a minute."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, body = server.request(
            "POST",
            f"/api/workspace/threads/{thread_id}/tools/append_to_document/",
            token,
            json.dumps({"text": chunk, "action_and_reasoning": WHY}),
            headers={"Idempotency-Key": chunk},
        )
        statuses.append(status)
        assert status in (200, 503), (status, body)
        if status == 200:
            return
        assert body["success"] is False and "retry" in body["error"]
    raise AssertionError(f"{chunk} was never acknowledged in a minute: {statuses.count(503)} answers 503 in all")


@requires_postgresql
@pytest.mark.parametrize(
    "server_command",
    [[*Server.GUNICORN, "--workers", "2"], Server.UVICORN],  # a kept connection per worker; a pool
    ids=["wsgi", "asgi"],
)
def test_connections_killed_between_calls_are_replaced_before_a_call_needs_them(token, server_command):
    server = Server(command=server_command, PGAPPNAME="workspace-killed-idle")
    statuses = []
    try:
        with psycopg.connect(live.test_database_url(), autocommit=True) as admin:
            for n in range(12):
                if n % 3 == 0:  # every open connection of the server processes, between calls
                    killed = admin.execute(END_SERVER_SESSIONS, ["workspace-killed-idle"]).fetchall()
                    assert killed or n == 0
                append_until_acknowledged(server, token, "killed-idle", f"<{n}>", statuses)
                assert server.request("GET", "/api/workspace/threads/killed-idle/document/", token)[0] == 200
        assert statuses == [200] * 12
        assert stored("killed-idle")["content"] == "".join(f"<{n}>" for n in range(12))
    finally:
        server.stop()


@requires_postgresql
def test_connections_killed_during_calls_lose_and_duplicate_nothing_with_idempotency_keys(token):
    server = Server(command=[*Server.GUNICORN, "--workers", "2"], PGAPPNAME="workspace-killed-during")
    stop = threading.Event()

    def kill_again_and_again():
        with psycopg.connect(live.test_database_url(), autocommit=True) as admin:
            while not stop.wait(random.uniform(0.05, 0.2)):  # at times long enough for a slow call
                admin.execute(KILL_SERVER_CONNECTIONS, ["workspace-killed-during"])

    killer = threading.Thread(target=kill_again_and_again)
    killer.start()
    statuses = []
    appended = 0
    try:
        # At least 30 chunks, and on until a kill has cut a call short (most land between calls).
        while appended < 30 or (503 not in statuses and appended < 1000):
            append_until_acknowledged(server, token, "during", f"<{appended}>", statuses)
            appended += 1
        log = server.output()
    finally:
        stop.set()
        killer.join()
        server.stop()
    assert 503 in statuses  # the connections did die under the calls
    assert "Traceback (most recent call last)" in log  # and each 503 was logged with its traceback
    assert stored("during")["content"] == "".join(f"<{n}>" for n in range(appended))  # each chunk once


@requires_postgresql
def test_a_lock_held_too_long_answers_503_with_retry_after_and_changes_nothing(token):
    DocumentTools("locked").update_document(content="held", action_and_reasoning=WHY)
    server = Server(DATABASE_LOCK_TIMEOUT="1")
    try:
        with psycopg.connect(live.test_database_url()) as holder:
            holder.execute("SELECT 1 FROM workspace_workingdocument WHERE thread_id = 'locked' FOR UPDATE")
            status, body = server.request(
                "POST",
                "/api/workspace/threads/locked/tools/append_to_document/",
                token,
                json.dumps({"text": "!", "action_and_reasoning": WHY}),
            )
            holder.rollback()
        assert status == 503
        assert body["success"] is False
        assert stored("locked")["content"] == "held"
        status, _ = server.request(
            "POST",
            "/api/workspace/threads/locked/tools/append_to_document/",
            token,
            json.dumps({"text": "!", "action_and_reasoning": WHY}),
        )
        assert status == 200
    finally:
        server.stop()


@requires_postgresql
def test_writes_racing_a_host_that_deletes_the_document_never_fail_on_the_server():
    stop = threading.Event()

    def delete_again_and_again():
        while not stop.is_set():
            # The host's own delete may collide with a new revision: its problem, not the writers'.
            with contextlib.suppress(Exception):
                WorkingDocument.objects.filter(thread_id="doomed").delete()
        connection.close()

    deleter = threading.Thread(target=delete_again_and_again)
    deleter.start()
    try:
        calls = [
            (lambda n=n: DocumentTools("doomed").append_to_document(text=f"{n};", action_and_reasoning=WHY))
            if n % 2
            else (lambda n=n: DocumentTools("doomed").update_document(content=f"{n};", action_and_reasoning=WHY))
            for n in range(6)
        ]
        envelopes = [envelope for _ in range(40) for envelope in run_concurrently(calls)]
    finally:
        stop.set()
        deleter.join()
    failures = [envelope for envelope in envelopes if not envelope["success"]]
    assert all("deleted while this call was writing it" in failure["error"] for failure in failures), failures[:3]
    assert len(failures) < len(envelopes) / 10


@requires_postgresql
def test_postgresql_stopped_answers_503_and_service_comes_back_by_itself():
    import shutil
    import subprocess
    import sys
    import tempfile
    import time
    from pathlib import Path

    from tests.support.live import REPOSITORY, PrivatePostgres

    directory = Path(tempfile.mkdtemp(prefix="workspace-pg-"))  # not under pytest's root-only folder
    database = PrivatePostgres(directory)
    server = None
    try:
        env = {**os.environ, "DATABASE_URL": database.url, "DJANGO_SETTINGS_MODULE": "project.settings"}
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=REPOSITORY, env=env, check=True)
        token = (
            subprocess.run(
                [sys.executable, "manage.py", "demo_user"],
                cwd=REPOSITORY,
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            .stdout.split("Agent token: ")[1]
            .split()[0]
        )
        server = Server(database_url=database.url, command=Server.GUNICORN)
        path, body = (
            "/api/workspace/threads/down/tools/append_to_document/",
            json.dumps({"text": "1", "action_and_reasoning": WHY}),
        )
        assert server.request("POST", path, token, body)[0] == 200

        database.stop()
        started = time.monotonic()
        status, envelope = server.request("POST", path, token, body)
        assert status == 503 and envelope["success"] is False
        assert time.monotonic() - started < 30  # DATABASE_STATEMENT_TIMEOUT
        assert "Idempotency-Key" in envelope["error"]  # how to retry a write safely
        status, envelope = server.request("GET", "/api/workspace/threads/down/document/", token)
        assert status == 503 and envelope["error"] == "the database is unavailable or busy: retry shortly"
        read = json.dumps({"action_and_reasoning": WHY})  # a read-only tool: nothing to apply twice
        status, envelope = server.request("POST", "/api/workspace/threads/down/tools/read_document/", token, read)
        assert status == 503 and envelope["error"] == "the database is unavailable or busy: retry shortly"

        database.start()
        deadline = time.monotonic() + 30
        while (status := server.request("POST", path, token, body)[0]) != 200 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert status == 200
        assert server.request("GET", "/api/workspace/threads/down/document/", token)[1]["content"] == "11"
    finally:
        if server:
            server.stop()
        database.stop()
        shutil.rmtree(directory, ignore_errors=True)


@requires_postgresql
def test_a_retry_that_waits_past_the_lock_timeout_for_its_first_call_is_409(token, user):
    server = Server(DATABASE_LOCK_TIMEOUT="1")
    try:
        with psycopg.connect(live.test_database_url()) as first_call:  # a call with key "k", still running
            first_call.execute(
                "INSERT INTO workspace_idempotencyrecord (owner, key, fingerprint, status_code, envelope, created_at) "
                "VALUES (%s, 'k', 'x', 0, '', now())",
                [user.username],
            )
            status, body = server.request(
                "POST",
                "/api/workspace/threads/waiting/tools/append_to_document/",
                token,
                json.dumps({"text": "x", "action_and_reasoning": WHY}),
                headers={"Idempotency-Key": "k"},
            )
            first_call.rollback()
        assert (status, body["success"]) == (409, False)
        assert "still running" in body["error"]
        assert stored("waiting") is None
    finally:
        server.stop()
