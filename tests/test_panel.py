"""The live panel page, served by the test client (the browser test drives it for real)."""

import pytest
from django.test import override_settings

pytestmark = pytest.mark.django_db


def test_the_panel_needs_a_login(client):
    response = client.get("/workspace/threads/t-1/")
    assert response.status_code == 302
    assert response["Location"].startswith("/workspace/login/?next=/workspace/threads/t-1/")


def test_the_panel_page_points_at_the_thread_and_runs_only_its_own_script(client, user):
    client.force_login(user)
    response = client.get("/workspace/threads/t-1/")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'data-document-url="/api/workspace/threads/t-1/document/"' in page
    assert 'data-events-url="/api/workspace/threads/t-1/events/"' in page
    assert '<script src="/static/workspace/panel.js">' in page
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_a_bad_thread_id_is_400(client, user):
    client.force_login(user)
    assert client.get("/workspace/threads/a%20b/").status_code == 400


@override_settings(WORKSPACE_ACCESS_POLICY="workspace.access.deny_all")
def test_the_policy_applies_to_the_panel(client, user):
    client.force_login(user)
    assert client.get("/workspace/threads/t-1/").status_code == 403
