"""The host's own settings (USE_TZ, REST_FRAMEWORK, a custom user model) do not
change how the app's endpoints behave."""

import os
import subprocess
import sys
from datetime import datetime, timedelta
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection
from django.test import override_settings
from django.urls import include, path
from django.utils import timezone
from django_eventstream.models import Event as StoredEvent

from tests.support import call_tool, live, stored, workspace_messages
from workspace.events import artifact_channel
from workspace.models import IdempotencyRecord

pytestmark = pytest.mark.django_db

WHY = "Host settings test."
WITH_CHARTS = ["workspace.tools.documents.DocumentTools", "tests.server_tools.ChartTools"]
HOST_SUITE = ["tests/hosts/suite.py"]


def close_to_now(moment) -> bool:
    """Whether a timestamp read back is this minute's: written in the zone it is read in."""
    return abs(moment - timezone.now()) < timedelta(minutes=1)


# A zone far from UTC, so that a time written as UTC and read as local time (or
# the other way round) is hours away from now.
@override_settings(USE_TZ=False, TIME_ZONE="Pacific/Kiritimati")
def test_without_time_zones_a_call_with_an_idempotency_key_is_applied_once(api):
    body = {"text": "- milk\n", "action_and_reasoning": WHY}
    first = call_tool(api, "naive", "append_to_document", body, **{"Idempotency-Key": "k-naive"})
    retry = call_tool(api, "naive", "append_to_document", body, **{"Idempotency-Key": "k-naive"})

    assert first.status_code == retry.status_code == 200, first.json()
    assert retry.json() == first.json() == {"success": True, "summary": "appended (7 chars total)", "artifact": None}
    assert retry["Idempotent-Replayed"] == "true"
    assert stored("naive")["version"] == 1
    assert close_to_now(IdempotencyRecord.objects.get(key="k-naive").created_at)
    shown = datetime.fromisoformat(api.get("/api/workspace/threads/naive/document/").json()["updated_at"])
    assert shown.tzinfo is None and close_to_now(shown)  # in TIME_ZONE, as the host's other times


@override_settings(USE_TZ=False, TIME_ZONE="Pacific/Kiritimati", WORKSPACE_TOOL_COLLECTIONS=WITH_CHARTS)
def test_without_time_zones_a_tool_returns_its_artifact_and_stores_its_event(api):
    response = call_tool(api, "naive-chart", "make_chart", {"points": [3, 1], "action_and_reasoning": WHY})

    assert response.status_code == 200, response.json()
    assert response.json()["artifact"] == {"kind": "chart", "points": [3, 1]}
    event = StoredEvent.objects.get(channel=artifact_channel("naive-chart"), eid=1)
    assert close_to_now(event.created)


def host_database_url() -> str | None:
    """For the host's process: on PostgreSQL a database named after this run's
    (so that runs side by side never share one); on SQLite a file of its own anyway."""
    if connection.vendor != "postgresql":
        return None
    parts = urlsplit(live.test_database_url())
    return urlunsplit(parts._replace(path=f"{parts.path}_host"))


@pytest.mark.timeout(600)
def test_a_host_with_its_own_user_model_and_rest_framework_defaults_changes_nothing_in_the_app():
    """tests/hosts/suite.py, under tests.hosts.settings: a user model with a UUID
    key and 254-character email usernames, and a REST_FRAMEWORK of the host's own
    (session authentication first, throttles, AllowAny, pagination, the browsable
    API, an exception handler, namespace versioning, a date format)."""
    environment = dict(os.environ)
    if url := host_database_url():
        environment["DATABASE_URL"] = url
    environment.pop("REDIS_URL", None)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-n0",
            "-q",
            "--ds=tests.hosts.settings",
            *HOST_SUITE,
        ],
        cwd=live.REPOSITORY,
        env=environment,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]


class BearerAuthentication:
    """A host's own scheme for programs (a JWT, say): it challenges with WWW-Authenticate."""

    def authenticate(self, request):
        return None

    def authenticate_header(self, request):
        return "Bearer"


