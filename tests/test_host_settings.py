"""The host's own settings (USE_TZ, REST_FRAMEWORK, a custom user model) do not
change how the app's endpoints behave."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone
from django_eventstream.models import Event as StoredEvent

from workspace.events import artifact_channel
from workspace.models import IdempotencyRecord

from .conftest import call_tool, stored

pytestmark = pytest.mark.django_db

WHY = "Host settings test."
WITH_CHARTS = ["workspace.tools.documents.DocumentTools", "tests.server_tools.ChartTools"]


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
