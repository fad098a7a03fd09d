"""The live panel in headless Chromium, against a real server (uvicorn, and
Pushpin in front of gunicorn): what a person sees."""

import os
import shutil

import pytest

from .conftest import stored

pytestmark = pytest.mark.django_db(transaction=True)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WHY = "Browser test."
HOSTILE = '<script>window.pwned = 1; alert("x")</script><img src=x onerror="window.pwned = 2">'

if not os.path.exists(CHROMIUM):
    if os.environ.get("WORKSPACE_TESTS_REQUIRE_ALL"):
        raise RuntimeError(f"no Chromium at {CHROMIUM}: install Debian's chromium package")
    pytest.skip("no Chromium here (apt-get install chromium)", allow_module_level=True)

playwright_api = pytest.importorskip("playwright.sync_api")
sync_playwright, expect = playwright_api.sync_playwright, playwright_api.expect


@pytest.fixture
def user_token(user):
    """A plain user (not staff) who can sign in on the server and call the API."""
    from django.contrib.auth.hashers import make_password
    from rest_framework.authtoken.models import Token

    user.password = make_password("pw", hasher="pbkdf2_sha256")  # a hash the server's settings know
    user.save()
    return Token.objects.create(user=user).key


@pytest.fixture(scope="module")
def server(stream_server):
    return stream_server


def launch(playwright):
    return playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=[
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-quic",
            "--disable-component-update",
            "--disable-sync",
        ],
    )


def open_panel(page, server, thread_id):
    page.goto(f"{server.url}/workspace/threads/{thread_id}/")
    page.fill("#id_username", "agent-owner")
    page.fill("#id_password", "pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"{server.url}/workspace/threads/{thread_id}/")
    page.wait_for_selector("#status.live")


def wait_for_version(page, version: int):
    # A locator, not wait_for_function: the page's CSP forbids evaluating strings.
    expect(page.locator("#version")).to_have_text(str(version), timeout=15_000)


def test_the_panel_shows_every_change_live_and_content_only_as_text(server, user_token):
    server.call(user_token, "live-1", "update_document", content="first\n", title="Plan", action_and_reasoning=WHY)
    dialogs = []
    # No database work from here on: Playwright's event loop would make Django refuse it.
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page()
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

        open_panel(page, server, "live-1")
        wait_for_version(page, 1)
        assert page.text_content("#title") == "Plan"
        page.evaluate("window.sameDocument = true")  # gone if the page reloads

        server.call(user_token, "live-1", "append_to_document", text="second\n", action_and_reasoning=WHY)
        server.call(user_token, "live-1", "append_to_document", text="third 😀\n", action_and_reasoning=WHY)
        wait_for_version(page, 3)
        assert page.text_content("#content") == "first\nsecond\nthird 😀\n"
        assert page.text_content("#length") == str(len("first\nsecond\nthird 😀\n"))

        server.call(
            user_token, "live-1", "update_document", content=HOSTILE, title="<b>bold?</b>", action_and_reasoning=WHY
        )
        wait_for_version(page, 4)
        assert page.text_content("#content") == HOSTILE
        assert page.text_content("#title") == "<b>bold?</b>"
        assert page.evaluate("document.querySelectorAll('#content *, #title *').length") == 0
        page.wait_for_timeout(300)  # time for an injected handler to have run, were there one
        assert page.evaluate("window.pwned") is None
        assert page.evaluate("window.sameDocument") is True
        browser.close()

    assert dialogs == []
    assert stored("live-1")["version"] == 4


def test_the_panel_catches_up_after_its_server_restarts(user_token):
    from .live import Server

    first = Server()
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page()
        open_panel(page, first, "restart")
        first.call(user_token, "restart", "append_to_document", text="before\n", action_and_reasoning=WHY)
        wait_for_version(page, 1)  # by an event, so the browser holds a Last-Event-ID to resume from

        port = first.port
        first.stop()
        expect(page.locator("#status")).to_have_text("offline", timeout=15_000)
        # Written while the panel's server is down, through another process.
        elsewhere = Server()
        elsewhere.call(user_token, "restart", "append_to_document", text="while away\n", action_and_reasoning=WHY)
        elsewhere.stop()
        again = Server(port=port)
        try:
            wait_for_version(page, 2)
            again.call(user_token, "restart", "append_to_document", text="after\n", action_and_reasoning=WHY)
            wait_for_version(page, 3)
            assert page.text_content("#content") == "before\nwhile away\nafter\n"
            assert page.text_content("#status") == "live"
        finally:
            browser.close()
            again.stop()


def test_the_panel_retries_a_document_fetch_that_failed(server, user_token):
    server.call(user_token, "flaky", "update_document", content="stored text", action_and_reasoning=WHY)
    failures = []

    def fail_the_first_fetch(route):
        if not failures:
            failures.append(route.request.url)
            route.fulfill(status=503, body="busy")
        else:
            route.continue_()

    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page()
        page.route("**/api/workspace/threads/flaky/document/", fail_the_first_fetch)
        open_panel(page, server, "flaky")
        wait_for_version(page, 1)
        assert page.text_content("#content") == "stored text"
        expect(page.locator("#status")).to_have_text("live")
        browser.close()
    assert len(failures) == 1


def test_the_panel_fetches_a_change_too_large_for_its_event(server, user_token):
    large = "".join(f"line {n}\n" for n in range(12_000))  # over WORKSPACE_EVENT_MAX_CHARS
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page()
        open_panel(page, server, "large")
        server.call(user_token, "large", "append_to_document", text="start\n", action_and_reasoning=WHY)
        wait_for_version(page, 1)
        server.call(user_token, "large", "update_document", content=large, action_and_reasoning=WHY)
        server.call(user_token, "large", "append_to_document", text="end\n", action_and_reasoning=WHY)
        wait_for_version(page, 3)
        assert page.text_content("#content") == large + "end\n"
        browser.close()
