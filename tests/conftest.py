import contextlib
import functools
import os

import pytest
from django.contrib.auth import get_user_model
from django.db.backends.signals import connection_created
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.support import require_or_skip, start_stream_server


def outwait_the_servers_on_a_deadlock(sender, connection, **kwargs):
    """On PostgreSQL, the test process waits 10 s, not 1 s, before it checks
    for a deadlock. A test's end empties the tables (TRUNCATE, table by
    table) while a server under test may still be in a transaction on two
    of them, such as its check that ends expired drafts, which tries again
    if refused. Whichever process checks first is refused, and so it is
    the server, not the test's flush. Only a superuser may change this
    setting; for any other user the default stays."""
    if connection.vendor != "postgresql":
        return
    from django.db import DatabaseError

    with connection.cursor() as cursor, contextlib.suppress(DatabaseError):  # not a superuser: the default
        cursor.execute("SET deadlock_timeout = '10s'")


connection_created.connect(outwait_the_servers_on_a_deadlock)


def pytest_collection_modifyitems(config, items):
    """The browser and docs tests first, each module's in its order: each starts servers
    and Chromium and runs for seconds, so that the parallel workers (setup.cfg)
    end together on the many short tests, rather than one worker on a browser
    test long after the others have finished."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is None and item.get_closest_marker("docs") is None)


@pytest.fixture(autouse=True, scope="session")
def no_draft_expiry_thread_in_the_test_process():
    """Tests end expired drafts themselves (``draft_store.end_expired``); the
    thread a server process runs for it would reach into the tests' database
    beside them. The servers the tests start run theirs."""
    from workspace.drafts import expiry as draft_expiry

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

    from tests.support.live import RedisServer

    require_or_skip(shutil.which("redis-server"), "redis-server (apt-get install redis-server)")
    server = RedisServer()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def server(django_db_setup):
    """A real uvicorn process on the test database (tests using it need transaction=True)."""
    from tests.support.live import Server

    server = Server()
    yield server
    server.stop()


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


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user("agent-owner", password="pw")


@pytest.fixture
def token(user):
    return Token.objects.create(user=user).key


@functools.cache
def password_hash_servers_know() -> str:
    """ "pw" hashed as the servers' settings check it: PBKDF2 at its full cost,
    a third of a second, once per test process rather than once per test."""
    from django.contrib.auth.hashers import make_password

    return make_password("pw", salt="workspace-tests", hasher="pbkdf2_sha256")


@pytest.fixture
def user_token(user):
    """A plain user (not staff) who can sign in on a server process (password "pw") and call the API."""
    user.password = password_hash_servers_know()
    user.save()
    return Token.objects.create(user=user).key


@pytest.fixture
def api(token):
    """An API client that authenticates like an agent: with a token."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client
