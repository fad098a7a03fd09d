"""The app inside a host with its own user model and REST_FRAMEWORK defaults
(tests.hosts.settings): every endpoint behaves as in the demo.

tests/app/test_host_settings.py runs this file in a process of its own (the suite
does not collect it: its name is not test_*.py), with
``--ds=tests.hosts.settings``."""

import json
from datetime import datetime

import pytest
from django.contrib.auth import get_user_model
from django.core.checks import run_checks
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.support import call_tool
from tests.support.live import EventStream, Server
from workspace.models import IdempotencyRecord

pytestmark = pytest.mark.django_db

WHY = "Host test."
API = "/api/workspace"
# The longest address EmailField takes: 64 characters before the @, 189 after.
LONG_EMAIL = f"{'agent.' + 'x' * 58}@{'d' * 63}.{'e' * 63}.{'f' * 53}.example"


@pytest.fixture
def member(db):
    assert len(LONG_EMAIL) == 254
    return get_user_model().objects.create_user(LONG_EMAIL, password="pw")


@pytest.fixture
def token(member):
    return Token.objects.create(user=member).key


@pytest.fixture
def api(token):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def write(api, thread_id: str, text: str, **headers: str):
    return call_tool(api, thread_id, "append_to_document", {"text": text, "action_and_reasoning": WHY}, **headers)


def every_endpoint(thread_id: str) -> list[tuple[str, str]]:
    return [
        ("GET", f"{API}/tools/"),
        ("POST", f"{API}/threads/{thread_id}/tools/append_to_document/"),
        ("GET", f"{API}/threads/{thread_id}/document/"),
        ("GET", f"{API}/threads/{thread_id}/revisions/"),
        ("GET", f"{API}/threads/{thread_id}/revisions/1/"),
        ("GET", f"{API}/threads/{thread_id}/events/"),
        ("GET", f"{API}/threads/{thread_id}/no-such-endpoint/"),
        ("GET", f"{API}/schema/"),
        ("GET", f"{API}/docs/"),
    ]


def request(client, method: str, path: str):
    body = json.dumps({"text": "x", "action_and_reasoning": WHY}) if method == "POST" else None
    return client.generic(method, path, body, content_type="application/json")


def test_the_hosts_settings_are_in_force_for_its_own_api(api):
    """So that the tests below, where they do not apply to the app, prove something."""
    answers = [api.get("/api/v1/ping/", HTTP_ACCEPT="application/json") for _ in range(3)]
    assert [answer.status_code for answer in answers] == [200, 200, 429]
    assert answers[0].json() == {"pong": True, "version": "v1"}
    assert answers[2].json()["host_error"] is True
    assert api.get("/api/v1/ping/")["Content-Type"].startswith("text/html")  # the browsable API first


def test_a_user_with_a_uuid_key_and_a_254_character_email_uses_every_endpoint(api, member):
    first = write(api, "long", "a\n")
    keyed = write(api, "long", "b\n", **{"Idempotency-Key": "k-long"})
    retry = write(api, "long", "b\n", **{"Idempotency-Key": "k-long"})

    assert [first.status_code, keyed.status_code, retry.status_code] == [200, 200, 200], first.json()
    assert retry["Idempotent-Replayed"] == "true" and retry.json() == keyed.json()
    assert IdempotencyRecord.objects.get(key="k-long").owner == LONG_EMAIL
    document = api.get(f"{API}/threads/long/document/")
    assert (document.status_code, document.json()["content"], document.json()["version"]) == (200, "a\nb\n", 2)
    revisions = api.get(f"{API}/threads/long/revisions/").json()["results"]
    assert [revision["actor"] for revision in revisions] == [LONG_EMAIL, LONG_EMAIL]
    assert api.get(f"{API}/threads/long/revisions/2/").json()["text"] == "b\n"


def test_the_hosts_serve_public_false_still_gives_the_apps_whole_schema(api):
    schema = api.get(f"{API}/schema/")
    assert schema.status_code == 200, schema.content[:300]
    assert "/threads/{thread_id}/tools/update_document/" in schema.json()["paths"]


