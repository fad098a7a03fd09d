"""The panel page, served by the test client: what it points at, its CSP, its
controls by accessible name, and who gets the controls that write (the browser
tests, test_panel_*_browser.py, drive it for real)."""

from html.parser import HTMLParser

import pytest
from django.contrib.staticfiles import finders
from django.test import override_settings

from workspace.history.revisions import DIFF_MAX_LINES

pytestmark = pytest.mark.django_db

WRITE_CONTROLS = {"Edit", "Save", "Cancel", "Restore this version"}
READ_CONTROLS = {"Source", "History", "Copy", "Download .md"}


def read_only_policy(user, thread_id, action="read"):
    """Every signed-in user reads every thread; nobody writes."""
    return bool(user.is_authenticated) and action == "read"


class Controls(HTMLParser):
    """The page's buttons and links by their text (their accessible name here),
    and every <script> with its attributes and whether it has inline code."""

    def __init__(self):
        super().__init__()
        self.names: set[str] = set()
        self.scripts: list[tuple[dict, str]] = []
        self._open: str | None = None
        self._text = ""

    def handle_starttag(self, tag, attrs):
        if tag in ("button", "a", "script"):
            self._open, self._text = tag, ""
            if tag == "script":
                self.scripts.append((dict(attrs), ""))

    def handle_data(self, data):
        if self._open:
            self._text += data

    def handle_endtag(self, tag):
        if tag != self._open:
            return  # the end of an element inside (an icon's)
        if tag == "script":
            self.scripts[-1] = (self.scripts[-1][0], self._text.strip())
        else:
            self.names.add(" ".join(self._text.split()))
        self._open = None


def panel(client, user, thread_id="t-1"):
    client.force_login(user)
    response = client.get(f"/workspace/threads/{thread_id}/")
    assert response.status_code == 200
    controls = Controls()
    controls.feed(response.content.decode())
    return response, controls


def test_the_panel_needs_a_login(client):
    response = client.get("/workspace/threads/t-1/")
    assert response.status_code == 302
    assert response["Location"].startswith("/workspace/login/?next=/workspace/threads/t-1/")


def test_the_panel_page_points_at_the_thread_and_runs_only_its_own_module(client, user):
    response, controls = panel(client, user)
    page = response.content.decode()
    assert 'data-document-url="/api/workspace/threads/t-1/document/"' in page
    assert 'data-events-url="/api/workspace/threads/t-1/events/"' in page
    assert 'data-revisions-url="/api/workspace/threads/t-1/revisions/"' in page
    assert controls.scripts == [({"type": "module", "src": "/static/workspace/panel-page.js"}, "")]


def test_the_content_security_policy_allows_no_inline_script_and_images_from_the_page_only(client, user):
    response, _ = panel(client, user)
    policy = dict(directive.strip().split(" ", 1) for directive in response["Content-Security-Policy"].split(";"))
    assert policy["script-src"] == "'self'"
    assert policy["img-src"] == "'self' data:"
    assert policy["default-src"] == "'none'"
    assert policy["connect-src"] == "'self'"
    assert "unsafe" not in response["Content-Security-Policy"]


def test_the_history_bounds_its_diffs_by_the_admins_line_bound(client, user):
    response, _ = panel(client, user)
    assert f'data-diff-max-lines="{DIFF_MAX_LINES}"' in response.content.decode()


def test_the_panel_and_its_sign_in_page_show_the_apps_icon_and_the_demo_answers_favicon_ico(client, user):
    icon = '<link rel="icon" href="/static/workspace/favicon.svg" type="image/svg+xml">'
    assert icon in client.get("/workspace/login/").content.decode()
    response, _ = panel(client, user)
    assert icon in response.content.decode()
    assert finders.find("workspace/favicon.svg")
    # Pages without an icon of their own (the admin's) ask for /favicon.ico.
    favicon = client.get("/favicon.ico")
    assert (favicon.status_code, favicon["Location"]) == (302, "/static/workspace/favicon.svg")


def test_a_user_who_may_write_gets_every_control(client, user):
    _, controls = panel(client, user)
    assert controls.names >= WRITE_CONTROLS | READ_CONTROLS


@override_settings(WORKSPACE_ACCESS_POLICY="tests.panel.test_panel.read_only_policy")
def test_a_user_who_may_only_read_gets_no_control_that_writes(client, user):
    response, controls = panel(client, user)
    assert controls.names >= READ_CONTROLS
    assert not WRITE_CONTROLS & controls.names
    assert 'data-can-write="false"' in response.content.decode()


def test_a_bad_thread_id_is_400(client, user):
    client.force_login(user)
    assert client.get("/workspace/threads/a%20b/").status_code == 400


@override_settings(WORKSPACE_ACCESS_POLICY="workspace.access.deny_all")
def test_the_policy_applies_to_the_panel(client, user):
    client.force_login(user)
    response = client.get("/workspace/threads/t-1/")
    assert response.status_code == 403
    assert b"data-document-url" not in response.content


def test_every_id_on_the_page_names_one_element(client, user):
    """The icons' sprite sits beside the controls: an icon named like a control would take its id."""

    class Ids(HTMLParser):
        def __init__(self):
            super().__init__()
            self.ids: list[str] = []

        def handle_starttag(self, tag, attrs):
            self.ids += [value for name, value in attrs if name == "id"]

    response, _ = panel(client, user)
    found = Ids()
    found.feed(response.content.decode())
    assert {"edit", "history", "restore", "icon-edit", "icon-history"} <= set(found.ids)
    assert len(found.ids) == len(set(found.ids))
