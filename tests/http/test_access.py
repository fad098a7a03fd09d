import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.support import stored

pytestmark = pytest.mark.django_db

WHY = "Testing who may write."
BODY = {"text": "secret", "action_and_reasoning": WHY}
ENDPOINTS = [
    ("get", "/api/workspace/tools/"),
    ("get", "/api/workspace/threads/t/document/"),
    ("get", "/api/workspace/threads/t/events/"),
    ("post", "/api/workspace/threads/t/tools/append_to_document/"),
    ("post", "/api/workspace/threads/t/tools/no_such_tool/"),
]


def only_thread_mine(user, thread_id):
    return thread_id == "mine"


def truthy_but_not_true(user, thread_id):
    return "yes"


@pytest.fixture
def existing_document(api):
    api.post(
        "/api/workspace/threads/t/tools/update_document/",
        {"content": "private", "action_and_reasoning": WHY},
        format="json",
    )


def request(client, method, url):
    return getattr(client, method)(url, BODY, format="json") if method == "post" else client.get(url)


@pytest.mark.parametrize("method, url", ENDPOINTS)
def test_anonymous_requests_are_refused_and_learn_nothing(existing_document, method, url):
    response = request(APIClient(), method, url)
    assert response.status_code == 401
    assert b"private" not in response.content and b"update_document" not in response.content
    assert stored("t")["content"] == "private"


@pytest.mark.parametrize("method, url", ENDPOINTS)
def test_a_wrong_token_is_refused(existing_document, method, url):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token 0000000000000000000000000000000000000000")
    response = request(client, method, url)
    assert response.status_code == 401
    assert b"private" not in response.content
    assert stored("t")["content"] == "private"


def test_the_tool_endpoint_answers_auth_failures_with_the_envelope():
    response = APIClient().post("/api/workspace/threads/t/tools/append_to_document/", BODY, format="json")
    assert response.json() == {"success": False, "error": "Authentication credentials were not provided."}


@override_settings(WORKSPACE_ACCESS_POLICY="tests.http.test_access.only_thread_mine")
def test_the_policy_decides_per_thread(api):
    allowed = api.post("/api/workspace/threads/mine/tools/append_to_document/", BODY, format="json")
    assert allowed.status_code == 200

    denied = api.post("/api/workspace/threads/theirs/tools/append_to_document/", BODY, format="json")
    assert denied.status_code == 403
    assert denied.json() == {"success": False, "error": "You may not use this thread."}
    assert stored("theirs") is None

    assert api.get("/api/workspace/threads/mine/document/").status_code == 200
    assert api.get("/api/workspace/threads/theirs/document/").status_code == 403
    assert api.get("/api/workspace/threads/theirs/events/").status_code == 403


@pytest.mark.parametrize("policy", ["tests.http.test_access.truthy_but_not_true", "workspace.access.deny_all"])
def test_access_is_denied_unless_the_policy_says_true(api, policy):
    with override_settings(WORKSPACE_ACCESS_POLICY=policy):
        response = api.post("/api/workspace/threads/t/tools/append_to_document/", BODY, format="json")
    assert response.status_code == 403
    assert stored("t") is None


def test_without_a_policy_setting_every_thread_is_denied(api, settings):
    del settings.WORKSPACE_ACCESS_POLICY
    assert api.post("/api/workspace/threads/t/tools/append_to_document/", BODY, format="json").status_code == 403
    assert api.get("/api/workspace/threads/t/document/").status_code == 403
    assert api.get("/api/workspace/threads/t/events/").status_code == 403


def test_a_logged_in_browser_session_can_read_the_document(user, existing_document):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get("/api/workspace/threads/t/document/").json()["content"] == "private"
    # A session must carry the CSRF token to write; a token-authenticated agent need not.
    response = client.post("/api/workspace/threads/t/tools/append_to_document/", BODY, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["error"]
    assert stored("t")["content"] == "private"


@override_settings(WORKSPACE_ACCESS_POLICY="tests.http.test_access.only_thread_mine")
def test_the_channel_manager_applies_the_policy_to_every_read(user):
    from workspace.events import ThreadChannelManager
    from workspace.events import document_channel as channel_for

    manager = ThreadChannelManager()
    assert manager.can_read_channel(user, channel_for("mine")) is True
    assert manager.can_read_channel(user, channel_for("theirs")) is False
    assert manager.can_read_channel(None, channel_for("mine")) is False  # anonymous
    assert manager.can_read_channel(user, "some-other-channel") is False
    assert manager.is_channel_reliable(channel_for("mine")) is True


@pytest.mark.parametrize("parameter", ["recover=true", "es-meta=x", "link=next"])
def test_stream_parameters_meant_for_a_proxy_are_refused(api, parameter):
    response = api.get(f"/api/workspace/threads/t/events/?{parameter}")
    assert response.status_code == 400
    assert "unsupported query parameter" in response.json()["error"]


def test_streams_are_refused_outside_an_asgi_server(api):
    # The test client is WSGI, like gunicorn: a stream there would hold a worker for good.
    response = api.get("/api/workspace/threads/t/events/")
    assert response.status_code == 503
    assert "ASGI" in response.json()["error"]
