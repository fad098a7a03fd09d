"""The host's own settings (USE_TZ, REST_FRAMEWORK, a custom user model) do not
change how the app's endpoints behave."""

import os
import subprocess
import sys
from datetime import timedelta
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone
from django_eventstream.models import Event as StoredEvent

from workspace.events import artifact_channel
from workspace.models import IdempotencyRecord

from . import live
from .conftest import call_tool, stored

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
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    if url := host_database_url():
        environment["DATABASE_URL"] = url
    environment.pop("REDIS_URL", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--ds=tests.hosts.settings", *HOST_SUITE],
        cwd=live.REPOSITORY,
        env=environment,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