@pytest.mark.django_db(transaction=True)
def test_a_user_with_a_long_email_watches_the_event_stream_and_the_hosts_throttles_do_not_count_streams(token):
    command = [part.replace("project.asgi:", "tests.hosts.asgi:") for part in Server.UVICORN]
    server = Server(command=command, DJANGO_SETTINGS_MODULE="tests.hosts.settings")
    streams = []
    try:
        # The host's throttles allow two requests a minute: a third stream still opens.
        for _ in range(3):
            stream = EventStream(server, f"{API}/threads/watched/events/", {"Authorization": f"Token {token}"})
            streams.append(stream)
            assert stream.status == 200, stream.__dict__.get("body")
            stream.next("stream-open")
        status, body = server.request(
            "POST",
            f"{API}/threads/watched/tools/append_to_document/",
            token,
            json.dumps({"text": "seen", "action_and_reasoning": WHY}),
        )
        assert status == 200, body
        # (A first append creates the document: an update event, with the content.)
        assert [stream.next().json()["content"] for stream in streams] == ["seen"] * 3
    finally:
        for stream in streams:
            stream.close()
        server.stop()


def test_with_session_authentication_listed_first_no_credentials_is_401_with_the_token_challenge(db):
    anonymous = APIClient()
    for method, path in every_endpoint("anon"):
        response = request(anonymous, method, path)
        assert (method, path, response.status_code) == (method, path, 401)
        assert response["WWW-Authenticate"] == "Token"


def test_the_hosts_permissions_open_no_endpoint_to_anonymous_users(db):
    """The host's default is AllowAny: the app's endpoints still need a signed-in user."""
    anonymous = APIClient()
    for method, path in every_endpoint("open"):
        response = request(anonymous, method, path)
        assert (path, response.status_code) == (path, 401)
        assert "no such endpoint" not in response.content.decode()


def test_the_hosts_throttles_count_none_of_the_apps_endpoints(api):
    write(api, "busy", "x")
    for method, path in every_endpoint("busy") * 3:
        response = request(api, method, path)
        assert (path, response.status_code) != (path, 429)


def test_the_hosts_exception_handler_does_not_shape_the_apps_errors(api):
    errors = [
        call_tool(api, "shaped", "append_to_document", {"action_and_reasoning": WHY}),  # 400: text is missing
        call_tool(api, "shaped", "no_such_tool", {"action_and_reasoning": WHY}),  # 404
        api.get(f"{API}/threads/shaped/revisions/?limit=0"),  # 400
        api.get(f"{API}/threads/shaped/document/"),  # 404
        api.get(f"{API}/threads/shaped/no-such-endpoint/"),  # 404
        APIClient().get(f"{API}/schema/"),  # 401
    ]
    assert [response.status_code for response in errors] == [400, 404, 400, 404, 404, 401]
    for response in errors:
        assert set(response.json()) == {"success", "error"}, response.json()
        assert response.json()["success"] is False and "host_error" not in response.json()["error"]


def test_the_hosts_pagination_does_not_page_the_revisions(api):
    for text in "abc":
        write(api, "paged", text)
    page = api.get(f"{API}/threads/paged/revisions/").json()
    assert set(page) == {"results", "next"} and page["next"] is None
    assert [revision["version"] for revision in page["results"]] == [1, 2, 3]


def test_the_hosts_renderers_do_not_change_the_answers(api):
    write(api, "rendered", "x")
    for path in [f"{API}/tools/", f"{API}/threads/rendered/document/", f"{API}/threads/rendered/revisions/9/"]:
        response = api.get(path, HTTP_ACCEPT="text/html")
        assert response["Content-Type"] == "application/json", path
        assert isinstance(response.json(), (list, dict))


def test_the_hosts_versioning_refuses_none_of_the_apps_endpoints(api):
    """Namespace versioning with ALLOWED_VERSIONS would find "workspace" no allowed version: 404."""
    write(api, "versioned", "x")
    for method, path in every_endpoint("versioned"):
        if "no-such-endpoint" not in path and "/events/" not in path:  # 404 and 503 (WSGI) by design
            assert (path, request(api, method, path).status_code) == (path, 200)


def test_the_hosts_datetime_format_does_not_change_the_timestamps(api):
    write(api, "dated", "x")
    document = api.get(f"{API}/threads/dated/document/").json()
    revision = api.get(f"{API}/threads/dated/revisions/").json()["results"][0]
    for value in (document["created_at"], document["updated_at"], revision["created_at"]):
        assert datetime.fromisoformat(value).tzinfo is not None, value


def test_the_host_passes_the_apps_checks():
    assert [message.id for message in run_checks() if (message.id or "").startswith("workspace.")] == []
