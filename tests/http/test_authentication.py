"""The app's token authentication answers as DRF's own does."""

import time

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from tests.support import call_tool
from tests.support.live import Server
from workspace.models import Revision

pytestmark = pytest.mark.django_db

WHY = "Testing who is calling."


def client_with(key: str, scheme: str = "Token") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {key}")
    return client


def test_a_token_calls_as_its_user(api, user):
    other = get_user_model().objects.create_user("someone-else")
    Token.objects.create(user=other)
    response = call_tool(api, "t", "append_to_document", {"text": "hello", "action_and_reasoning": WHY})
    assert response.status_code == 200
    assert Revision.objects.get().actor == "agent-owner"


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "Token", "token"])
def test_the_token_is_taken_as_bearer_or_token(token, scheme):
    client = client_with(token, scheme)
    response = call_tool(client, "t", "append_to_document", {"text": "hello", "action_and_reasoning": WHY})
    assert response.status_code == 200, response.json()
    assert client.get("/api/workspace/threads/t/document/").json()["content"] == "hello"
    assert Revision.objects.get().actor == "agent-owner"


@pytest.mark.parametrize(
    ("header", "error"),
    [
        ("Token", "Invalid token header. No credentials provided."),
        ("Token two words", "Invalid token header. Token string should not contain spaces."),
        ("Token " + "x" * 129, "Invalid token."),
    ],
)
def test_a_malformed_token_header_is_refused_before_any_lookup(token, header, error):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = call_tool(client, "t", "append_to_document", {"text": "hello", "action_and_reasoning": WHY})
    assert (response.status_code, response.json()) == (401, {"success": False, "error": error})
    assert not Revision.objects.exists()


@pytest.mark.parametrize("credential", ["eyJhbGciOiJIUzI1NiJ9." + "e30." + "x" * 200, "0" * 40, "two words"])
def test_a_bearer_credential_that_is_no_token_of_the_app_is_left_to_the_hosts_other_classes(token, credential):
    """A host's JWT authentication after this class still sees its Bearer tokens."""
    from workspace.authentication import TokenAuthentication

    request = APIRequestFactory().get("/", HTTP_AUTHORIZATION=f"Bearer {credential}")
    assert TokenAuthentication().authenticate(Request(request)) is None
    response = client_with(credential, "Bearer").get("/api/workspace/threads/t/document/")
    assert response.status_code == 401  # and with no other class, not authenticated


def test_a_subclass_keyword_is_the_one_it_takes_beside_bearer(token):
    from workspace.authentication import TokenAuthentication

    class KeyAuthentication(TokenAuthentication):
        keyword = "Key"

    def authenticate(header):
        return KeyAuthentication().authenticate(Request(APIRequestFactory().get("/", HTTP_AUTHORIZATION=header)))

    assert authenticate(f"Key {token}")[1].key == token
    assert authenticate(f"Bearer {token}")[1].key == token
    assert authenticate(f"Token {token}") is None


def test_another_scheme_is_not_a_token(token):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Basic {token}")
    response = client.get("/api/workspace/threads/t/document/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


def test_the_user_comes_with_every_field_typed(token, user):
    from workspace.authentication import TokenAuthentication

    found, found_token = TokenAuthentication().authenticate_credentials(token)
    assert (found.pk, found.username, found.date_joined, found.is_active) == (
        user.pk,
        "agent-owner",
        user.date_joined,
        True,
    )
    assert found.check_password("pw")
    assert (found_token.key, found_token.user, found_token.created) == (token, user, Token.objects.get().created)


@pytest.mark.parametrize("key", ["0" * 40, "'OR'1'='1", "x" * 200])
def test_an_unknown_token_is_refused_with_a_challenge_and_changes_nothing(token, key):
    response = call_tool(client_with(key), "t", "append_to_document", {"text": "hello", "action_and_reasoning": WHY})
    assert response.status_code == 401
    assert response.json() == {"success": False, "error": "Invalid token."}
    assert response["WWW-Authenticate"] == "Token"
    assert not Revision.objects.exists()


def test_the_token_of_a_deactivated_user_is_refused(token, user):
    user.is_active = False
    user.save()
    response = client_with(token).get("/api/workspace/threads/t/document/")
    assert response.status_code == 401
    assert response.json() == {"success": False, "error": "User inactive or deleted."}


def test_a_token_deleted_here_is_refused_here_at_once(token, user):
    client = client_with(token)
    # Authenticated (the thread has no document yet): its row is kept a second now.
    assert client.get("/api/workspace/threads/t/document/").status_code == 404

    Token.objects.filter(key=token).delete()

    assert client.get("/api/workspace/threads/t/document/").status_code == 401


@pytest.mark.django_db(transaction=True)
def test_a_revoked_token_is_refused_by_every_server_process_within_a_second(token, user):
    servers = [Server(), Server(command=Server.GUNICORN)]
    try:
        path = "/api/workspace/threads/revoked/document/"
        # Authenticated (the thread has no document), each server keeping the token's row a second.
        assert [server.request("GET", path, token)[0] for server in servers] == [404, 404]

        # As another process would: no signal reaches these servers, only the database.
        Token.objects.filter(key=token).update(key="revoked-elsewhere")
        get_user_model().objects.filter(pk=user.pk).update(is_active=False)
        revoked_at = time.monotonic()
        refused_within = {}
        while len(refused_within) < len(servers) and time.monotonic() - revoked_at < 5:
            for number, server in enumerate(servers):
                if number not in refused_within and server.request("GET", path, token)[0] == 401:
                    refused_within[number] = time.monotonic() - revoked_at
            time.sleep(0.05)

        assert sorted(refused_within) == [0, 1]
        assert max(refused_within.values()) < 1.0 + 0.3  # a second, and a request's time to be served
    finally:
        for server in servers:
            server.stop()
