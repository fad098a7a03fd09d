"""What the tests share: helpers every area's tests import (the fixtures are
in ``tests/conftest.py``; the servers the tests start, in ``tests.support.live``)."""

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.checks import Tags, run_checks
from django.db import connection, connections


def __getattr__(name: str):
    # ``requires_postgresql`` reads the settings when a test module takes it,
    # not when this package is imported: the benches and CI's fuzzing import
    # ``tests.support.live`` before Django is set up, or without it.
    if name == "requires_postgresql":
        return pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL (set DATABASE_URL)")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def require_or_skip(available, what: str) -> None:
    """Skip a test that needs ``what`` where it is missing; in CI
    (WORKSPACE_TESTS_REQUIRE_ALL=1) fail instead, so nothing is skipped unseen."""
    if available:
        return
    if os.environ.get("WORKSPACE_TESTS_REQUIRE_ALL"):
        pytest.fail(f"needs {what}")
    pytest.skip(f"needs {what}")


def start_stream_server(kind: str, **environment: str):
    """``live.start_server``; a test that needs Pushpin where it is missing is skipped."""
    from tests.support.live import start_server

    if kind == "pushpin":
        require_pushpin()
    return start_server(kind, **environment)


def require_pushpin() -> None:
    import shutil

    require_or_skip(shutil.which("pushpin"), "Pushpin (apt-get install pushpin)")


def call_tool(api, thread_id: str, tool: str, body: dict, **headers: str):
    """POST a tool call through a test client, with HTTP headers named as on the wire."""
    return api.generic(
        "POST",
        f"/api/workspace/threads/{thread_id}/tools/{tool}/",
        json.dumps(body),
        content_type="application/json",
        **{f"HTTP_{name.upper().replace('-', '_')}": value for name, value in headers.items()},
    )


def workspace_messages() -> dict:
    """The app's system-check messages, by id. Its checks are registered under
    Tags.compatibility; the rest (the models' checks) are left out: on SQLite,
    Django 6.1's ask the database whether it takes JSON, and a test may have none."""
    messages = run_checks(tags=[Tags.compatibility])
    return {message.id: message for message in messages if (message.id or "").startswith("workspace.")}


def stored(thread_id: str) -> dict | None:
    """What the database holds for a thread, or None."""
    from workspace.models import WorkingDocument  # here: importing this module needs no app registry

    document = WorkingDocument.objects.filter(thread_id=thread_id).first()
    if document is None:
        return None
    return {name: getattr(document, name) for name in ("title", "content", "length", "version")}


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


# The same, returning once each session has ended (PostgreSQL 14+), as one
# ended well before the next call would have.
END_SERVER_SESSIONS = "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = %s"