SESSION = "rest_framework.authentication.SessionAuthentication"


@pytest.mark.parametrize(
    "classes",
    [[SESSION], [], None],
    ids=["session only", "none", "DRF's defaults: session and basic"],
)
def test_no_authentication_class_that_reads_tokens_is_a_warning(settings, classes):
    rest_framework = {**settings.REST_FRAMEWORK, "DEFAULT_AUTHENTICATION_CLASSES": classes}
    if classes is None:
        del rest_framework["DEFAULT_AUTHENTICATION_CLASSES"]
    settings.REST_FRAMEWORK = rest_framework
    messages = workspace_messages()
    assert set(messages) == {"workspace.W003"}
    assert "agents cannot authenticate" in messages["workspace.W003"].msg
    assert "workspace.authentication.TokenAuthentication" in messages["workspace.W003"].hint


@pytest.mark.parametrize(
    "token_class",
    [
        "workspace.authentication.TokenAuthentication",
        "rest_framework.authentication.TokenAuthentication",
        "tests.app.test_host_settings.BearerAuthentication",
    ],
)
def test_an_authentication_class_that_reads_tokens_after_the_session_passes(settings, token_class):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_AUTHENTICATION_CLASSES": [SESSION, token_class]}
    assert workspace_messages() == {}


def test_a_login_url_that_names_no_url_while_the_panel_is_served_is_an_error(settings):
    settings.ROOT_URLCONF, settings.LOGIN_URL = PanelWithoutLogin, "login"  # Django's default name
    messages = workspace_messages()
    assert set(messages) == {"workspace.E017"}
    assert "'login'" in messages["workspace.E017"].msg and "NoReverseMatch" in messages["workspace.E017"].msg
    assert messages["workspace.E017"].hint


class PanelWithoutLogin:
    """A host's URLconf: the panel, and no view named "login"."""

    urlpatterns = [path("workspace/", include("workspace.panel_urls"))]


class ApiWithoutPanel:
    urlpatterns = [path("api/workspace/", include("workspace.urls"))]


@pytest.mark.parametrize(
    "urls, login_url",
    [
        (PanelWithoutLogin, "/sign-in/"),  # a path: followed as it is
        (PanelWithoutLogin, "https://sso.example.com/login"),
        (ApiWithoutPanel, "login"),  # no panel: nobody is sent there
    ],
    ids=["path", "another site", "no panel"],
)
def test_a_login_url_that_resolves_or_no_panel_passes(settings, urls, login_url):
    settings.ROOT_URLCONF, settings.LOGIN_URL = urls, login_url
    assert workspace_messages() == {}


def without_redis(monkeypatch) -> None:
    """As if the redis package were not installed: importing it fails."""
    monkeypatch.setitem(sys.modules, "redis", None)


REDIS_CACHE = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1"}}


def test_eventstream_redis_without_the_redis_package_is_an_error(settings, monkeypatch):
    settings.EVENTSTREAM_REDIS = {"host": "127.0.0.1", "port": 6379}
    without_redis(monkeypatch)
    messages = workspace_messages()
    assert set(messages) == {"workspace.E018"}
    assert "(EVENTSTREAM_REDIS)" in messages["workspace.E018"].msg
    assert "[redis]" in messages["workspace.E018"].hint


def test_a_redis_cache_without_the_redis_package_is_an_error(settings, monkeypatch):
    settings.CACHES = REDIS_CACHE
    without_redis(monkeypatch)
    assert set(workspace_messages()) == {"workspace.E018"}


def test_redis_settings_with_the_redis_package_pass(settings):
    settings.EVENTSTREAM_REDIS = {"host": "127.0.0.1", "port": 6379}
    settings.CACHES = REDIS_CACHE
    assert workspace_messages() == {}


def test_no_redis_settings_and_no_redis_package_pass(monkeypatch):
    without_redis(monkeypatch)
    assert workspace_messages() == {}
