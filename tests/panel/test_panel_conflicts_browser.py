"""A person's edit in the panel, in headless Chromium against a real server:
saved, merged, or in conflict; a conflict always resolves (keep mine, take
theirs, keep both, by hand) without retyping; Cancel asks before dropping
typed text; a person may say why."""

import pytest

from tests.support import stored
from tests.support.browser import WHY, button, chromium_page, expect, open_panel, wait_for_version

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

START = "one\nkeep\ntwo\n"
MINE = "ONE\nkeep\nmine\n"  # the person changes the first line and the last
THEIRS = "one\nkeep\ntheirs\n"  # the agent, meanwhile, the last


@pytest.fixture(scope="module")
def server(stream_server):
    return stream_server


def start_editing(page, server, thread_id, version):
    open_panel(page, server, thread_id)
    wait_for_version(page, version)
    button(page, "Edit").click()


def conflict_in(page, server, user_token, thread_id):
    """Edit to MINE while the agent writes THEIRS, then Save: a conflict on the last line."""
    server.call(user_token, thread_id, "update_document", content=START, action_and_reasoning=WHY)
    start_editing(page, server, thread_id, 1)
    page.fill("#edit-text", MINE)
    server.call(user_token, thread_id, "update_document", content=THEIRS, action_and_reasoning="Theirs.")
    wait_for_version(page, 2)
    button(page, "Save").click()
    expect(page.locator("#conflicts .conflict")).to_have_count(1)


def choose(page, number, way):
    page.locator(f'#conflicts [data-conflict="{number}"]').get_by_role("radio", name=way, exact=True).check()


