"""Live drafts in the panel, in headless Chromium against a real
server: a tool call's text shown while the agent still writes it, rendered as
the document is, marked as not yet saved, giving way to the saved change, and
never in the way of a person's edit."""

import json
import urllib.error
import urllib.request

import pytest

from tests.support import require_or_skip
from tests.support.browser import (
    AXE,
    HOSTILE,
    WHY,
    button,
    chromium_page,
    expect,
    open_panel,
    rendered,
    serious_violations,
    wait_for_version,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.fixture(scope="module")
def server(stream_server):
    return stream_server


TOP = "Drafts being written"
END = "Drafts being written at the end"


def drafts_path(thread_id: str, call_id: str) -> str:
    return f"/api/workspace/threads/{thread_id}/drafts/{call_id}/"


def json_pieces(arguments: dict, *cuts: str) -> list[str]:
    """The tool call's JSON arguments as a model streams them: cut before each of `cuts` (as in the JSON text)."""
    text = json.dumps(arguments, ensure_ascii=False)
    at = [0, *(text.index(cut) for cut in cuts), len(text)]
    return [text[start:end] for start, end in zip(at, at[1:], strict=False)]


def send_draft(server, token: str, thread_id: str, call_id: str, tool: str, delta: str) -> None:
    body = json.dumps({"tool": tool, "delta": delta})
    status, answer = server.request("POST", drafts_path(thread_id, call_id), token, body)
    assert status == 202, answer


def commit(server, token: str, thread_id: str, call_id: str, tool: str, arguments: dict) -> dict:
    """The tool call the draft was the start of, ending it (header Draft-Id)."""
    path = f"/api/workspace/threads/{thread_id}/tools/{tool}/"
    status, answer = server.request("POST", path, token, json.dumps(arguments), headers={"Draft-Id": call_id})
    assert status == 200, answer
    return answer


def cancel(server, token: str, thread_id: str, call_id: str) -> None:
    request = urllib.request.Request(server.url + drafts_path(thread_id, call_id), method="DELETE")
    request.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    assert status == 204


def region(page, name: str):
    return page.get_by_role("region", name=name, exact=True)


def test_a_draft_grows_live_as_markdown_and_gives_way_to_the_saved_change(server, user_token):
    server.call(user_token, "draft-1", "update_document", content="# Old plan\n\nold text\n", action_and_reasoning=WHY)
    arguments = {"title": "Plan B", "content": "# New plan\n\n- one\n- two\n", "action_and_reasoning": WHY}
    first, second, rest = json_pieces(arguments, "\\n- one", "\\n- two")
    with chromium_page() as page:
        open_panel(page, server, "draft-1")
        wait_for_version(page, 1)
        expect(region(page, TOP)).to_be_hidden()

        send_draft(server, user_token, "draft-1", "call-1", "update_document", first)
        send_draft(server, user_token, "draft-1", "call-1", "update_document", second)
        drafts = region(page, TOP)
        expect(drafts.locator("h1")).to_have_text("New plan")
        expect(drafts.locator("li")).to_have_count(1)
        marker = drafts.locator(".draft-marker")
        expect(marker).to_contain_text("Not yet saved")
        expect(marker).to_contain_text("agent-owner")
        expect(marker).to_contain_text("update_document")
        expect(marker).to_contain_text("Plan B")  # the title, once complete
        expect(drafts.locator(".draft-body")).to_have_attribute("aria-busy", "true")
        expect(rendered(page)).to_contain_text("old text")  # the saved document is still the one shown

        send_draft(server, user_token, "draft-1", "call-1", "update_document", rest)
        expect(drafts.locator("li")).to_have_count(2)  # growing, in place
        expect(drafts.locator(".draft")).to_have_count(1)

        commit(server, user_token, "draft-1", "call-1", "update_document", arguments)
        wait_for_version(page, 2)
        expect(region(page, TOP)).to_be_hidden()
        expect(rendered(page).locator("h1")).to_have_text("New plan")
        expect(page.locator("#activity")).not_to_contain_text("Draft by")


def test_an_append_draft_shows_after_the_documents_end_and_a_cancelled_one_is_noted(server, user_token):
    server.call(user_token, "draft-2", "update_document", content="# Trip\n\nday one\n", action_and_reasoning=WHY)
    arguments = {"text": "\n## Budget\n\n- flights\n", "action_and_reasoning": WHY}
    with chromium_page() as page:
        open_panel(page, server, "draft-2")
        wait_for_version(page, 1)
        for piece in json_pieces(arguments, "\\n- flights"):
            send_draft(server, user_token, "draft-2", "call-2", "append_to_document", piece)
        at_end = region(page, END)
        expect(at_end.locator("h2")).to_have_text("Budget")
        expect(at_end.locator("li")).to_have_text("flights")
        expect(at_end.locator(".draft-marker")).to_contain_text("append_to_document")
        expect(region(page, TOP)).to_be_hidden()
        after_the_document = page.evaluate(
            "document.getElementById('rendered').compareDocumentPosition(document.querySelector('#drafts-end .draft'))"
            " & Node.DOCUMENT_POSITION_FOLLOWING"
        )
        assert after_the_document

        cancel(server, user_token, "draft-2", "call-2")
        expect(at_end).to_be_hidden()
        expect(page.locator("#activity li").first).to_contain_text("Draft by agent-owner cancelled")
        expect(page.locator("#version")).to_have_text("1")


def test_several_drafts_are_shown_at_once_each_in_its_place_in_the_order_they_came(server, user_token):
    server.call(user_token, "draft-3", "update_document", content="# Doc\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        open_panel(page, server, "draft-3")
        wait_for_version(page, 1)
        send_draft(server, user_token, "draft-3", "first", "update_document", '{"content": "# First rewrite\\n')
        send_draft(server, user_token, "draft-3", "second", "append_to_document", '{"text": "## Appended\\n')
        send_draft(server, user_token, "draft-3", "third", "edit_document", '{"old_str": "Doc", "new_str": "**Third**')
        top = region(page, TOP).locator(".draft")
        expect(top).to_have_count(2)
        expect(top.nth(0)).to_have_attribute("data-call-id", "first")
        expect(top.nth(1)).to_have_attribute("data-call-id", "third")
        expect(top.nth(1).locator("strong")).to_have_text("Third")
        expect(region(page, END).locator(".draft")).to_have_attribute("data-call-id", "second")

        send_draft(server, user_token, "draft-3", "first", "update_document", "more\\n")
        expect(top.nth(0)).to_contain_text("more")  # grows where it is
        cancel(server, user_token, "draft-3", "first")
        expect(top).to_have_count(1)
        expect(top.nth(0)).to_have_attribute("data-call-id", "third")
        expect(region(page, END).locator(".draft")).to_have_count(1)


def test_a_draft_never_interrupts_a_person_editing(server, user_token):
    server.call(user_token, "draft-4", "update_document", content="first\n", action_and_reasoning=WHY)
    arguments = {"text": "agent's words\n", "action_and_reasoning": WHY}
    textarea = "document.getElementById('edit-text')"
    editing = f"[document.activeElement.id, {textarea}.value, {textarea}.selectionStart, {textarea}.selectionEnd]"
    with chromium_page() as page:
        open_panel(page, server, "draft-4")
        wait_for_version(page, 1)
        button(page, "Edit").click()
        page.fill("#edit-text", "first\nmy unsaved words\n")
        page.evaluate(f"{textarea}.setSelectionRange(6, 8)")
        assert page.evaluate(editing) == ["edit-text", "first\nmy unsaved words\n", 6, 8]

        for piece in json_pieces(arguments, "words"):
            send_draft(server, user_token, "draft-4", "call-4", "append_to_document", piece)
        expect(region(page, END)).to_contain_text("agent's words")
        assert page.evaluate(editing) == ["edit-text", "first\nmy unsaved words\n", 6, 8]

        commit(server, user_token, "draft-4", "call-4", "append_to_document", arguments)
        wait_for_version(page, 2)
        expect(region(page, END)).to_be_hidden()
        expect(page.locator("#others-list")).to_contain_text("agent's words")
        assert page.evaluate(editing) == ["edit-text", "first\nmy unsaved words\n", 6, 8]


def test_a_viewer_opening_mid_draft_sees_the_text_so_far_once(server, user_token):
    server.call(user_token, "draft-5", "update_document", content="# Doc\n", action_and_reasoning=WHY)
    send_draft(server, user_token, "draft-5", "call-5", "update_document", '{"content": "# Written before\\n\\nsome')
    with chromium_page() as page:
        open_panel(page, server, "draft-5")
        drafts = region(page, TOP)
        expect(drafts.locator("h1")).to_have_text("Written before")
        send_draft(server, user_token, "draft-5", "call-5", "update_document", " more")
        expect(drafts.locator("p", has_text="some more")).to_have_count(1)

        page.reload()  # a stream opened again: the open drafts afresh, none twice
        page.wait_for_selector("#status.live")
        expect(drafts.locator("p", has_text="some more")).to_have_count(1)
        expect(drafts.locator(".draft")).to_have_count(1)


def test_a_draft_too_long_for_its_event_shows_its_start_until_saved(server, user_token):
    server.call(user_token, "draft-8", "update_document", content="# Doc\n", action_and_reasoning=WHY)
    long = "# Long draft\n\n" + "".join(f"line {n}\n" for n in range(12_000))  # over WORKSPACE_EVENT_MAX_CHARS
    arguments = {"content": long, "action_and_reasoning": WHY}
    text = json.dumps(arguments)
    for start in range(0, len(text), 20_000):
        send_draft(server, user_token, "draft-8", "call-8", "update_document", text[start : start + 20_000])
    with chromium_page() as page:
        open_panel(page, server, "draft-8")  # opened mid-draft: the text so far, cut
        drafts = region(page, TOP)
        expect(drafts.locator("h1")).to_have_text("Long draft")
        expect(drafts.locator(".draft-omitted")).to_be_visible()
        commit(server, user_token, "draft-8", "call-8", "update_document", arguments)
        wait_for_version(page, 2)
        expect(drafts).to_be_hidden()
        expect(page.locator("#content")).to_have_text(long)


def test_a_hostile_draft_runs_nothing(server, user_token):
    server.call(user_token, "draft-6", "update_document", content="# Doc\n", action_and_reasoning=WHY)
    hostile = f"{HOSTILE}\n\n[click me](javascript:window.pwned=3)\n"
    dialogs = []
    with chromium_page() as page:
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        open_panel(page, server, "draft-6")
        wait_for_version(page, 1)
        send_draft(server, user_token, "draft-6", "call-6", "update_document", json.dumps({"content": hostile})[:-2])
        drafts = region(page, TOP)
        expect(drafts).to_contain_text("<script>window.pwned = 1")  # raw HTML shown as text
        assert drafts.locator("script, img, [onerror], a[href^='javascript']").count() == 0
        page.wait_for_timeout(300)  # time for an injected handler to have run, were there one
        assert page.evaluate("window.pwned") is None
    assert dialogs == []


def test_the_panel_with_drafts_has_no_serious_accessibility_violation(server, user_token):
    require_or_skip(AXE.exists(), "axe-core from npm (npm ci)")
    server.call(user_token, "draft-7", "update_document", content="# Doc\n", action_and_reasoning=WHY)
    with chromium_page(bypass_csp=True) as page:  # to inject axe-core, a script of the test's
        open_panel(page, server, "draft-7")
        wait_for_version(page, 1)
        send_draft(server, user_token, "draft-7", "over", "update_document", '{"content": "# Soon\\n\\n- a')
        send_draft(server, user_token, "draft-7", "end", "append_to_document", '{"text": "## Later\\n')
        expect(region(page, TOP).locator("h1")).to_have_text("Soon")
        expect(region(page, END).locator("h2")).to_have_text("Later")
        # Only the marker line is a live region: the growing text is not read out delta by delta.
        assert page.locator("#drafts [aria-live], #drafts-end [aria-live]").count() == 2
        assert page.locator(".draft-marker[aria-live=polite]").count() == 2
        serious = serious_violations(page)
    assert serious == []
