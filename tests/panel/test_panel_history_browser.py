"""The panel's history and activity in headless Chromium against a real
server: a list of versions to click through, Previous and Next, an activity
entry that opens its version, diffs and "the current version" kept true as
changes arrive, restore after a confirmation with a way back, and the same
words for every change live and after a reload."""

import json

import pytest

from tests.support import stored
from tests.support.browser import WHY, button, chromium_page, expect, open_panel, wait_for_version

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.fixture(scope="module")
def server(stream_server):
    return stream_server


def three_versions(server, user_token, thread_id):
    server.call(user_token, thread_id, "update_document", content="one\ntwo\n", action_and_reasoning=WHY)
    server.call(user_token, thread_id, "update_document", content="one\n2\n", action_and_reasoning="Numbers.")
    server.call(user_token, thread_id, "append_to_document", text="three\n", action_and_reasoning="Three.")


def version_in_list(page, version):
    return page.locator(f'#versions [data-version="{version}"] button')


def test_a_click_on_a_version_in_the_list_opens_it_with_its_diffs(server, user_token):
    three_versions(server, user_token, "hist-1")
    with chromium_page() as page:
        open_panel(page, server, "hist-1")
        wait_for_version(page, 3)
        button(page, "History").click()
        expect(page.locator("#versions li")).to_have_count(3)
        expect(page.locator("#versions li").first).to_contain_text("Three.")  # newest first
        version_in_list(page, 2).click()
        view = page.locator("#history-view")
        expect(view).to_contain_text("Numbers.")
        expect(version_in_list(page, 2)).to_have_attribute("aria-current", "true")
        against_previous, against_current = view.locator(".diff").nth(0), view.locator(".diff").nth(1)
        expect(against_previous.locator("del")).to_have_text("two\n")
        expect(against_previous.locator("ins")).to_have_text("2\n")
        expect(against_current.locator("ins")).to_have_text("three\n")

        button(page, "Previous version").click()
        expect(view.locator(".activity-head strong")).to_have_text("v1")
        expect(button(page, "Previous version")).to_be_disabled()
        button(page, "Next version").click()
        button(page, "Next version").click()
        expect(view.locator(".activity-head strong")).to_have_text("v3")
        expect(view).to_contain_text("Version 3 is the current version.")
        expect(button(page, "Next version")).to_be_disabled()


def test_an_activity_entry_opens_its_version(server, user_token):
    three_versions(server, user_token, "hist-act")
    with chromium_page() as page:
        open_panel(page, server, "hist-act")
        wait_for_version(page, 3)
        expect(page.locator("#history")).to_be_hidden()
        page.locator('#activity [data-version="1"] button').click()
        expect(page.locator("#history")).to_be_visible()
        expect(page.locator("#history-view .activity-head strong")).to_have_text("v1")
        expect(page.locator("#history-view")).to_contain_text("From version 1 to the current version 3")


def test_the_open_version_stays_true_as_changes_arrive_and_after_a_restore(server, user_token):
    three_versions(server, user_token, "hist-live")
    asked = []
    with chromium_page() as page:
        page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
        open_panel(page, server, "hist-live")
        wait_for_version(page, 3)
        button(page, "History").click()
        version_in_list(page, 1).click()
        view = page.locator("#history-view")
        expect(view).to_contain_text("From version 1 to the current version 3")

        server.call(user_token, "hist-live", "append_to_document", text="four\n", action_and_reasoning=WHY)
        wait_for_version(page, 4)
        expect(view).to_contain_text("From version 1 to the current version 4")
        expect(view.locator(".diff").nth(1).locator("ins")).to_have_text("2\nthree\nfour\n")
        expect(page.locator("#versions li")).to_have_count(4)

        page.get_by_label("Why restore it (optional)").fill("Back to the first plan.")
        button(page, "Restore this version").click()
        wait_for_version(page, 5)
        assert asked and asked[0].startswith("Restore version 1?")
        expect(page.locator("#notice")).to_contain_text("Version 1 restored as version 5.")
        expect(view).to_contain_text("From version 1 to the current version 5")
        expect(view.locator(".diff").nth(1)).to_contain_text("No difference.")
        expect(page.locator("#content")).to_have_text("one\ntwo\n")

        page.get_by_role("button", name="Undo: restore version 4").click()  # the way back
        wait_for_version(page, 6)
        expect(page.locator("#content")).to_have_text("one\n2\nthree\nfour\n")
    from workspace.models import Revision

    restored = Revision.objects.get(document__thread_id="hist-live", version=5)
    assert (restored.op, restored.restored_from, restored.action_and_reasoning) == (
        "restore",
        1,
        "Back to the first plan.",
    )
    assert Revision.objects.get(document__thread_id="hist-live", version=6).restored_from == 4


