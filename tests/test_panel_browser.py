"""The live panel in headless Chromium, against a real server: what a person sees."""

import os
import shutil

import pytest

from .conftest import stored

pytestmark = pytest.mark.django_db(transaction=True)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WHY = "Browser test."
HOSTILE = '<script>window.pwned = 1; alert("x")</script><img src=x onerror="window.pwned = 2">'

if not os.path.exists(CHROMIUM):
    if os.environ.get("WORKSPACE_REQUIRE_BROWSER"):
        raise RuntimeError(f"no Chromium at {CHROMIUM}: install Debian's chromium package")
    pytest.skip("no Chromium here (apt-get install chromium)", allow_module_level=True)

sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright


@pytest.fixture
def staff_token(user):
    from django.contrib.auth.hashers import make_password
    from rest_framework.authtoken.models import Token

    user.is_staff = True  # the demo logs in through the admin's login page
    user.password = make_password("pw", hasher="pbkdf2_sha256")  # a hash the server's settings know
    user.save()
    return Token.objects.create(user=user).key


def test_the_panel_shows_every_change_live_and_content_only_as_text(server, staff_token):
    server.call(staff_token, "live-1", "update_document", content="first\n", title="Plan", action_and_reasoning=WHY)
    dialogs = []
    # No database work from here on: Playwright's event loop would make Django refuse it.
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-quic", "--disable-component-update", "--disable-sync"],
        )
        page = browser.new_page()
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

        page.goto(f"{server.url}/workspace/threads/live-1/")
        page.fill("#id_username", "agent-owner")
        page.fill("#id_password", "pw")
        page.click("input[type=submit]")
        page.wait_for_url(f"{server.url}/workspace/threads/live-1/")
        page.wait_for_selector("#status.live")
        page.wait_for_function("document.getElementById('version').textContent === '1'")
        assert page.text_content("#title") == "Plan"
        page.evaluate("window.sameDocument = true")  # gone if the page reloads

        server.call(staff_token, "live-1", "append_to_document", text="second\n", action_and_reasoning=WHY)
        server.call(staff_token, "live-1", "append_to_document", text="third 😀\n", action_and_reasoning=WHY)
        page.wait_for_function("document.getElementById('version').textContent === '3'")
        assert page.text_content("#content") == "first\nsecond\nthird 😀\n"
        assert page.text_content("#length") == str(len("first\nsecond\nthird 😀\n"))

        server.call(staff_token, "live-1", "update_document", content=HOSTILE, title="<b>bold?</b>", action_and_reasoning=WHY)
        page.wait_for_function("document.getElementById('version').textContent === '4'")
        assert page.text_content("#content") == HOSTILE
        assert page.text_content("#title") == "<b>bold?</b>"
        assert page.evaluate("document.querySelectorAll('#content *, #title *').length") == 0
        page.wait_for_timeout(300)  # time for an injected handler to have run, were there one
        assert page.evaluate("window.pwned") is None
        assert page.evaluate("window.sameDocument") is True
        browser.close()

    assert dialogs == []
    assert stored("live-1")["version"] == 4
