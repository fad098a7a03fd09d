"""The live panel in headless Chromium, against a real server (uvicorn, and
Pushpin in front of gunicorn): what a person sees. The tests named
test_panel_save_* need the person's PUT and restore endpoints."""

import http.server
import os
import re
import shutil
import threading
from pathlib import Path

import pytest

from tests.support import require_or_skip, stored
from tests.support.browser import (
    AXE,
    HOSTILE,
    WHY,
    button,
    chromium_page,
    expect,
    markdown_document,
    open_panel,
    panel_timings,
    rendered,
    serious_violations,
    wait_for_version,
)
from tests.support.live import REPOSITORY

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.fixture(scope="module")
def server(stream_server):
    return stream_server


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
    from tests.support.live import Server

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

- [x] Book the flights
- [ ] Book the hotel

> Pack light: the streets are steep.

```python
def budget(days):
    return 120 * days  # euros
```
"""


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
        boxes = rendered(page).get_by_role("checkbox")
        expect(boxes).to_have_count(2)
        expect(rendered(page).get_by_role("checkbox", name="Book the flights")).to_be_checked()
        expect(rendered(page).get_by_role("checkbox", name="Book the hotel")).not_to_be_checked()
        for index in range(2):
            expect(boxes.nth(index)).to_be_disabled()  # the panel shows the document; Edit changes it
        expect(rendered(page).locator("blockquote")).to_have_text("Pack light: the streets are steep.")
        code = rendered(page).locator("pre code.language-python")
        expect(code.locator(".hljs-keyword").first).to_have_text("def")  # highlighted, once loaded
        expect(code.locator(".hljs-comment")).to_have_text("# euros")
        expect(code).to_have_text("def budget(days):\n    return 120 * days  # euros\n")
        assert page.evaluate("document.querySelectorAll('#rendered [style]').length") == 0

        button(page, "Source").click()
        expect(page.locator("#content")).to_be_visible()
        expect(page.locator("#content")).to_have_text(MARKDOWN)
        expect(rendered(page)).to_be_hidden()
        button(page, "Source").click()
        expect(rendered(page)).to_be_visible()


def test_a_hostile_document_runs_nothing_and_sends_nothing_away(server, user_token, elsewhere):
    away = f"http://127.0.0.1:{elsewhere.port}/leak.png?secret=1"
    hostile = (
        f'{HOSTILE}\n\n[click me](javascript:window.pwned=3)\n\n![tracker]({away})\n\n<img src="{away}&raw=1">\n\n'
        '- [ ] <input type="text" autofocus onfocus="window.pwned = 4">\n\n'
        f'```html\n<img src="{away}&code=1" onerror="window.pwned = 5"><script>window.pwned = 6</script>\n```\n'
    )
    dialogs = []
    with chromium_page() as page:
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        open_panel(page, server, "hostile")
        server.call(user_token, "hostile", "update_document", content=hostile, action_and_reasoning=WHY)
        wait_for_version(page, 1)
        expect(rendered(page)).to_contain_text("<script>window.pwned = 1")  # raw HTML shown as text
        expect(rendered(page)).to_contain_text("[click me](javascript:window.pwned=3)")  # not a link
        assert rendered(page).locator("script, img, [onerror], [onfocus], input[type=text]").count() == 0
        expect(rendered(page).locator("pre code.hljs")).to_contain_text("<script>window.pwned = 6</script>")
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


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_the_panel_has_no_serious_accessibility_violation(server, user_token, color_scheme):
    require_or_skip(AXE.exists(), "axe-core from npm (npm ci)")
    thread_id = f"axe-{color_scheme}"
    server.call(user_token, thread_id, "update_document", content=MARKDOWN, title="Trip", action_and_reasoning=WHY)
    # bypass_csp: to inject axe-core, a script of the test's
    with chromium_page(bypass_csp=True, color_scheme=color_scheme) as page:
        open_panel(page, server, thread_id, through_the_form=True)  # the sign-in page works in a browser too
        wait_for_version(page, 1)
        button(page, "History").click()
        expect(page.locator("#history-view .diff").first).to_be_visible()
        button(page, "Edit").click()  # the editor's controls, and a conflict's, too
        page.fill("#edit-text", MARKDOWN.replace("Alfama", "Belém"))
        theirs = MARKDOWN.replace("Alfama", "Baixa")
        server.call(user_token, thread_id, "update_document", content=theirs, action_and_reasoning=WHY)
        wait_for_version(page, 2)
        button(page, "Save").click()
        expect(page.locator("#conflicts .conflict")).to_have_count(1)
        expect(rendered(page).locator(".hljs-keyword").first).to_be_visible()
        serious = serious_violations(page)
    assert serious == []


def test_before_the_first_change_the_panel_says_what_will_appear_and_then_the_title_once(server, user_token):
    with chromium_page() as page:
        open_panel(page, server, "empty-1")
        expect(page.locator("#title")).to_have_text("No document yet")
        expect(page.locator("#empty")).to_be_visible()
        expect(page.locator("#empty")).to_contain_text("When an agent writes this thread's document")
        expect(page.locator("#empty")).to_contain_text("press Edit")
        expect(rendered(page)).to_be_hidden()  # no empty card
        server.call(
            user_token, "empty-1", "update_document", content=MARKDOWN, title="Lisbon trip", action_and_reasoning=WHY
        )
        wait_for_version(page, 1)
        expect(page.locator("#empty")).to_be_hidden()
        # The document's own heading says the title: the header's is left to screen readers.
        expect(page.get_by_role("heading", name="Lisbon trip", exact=True)).to_have_count(2)
        expect(page.locator("#title")).to_have_class("visually-hidden")
        server.call(
            user_token,
            "empty-1",
            "update_document",
            content="No heading.\n",
            title="Lisbon trip",
            action_and_reasoning=WHY,
        )
        wait_for_version(page, 2)
        expect(page.locator("#title")).to_be_visible()


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
        page.once("dialog", lambda dialog: dialog.accept())  # "Drop your edit?": yes
        button(page, "Cancel").click()
        expect(page.locator("#editor")).to_be_hidden()
        page.reload()
        page.wait_for_selector("#status.live")
        expect(page.locator("#editor")).to_be_hidden()
    assert stored("keep-1")["version"] == 1


@pytest.mark.parametrize(("color_scheme", "name"), [("light", "panel.png"), ("dark", "panel-dark.png")])
def test_the_docs_screenshots_of_the_panel(server, user_token, tmp_path, color_scheme, name):
    """Takes docs/panel.png and docs/panel-dark.png, the pictures of the README
    and of docs/panel.md; written there only with WORKSPACE_UPDATE_SCREENSHOT=1,
    so that a test run leaves the tree as it was."""
    thread_id = f"screenshot-{color_scheme}"
    steps = [
        ("update_document", {"content": MARKDOWN, "title": "Lisbon trip"}, "Drafting the trip from the chat."),
        ("append_to_document", {"text": "\n## Budget\n\n- Flights: 240 EUR\n"}, "Adding the budget asked for."),
        ("append_to_document", {"text": "- Hotel: 3 nights\n"}, "The user chose three nights."),
    ]
    for tool, arguments, reason in steps:
        server.call(user_token, thread_id, tool, action_and_reasoning=reason, **arguments)
    with chromium_page(viewport={"width": 1200, "height": 760}, color_scheme=color_scheme) as page:
        open_panel(page, server, thread_id)
        wait_for_version(page, 3)
        expect(page.locator("#activity li")).to_have_count(3)
        expect(rendered(page).locator(".hljs-keyword").first).to_be_visible()
        page.screenshot(path=str(tmp_path / name))
    assert (tmp_path / name).stat().st_size > 10_000
    if os.environ.get("WORKSPACE_UPDATE_SCREENSHOT"):
        shutil.copyfile(tmp_path / name, REPOSITORY / "docs" / name)


# Rendering a 1 MB document fast: block by block, the first blocks at once, the rest in slices (docs/panel.md).


def test_a_1mb_document_shows_its_first_blocks_first_and_an_append_renders_only_its_end(uvicorn_server, user_token):
    # The render is the same whichever server carries the append's event.
    # How soon, in milliseconds, is measured by bench/panel_render.py, not here.
    document = markdown_document(990_000)
    uvicorn_server.call(user_token, "big-1", "update_document", content=document, title="Big", action_and_reasoning=WHY)
    appended = "\n## Appended live\n\nThe appended paragraph, with a [reference][ref1].\n"
    with chromium_page() as page:
        page.add_init_script("window.__workspacePanelTimings = []")
        open_panel(page, uvicorn_server, "big-1")
        wait_for_version(page, 1)
        first = panel_timings(page, 1, "shownMs")
        complete = panel_timings(page, 1, "completeMs")
        expect(rendered(page).locator("h1")).to_have_text("The last heading")
        code = rendered(page).locator("pre > code[class*='language-']")
        highlighted = rendered(page).locator("pre > code.hljs")
        assert 0 < highlighted.count() < code.count() / 10, "code is highlighted only near the view"
        code.last.scroll_into_view_if_needed()
        expect(code.last).to_have_class(re.compile(r"\bhljs\b"))  # once scrolled to

        uvicorn_server.call(user_token, "big-1", "append_to_document", text=appended, action_and_reasoning=WHY)
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


SHOWN_CONTROLS = """() => {
  const controls = "button, a[href], input, textarea, select, [tabindex]:not([tabindex='-1'])";
  const shown = (element) => !element.disabled && element.getClientRects().length > 0
    && getComputedStyle(element).visibility !== "hidden";
  return [...document.querySelectorAll(controls)].filter(shown)
    .map((element) => element.id || element.getAttribute("aria-label") || element.textContent.trim());
}"""
FOCUSED = """() => {
  const element = document.activeElement;
  if (!element || element === document.body || element === document.documentElement) return { name: "" };
  const style = getComputedStyle(element);
  return {
    name: element.id || element.getAttribute("aria-label") || element.textContent.trim(),
    ring: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0,
  };
}"""


def tab_through(page) -> tuple[list[str], list[dict]]:
    """The page's shown controls, and what Tab focuses from the top until focus comes round again."""
    expected = page.evaluate(SHOWN_CONTROLS)
    reached: list[dict] = []
    for _ in range(len(expected) + 5):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if reached and focused == reached[0]:
            break
        if focused["name"]:
            reached.append(focused)
    return expected, reached


