"""Per-user rates: over them, 429 with the failure envelope and Retry-After."""

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.support import stored
from tests.support.live import Server

pytestmark = pytest.mark.django_db

WHY = "Rate test."


def append(api, text):
    return api.post(
        "/api/workspace/threads/rated/tools/append_to_document/",
        json.dumps({"text": text, "action_and_reasoning": WHY}),
        content_type="application/json",
    )


@override_settings(WORKSPACE_RATE_WRITES="3/min")
def test_calls_over_the_write_rate_are_429_with_retry_after_and_change_nothing(api):
    assert [append(api, str(n)).status_code for n in range(3)] == [200, 200, 200]
    over = append(api, "3")
    assert over.status_code == 429
    assert over.json()["success"] is False and "throttled" in over.json()["error"].lower()
    assert 0 < int(over["Retry-After"]) <= 60
    assert stored("rated")["content"] == "012"


@override_settings(WORKSPACE_RATE_READS="2/min")
def test_reads_have_their_own_rate(api):
    append(api, "x")
    statuses = [api.get("/api/workspace/threads/rated/document/").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    assert api.get("/api/workspace/tools/").status_code == 429
    assert append(api, "y").status_code == 200  # writes are counted apart


@override_settings(WORKSPACE_RATE_WRITES="1/min")
def test_each_user_has_a_rate_of_their_own(api):
    other = APIClient()
    other.credentials(
        HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=get_user_model().objects.create_user('b')).key}"
    )
    assert append(api, "a").status_code == 200
    assert append(other, "b").status_code == 200
    assert append(api, "c").status_code == 429


@pytest.mark.django_db(transaction=True)
def test_the_rate_is_shared_by_processes_through_redis(token, redis):
    first = Server(REDIS_URL=redis.url, WORKSPACE_RATE_WRITES="4/min")
    second = Server(command=Server.GUNICORN, REDIS_URL=redis.url, WORKSPACE_RATE_WRITES="4/min")
    try:
        body = json.dumps({"text": "x", "action_and_reasoning": WHY})
        path = "/api/workspace/threads/shared-rate/tools/append_to_document/"
        statuses = [server.request("POST", path, token, body)[0] for server in (first, second) * 3]
        assert statuses == [200, 200, 200, 200, 429, 429]
    finally:
        first.stop()
        second.stop()


@pytest.fixture
def a_still_clock(monkeypatch):
    """The throttles' clock stands still, a second into a window: a run that
    crossed into the next minute would also count the previous one's calls."""
    from workspace.http.throttling import WorkspaceRateThrottle

    monkeypatch.setattr(WorkspaceRateThrottle, "timer", staticmethod(lambda: 60.0 * 29_000_000 + 1))


def _concurrent_reads(user, clients: int, calls: int) -> list[int]:
    """``clients`` threads, each with a client of ``user``'s, each making ``calls`` reads at once."""
    barrier = threading.Barrier(clients)

    def reads(_: int) -> list[int]:
        client = APIClient()
        client.force_authenticate(user)  # no database: the threads race on the count alone
        barrier.wait()
        return [client.get("/api/workspace/tools/").status_code for _ in range(calls)]

    with ThreadPoolExecutor(clients) as pool:
        return [status for statuses in pool.map(reads, range(clients)) for status in statuses]


@override_settings(WORKSPACE_RATE_READS="600/min")
def test_concurrent_clients_get_exactly_the_rate_through(user, a_still_clock):
    statuses = _concurrent_reads(user, clients=8, calls=100)
    assert (statuses.count(200), statuses.count(429)) == (600, 200)


@override_settings(WORKSPACE_RATE_READS="600/min")
def test_concurrent_clients_get_exactly_the_rate_through_a_shared_redis_cache(user, redis, a_still_clock):
    cache = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis.url}}
    with override_settings(CACHES=cache):
        statuses = _concurrent_reads(user, clients=8, calls=100)
    assert (statuses.count(200), statuses.count(429)) == (600, 200)


@override_settings(WORKSPACE_RATE_READS="10/min")
def test_a_new_window_still_counts_the_last_minutes_calls_and_says_when_one_more_fits(user, monkeypatch):
    from workspace.http.throttling import WorkspaceRateThrottle

    now = [60.0 * 29_000_000 + 59]  # the last second of a window
    monkeypatch.setattr(WorkspaceRateThrottle, "timer", staticmethod(lambda: now[0]))
    client = APIClient()
    client.force_authenticate(user)

    def read():
        return client.get("/api/workspace/tools/")

    assert [read().status_code for _ in range(11)] == [200] * 10 + [429]
    now[0] += 7  # 6 s into the next window: 9 of the 10 are still within the last minute
    assert read().status_code == 200
    refused = read()
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) == 6  # at 12 s into the window, 8 of the 10 are within the last minute
    now[0] += 6
    assert read().status_code == 200