def test_a_dismissed_restore_restores_nothing(server, user_token):
    three_versions(server, user_token, "hist-no")
    with chromium_page() as page:
        page.on("dialog", lambda dialog: dialog.dismiss())
        open_panel(page, server, "hist-no")
        wait_for_version(page, 3)
        button(page, "History").click()
        version_in_list(page, 1).click()
        button(page, "Restore this version").click()
        page.wait_for_timeout(300)
        expect(page.locator("#version")).to_have_text("3")
    assert stored("hist-no")["version"] == 3


def test_a_slow_answer_for_an_earlier_version_does_not_replace_the_version_asked_for(server, user_token):
    server.call(user_token, "hist-2", "update_document", content="one\n", action_and_reasoning="First.")
    server.call(user_token, "hist-2", "update_document", content="two\n", action_and_reasoning="Second.")
    held = []
    with chromium_page() as page:
        page.on("dialog", lambda dialog: dialog.accept())
        page.route("**/threads/hist-2/revisions/2/", lambda route: held.append(route))
        open_panel(page, server, "hist-2")
        wait_for_version(page, 2)
        button(page, "History").click()  # opens the current version 2, whose answer is held
        version_in_list(page, 1).click()
        view = page.locator("#history-view")
        expect(view).to_contain_text("First.")
        expect(button(page, "Restore this version")).to_be_visible()
        held[0].continue_()  # the late answer for version 2
        page.evaluate("() => new Promise((done) => setTimeout(done, 300))")
        expect(view).to_contain_text("First.")
        expect(view).not_to_contain_text("Second.")
        button(page, "Restore this version").click()
        wait_for_version(page, 3)
    assert stored("hist-2")["content"] == "one\n"


def activity_words(page):
    """Each activity entry's words, without its time: version, who, tool, op and reason."""
    return page.evaluate(
        """() => [...document.querySelectorAll('#activity li[data-version]')].map((entry) => {
          const text = (selector) => (entry.querySelector(selector) || {}).textContent || null;
          return [entry.dataset.version, text('.author'), text('.tool'), text('.op'), text('.reason')];
        })"""
    )


def test_every_change_has_the_same_words_live_and_after_a_reload(server, user_token):
    token = {"Authorization": f"Token {user_token}", "Content-Type": "application/json"}
    with chromium_page() as page:
        open_panel(page, server, "words")
        server.call(user_token, "words", "update_document", content="a\nb\n", action_and_reasoning="Start.")
        server.call(user_token, "words", "append_to_document", text="c\n", action_and_reasoning="Add c.")
        server.call(user_token, "words", "edit_document", old_str="b", new_str="B", action_and_reasoning="Edit b.")
        server.request("POST", "/api/workspace/threads/words/revisions/1/restore/", headers=token, body="{}")
        edit = json.dumps({"content": "a\nb\nmine\n", "action_and_reasoning": "A person's line."})
        server.request("PUT", "/api/workspace/threads/words/document/", body=edit, headers={**token, "If-Match": '"4"'})
        wait_for_version(page, 5)
        expect(page.locator("#activity li[data-version]")).to_have_count(5)
        live = activity_words(page)
        page.reload()
        page.wait_for_selector("#status.live")
        wait_for_version(page, 5)
        expect(page.locator("#activity li[data-version]")).to_have_count(5)
        reloaded = activity_words(page)
    assert [entry[3] for entry in live] == ["update", "restore", "edit", "append", "update"]
    assert live[1][4] == "Restored version 1 by agent-owner."
    assert live[0][1:] == ["agent-owner (person)", None, "update", "A person's line."]
    assert live == reloaded