def test_panel_save_applies_an_edit_at_the_current_version_with_the_persons_reason(server, user_token):
    server.call(user_token, "save-1", "update_document", content="one\ntwo\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        start_editing(page, server, "save-1", 1)
        page.fill("#edit-text", "one\ntwo, edited\n")
        page.get_by_label("Why this edit (optional)").fill("Fixing the second line.")
        button(page, "Save").click()
        wait_for_version(page, 2)
        expect(page.locator("#notice")).to_have_text("Saved as version 2.")
        expect(page.locator("#editor")).to_be_hidden()
        newest = page.locator("#activity li").first
        expect(newest).to_contain_text("(person)")
        expect(newest.locator(".reason")).to_have_text("Fixing the second line.")
    from workspace.models import Revision

    revision = Revision.objects.get(document__thread_id="save-1", version=2)
    assert (revision.source, revision.action_and_reasoning) == ("person", "Fixing the second line.")
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


def test_a_conflict_shows_its_three_sides_saves_nothing_and_keeping_mine_applies_it(server, user_token):
    with chromium_page() as page:
        conflict_in(page, server, user_token, "conflict-1")
        conflict = page.locator("#conflicts .conflict")
        expect(conflict.locator(".side pre")).to_have_text(["two\n", "theirs\n", "mine\n"])
        expect(conflict.locator(".side h5").nth(1)).to_contain_text("by agent-owner")
        expect(page.locator("#notice")).to_contain_text("1 conflict with the changes by agent-owner")
        expect(page.locator("#conflicts")).to_contain_text("2 lines merged cleanly")  # "ONE" (the person's), "keep"
        expect(page.locator("#content")).to_have_text(THEIRS)
        expect(page.locator("#version")).to_have_text("2")

        button(page, "Save").click()  # no choice yet: nothing is sent
        expect(page.locator("#notice")).to_have_text("Not saved yet: choose how to resolve conflict 1.")
        choose(page, 1, "Keep mine")
        button(page, "Save").click()
        wait_for_version(page, 3)
        expect(page.locator("#notice")).to_have_text(
            "Saved as version 3, resolving 1 conflict with the changes by agent-owner."
        )
        expect(page.locator("#editor")).to_be_hidden()
    assert stored("conflict-1")["content"] == MINE


@pytest.mark.parametrize(
    ("way", "result"),
    [
        ("Take theirs", "ONE\nkeep\ntheirs\n"),
        ("Keep both (mine, then theirs)", "ONE\nkeep\nmine\ntheirs\n"),
    ],
)
def test_taking_theirs_or_keeping_both_keeps_every_clean_change_too(server, user_token, way, result):
    thread_id = f"conflict-{len(result)}"
    with chromium_page() as page:
        conflict_in(page, server, user_token, thread_id)
        choose(page, 1, way)
        button(page, "Save").click()
        wait_for_version(page, 3)
        expect(page.locator("#content")).to_have_text(result)
    assert stored(thread_id)["content"] == result


def test_a_conflict_resolved_by_hand_saves_what_the_person_wrote(server, user_token):
    with chromium_page() as page:
        conflict_in(page, server, user_token, "conflict-hand")
        choose(page, 1, "Edit by hand")
        page.get_by_label("Your text for conflict 1").fill("mine and theirs, reworded\n")
        button(page, "Save").click()
        wait_for_version(page, 3)
    assert stored("conflict-hand")["content"] == "ONE\nkeep\nmine and theirs, reworded\n"


def test_a_newer_conflict_on_the_resolved_save_resolves_the_same_way(server, user_token):
    with chromium_page() as page:
        conflict_in(page, server, user_token, "conflict-again")
        server.call(
            user_token, "conflict-again", "update_document", content="one\nkeep\nagain\n", action_and_reasoning=WHY
        )
        wait_for_version(page, 3)
        expect(page.locator("#others-list li")).to_have_count(1)  # the change after the resolution's base
        choose(page, 1, "Keep mine")
        button(page, "Save").click()  # from version 2, which version 3 changed again
        conflict = page.locator("#conflicts .conflict")
        expect(conflict.locator(".side pre")).to_have_text(["theirs\n", "again\n", "mine\n"])
        choose(page, 1, "Take theirs")
        button(page, "Save").click()
        wait_for_version(page, 4)
    assert stored("conflict-again")["content"] == "ONE\nkeep\nagain\n"


def test_cancel_asks_before_dropping_typed_text(server, user_token):
    server.call(user_token, "cancel-1", "update_document", content="first\n", action_and_reasoning=WHY)
    asked = []
    with chromium_page() as page:
        answers = iter([False, True])
        page.on(
            "dialog",
            lambda dialog: (asked.append(dialog.message), (dialog.accept if next(answers) else dialog.dismiss)()),
        )
        start_editing(page, server, "cancel-1", 1)
        button(page, "Cancel").click()  # nothing typed: closes without asking
        expect(page.locator("#editor")).to_be_hidden()
        button(page, "Edit").click()
        page.fill("#edit-text", "first\nmy words\n")
        button(page, "Cancel").click()  # dismissed: the edit stays
        expect(page.locator("#edit-text")).to_have_value("first\nmy words\n")
        button(page, "Cancel").click()  # accepted
        expect(page.locator("#editor")).to_be_hidden()
        expect(page.locator("#notice")).to_have_text("Edit cancelled; nothing was saved.")
    assert len(asked) == 2 and "will be lost" in asked[0]
    assert stored("cancel-1")["version"] == 1


# The merge a conflict is resolved from (merge3.js), run in the page.
MERGE_CASES = """async () => {
  const library = document.querySelector("script[type=module]").src.replace("panel-page.js", "panel.js");
  const { mergeParts, resolvedText } = await import(library);
  const all = (parts, way) => resolvedText(parts, parts.filter((part) => part.conflict).map(() => ({ way })));
  const cases = {
    apart: mergeParts("a\\nb\\nc\\nd\\n", "a\\nB\\nc\\nd\\n", "a\\nb\\nc\\nD\\n"),
    alike: mergeParts("a\\nb\\n", "a\\nX\\n", "a\\nX\\n"),
    crlf: mergeParts("a\\r\\nb\\r\\nc\\r\\n", "a\\r\\nB\\r\\nc\\r\\n", "a\\nb\\nc\\nd\\n"),
    both: mergeParts("a\\nb\\nc\\n", "a\\ntheirs\\nc\\n", "a\\nmine\\nc\\n"),
    noEnd: mergeParts("a\\nb", "a\\ntheirs", "a\\nmine"),
  };
  const far = Array.from({ length: 1500 }, (_, n) => `line ${n}\\n`).join("");
  cases.far = mergeParts(far, far.replaceAll("line", "theirs"), far.replaceAll("line", "mine"));
  return {
    apart: cases.apart,
    alike: cases.alike,
    crlf: cases.crlf,
    bothParts: cases.both,
    mine: all(cases.both, "mine"),
    theirs: all(cases.both, "theirs"),
    both: all(cases.both, "both"),
    noEndBoth: all(cases.noEnd, "both"),
    unresolved: resolvedText(cases.both, []),
    farConflicts: cases.far.length,
    farWhole: cases.far[0].conflict.current.length === far.replaceAll("line", "theirs").length,
  };
}"""


def test_the_merge_takes_each_sides_own_changes_and_gives_each_conflict_its_three_sides(uvicorn_server, user_token):
    # The merge runs in the page, the same whichever server is behind it: one server is enough.
    uvicorn_server.call(user_token, "merge-js", "update_document", content="a\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        open_panel(page, uvicorn_server, "merge-js")
        merged = page.evaluate(MERGE_CASES)
    assert merged["apart"] == [{"text": "a\nB\nc\nD\n"}]  # each side's own line, both kept
    assert merged["alike"] == [{"text": "a\nX\n"}]  # changed alike: once
    assert merged["crlf"] == [{"text": "a\nB\nc\nd\n"}]  # endings compared as LF: yours keeps b and c
    assert merged["bothParts"] == [
        {"text": "a\n"},
        {"conflict": {"base": "b\n", "current": "theirs\n", "yours": "mine\n"}},
        {"text": "c\n"},
    ]
    assert (merged["mine"], merged["theirs"], merged["both"]) == (
        "a\nmine\nc\n",
        "a\ntheirs\nc\n",
        "a\nmine\ntheirs\nc\n",
    )
    assert merged["noEndBoth"] == "a\nmine\ntheirs"  # a last line without an ending keeps both lines apart
    assert merged["unresolved"] is None  # no text until every conflict has a choice
    # Past the line diff's bounds (1,500 lines a side), the whole text is one conflict.
    assert (merged["farConflicts"], merged["farWhole"]) == (1, True)