def test_every_control_is_reached_by_tab_and_shows_where_the_focus_is(server, user_token):
    server.call(user_token, "keys", "update_document", content=MARKDOWN, title="Trip", action_and_reasoning=WHY)
    server.call(user_token, "keys", "append_to_document", text="More.\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        open_panel(page, server, "keys")
        wait_for_version(page, 2)
        views = {}
        views["reading"] = tab_through(page)
        button(page, "History").click()
        expect(page.locator("#history-view .diff").first).to_be_visible()
        button(page, "Previous version").click()  # a past version: its restore too
        expect(button(page, "Restore this version")).to_be_visible()
        views["history"] = tab_through(page)
        button(page, "History").click()
        button(page, "Edit").click()
        views["editing"] = tab_through(page)
    for view, (expected, reached) in views.items():
        names = [focused["name"] for focused in reached]
        assert set(expected) <= set(names), f"{view}: Tab never reaches {sorted(set(expected) - set(names))}"
        assert [focused["name"] for focused in reached if not focused["ring"]] == [], f"{view}: focus not shown"
    assert {"edit", "history-toggle", "copy", "download"} <= set(views["reading"][0])
    assert {"save", "cancel", "edit-text", "edit-reason"} <= set(views["editing"][0])
    assert {"history-next", "restore-reason", "restore"} <= set(views["history"][0])  # at version 1: no previous
