import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth import get_user_model
from django.core.checks import Tags, run_checks
from django.db import connection, connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from workspace.models import WorkingDocument

requires_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL (set DATABASE_URL)"
)


def require_or_skip(available, what: str) -> None:
    """Skip a test that needs ``what`` where it is missing; in CI
    (WORKSPACE_TESTS_REQUIRE_ALL=1) fail instead, so nothing is skipped unseen."""
    if available:
        return
    if os.environ.get("WORKSPACE_TESTS_REQUIRE_ALL"):
        pytest.fail(f"needs {what}")
    pytest.skip(f"needs {what}")


@pytest.fixture(autouse=True, scope="session")
def no_draft_expiry_thread_in_the_test_process():
    """Tests end expired drafts themselves (``draft_store.end_expired``); the
    thread a server process runs for it would reach into the tests' database
    beside them. The servers the tests start run theirs."""
    from workspace import draft_expiry

    draft_expiry._started_in = os.getpid()  # as if started already


@pytest.fixture(autouse=True)
def fresh_rate_counts():
    """Rates are counted in the cache, which outlives a test: every test starts afresh."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def redis():
    """A Redis server of the test's own: no other run, and no other test, hears it."""
    import shutil

    from .live import RedisServer

    require_or_skip(shutil.which("redis-server"), "redis-server (apt-get install redis-server)")
    server = RedisServer()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def server(django_db_setup):
    """A real uvicorn process on the test database (tests using it need transaction=True)."""
    from .live import Server

    server = Server()
    yield server
    server.stop()


def start_stream_server(kind: str, **environment: str):
    """``live.start_server``; a test that needs Pushpin where it is missing is skipped."""
    from .live import start_server

    if kind == "pushpin":
        require_pushpin()
    return start_server(kind, **environment)


def _stream_server(kind: str):
    server = start_stream_server(kind)
    yield server
    server.stop()


@pytest.fixture(scope="module", params=["uvicorn", "pushpin"], ids=["uvicorn", "through Pushpin"])
def stream_server(request, django_db_setup):
    """A server whose event streams are held by uvicorn, or by Pushpin in front
    of gunicorn (tests using it need transaction=True)."""
    yield from _stream_server(request.param)


@pytest.fixture(
    scope="module", params=["uvicorn", "django", "pushpin"], ids=["uvicorn", "streamed by Django", "through Pushpin"]
)
def every_stream_server(request, django_db_setup):
    """The same, and uvicorn without ``workspace.events.handover``: Django
    itself sends the streams, as in a host that does not wrap its application."""
    yield from _stream_server(request.param)


def require_pushpin() -> None:
    import shutil

    require_or_skip(shutil.which("pushpin"), "Pushpin (apt-get install pushpin)")


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user("agent-owner", password="pw")


@pytest.fixture
def token(user):
    return Token.objects.create(user=user).key


@pytest.fixture
def user_token(user):
    """A plain user (not staff) who can sign in on a server process (password "pw") and call the API."""
    from django.contrib.auth.hashers import make_password

    user.password = make_password("pw", hasher="pbkdf2_sha256")  # a hash the server's settings know
    user.save()
    return Token.objects.create(user=user).key


@pytest.fixture
def api(token):
    """An API client that authenticates like an agent: with a token."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


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
    return WorkingDocument.objects.filter(thread_id=thread_id).values("title", "content", "length", "version").first()


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
