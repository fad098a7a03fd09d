"""Review in the panel, in headless Chromium against a real server (uvicorn,
and Pushpin in front of gunicorn): a person turns review on, an agent's
change arrives live as a proposal in every viewer's panel, and a person
accepts all of it, none, or one part of two; a conflict shows its sides; a
person who may only read sees proposals without controls."""

import json
import os
import shutil

import pytest
from django.contrib.auth import get_user_model

from tests.support import require_or_skip, start_stream_server, stored
from tests.support.browser import (
    AXE,
    WHY,
    button,
    chromium_page,
    expect,
    open_panel,
    serious_violations,
    session_cookie,
    wait_for_version,
)
from tests.support.live import REPOSITORY

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

START = "# Plan\nday one: museum\nday two: beach\nday three: hills\n"
POLICY = "tests.panel.test_panel_review_browser.the_owner_writes"


def the_owner_writes(user, thread_id, action):
    """The servers' access policy here: anyone signed in reads, agent-owner alone writes."""
    return action == "read" or user.get_username() == "agent-owner"


@pytest.fixture(scope="module", params=["uvicorn", "pushpin"], ids=["uvicorn", "through Pushpin"])
def server(request, django_db_setup):
    server = start_stream_server(request.param, WORKSPACE_ACCESS_POLICY=POLICY)
    yield server
    server.stop()


def open_as_reader(page, server, thread_id):
    get_user_model().objects.get_or_create(username="reader")
    page.context.add_cookies([session_cookie(server, "reader")])
    page.goto(f"{server.url}/workspace/threads/{thread_id}/")
    page.wait_for_selector("#status.live")


def in_review(page, server, user_token, thread_id):
    """The thread at version 1, its panel open on `page` as agent-owner, review turned on there."""
    server.call(user_token, thread_id, "update_document", content=START, title="Plan", action_and_reasoning=WHY)
    open_panel(page, server, thread_id)
    wait_for_version(page, 1)
    toggle = button(page, "Review agents' changes")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#review-on")).to_be_visible()


def proposal(page):
    return page.locator("#proposals-list .proposal")


def test_a_proposal_arrives_live_in_every_panel_and_accept_all_applies_it(server, user_token):
    with chromium_page() as page, chromium_page() as reader:
        in_review(page, server, user_token, "review-1")
        open_as_reader(reader, server, "review-1")
        expect(reader.locator("#review-on")).to_be_visible()
        expect(reader.get_by_role("button", name="Review agents' changes")).to_have_count(0)

        answer = server.call(
            user_token,
            "review-1",
            "edit_document",
            old_str="beach",
            new_str="surf lesson",
            action_and_reasoning="Booked.",
        )
        assert answer["summary"].startswith("proposed (")
        for viewer in (page, reader):
            expect(proposal(viewer)).to_have_count(1)
            expect(proposal(viewer).locator(".reason")).to_have_text("Booked.")
            expect(proposal(viewer).locator("del")).to_have_text("day two: beach")
            expect(proposal(viewer).locator("ins")).to_have_text("day two: surf lesson")
        expect(reader.get_by_role("button", name="Accept all")).to_have_count(0)  # a reader decides nothing
        expect(reader.get_by_role("radio")).to_have_count(0)
        wait_for_version(page, 1)  # nothing applied yet

        button(page, "Accept all").click()
        for viewer in (page, reader):
            wait_for_version(viewer, 2)
            expect(proposal(viewer)).to_have_count(0)
            expect(viewer.locator("#rendered")).to_contain_text("day two: surf lesson")
            expect(viewer.locator("#activity li").first).to_contain_text("accepted by agent-owner")
    assert stored("review-1")["content"] == START.replace("beach", "surf lesson")


def test_reject_all_changes_nothing_and_says_so(server, user_token):
    with chromium_page() as page:
        in_review(page, server, user_token, "review-2")
        server.call(user_token, "review-2", "append_to_document", text="day four: rest\n", action_and_reasoning=WHY)
        expect(proposal(page)).to_have_count(1)
        button(page, "Reject all").click()
        expect(proposal(page)).to_have_count(0)
        expect(page.locator("#activity")).to_contain_text("rejected by agent-owner")
        wait_for_version(page, 1)
    assert stored("review-2")["version"] == 1


def test_one_part_of_two_is_applied_when_the_other_is_rejected(server, user_token):
    with chromium_page() as page:
        in_review(page, server, user_token, "review-3")
        content = START.replace("museum", "castle").replace("hills", "lake")
        server.call(user_token, "review-3", "update_document", content=content, action_and_reasoning=WHY)
        expect(proposal(page).locator(".hunk")).to_have_count(2)
        proposal(page).locator('[data-hunk="0"]').get_by_role("radio", name="Reject").check()
        button(page, "Apply decision").click()
        wait_for_version(page, 2)
        expect(proposal(page)).to_have_count(0)
    assert stored("review-3")["content"] == START.replace("hills", "lake")


def test_a_conflict_shows_its_three_sides_and_the_proposal_stays(server, user_token):
    with chromium_page() as page:
        in_review(page, server, user_token, "review-4")
        server.call(user_token, "review-4", "edit_document", old_str="beach", new_str="surf", action_and_reasoning=WHY)
        expect(proposal(page)).to_have_count(1)
        edit = json.dumps({"content": START.replace("beach", "pool")})
        status, _ = server.request(
            "PUT", "/api/workspace/threads/review-4/document/", user_token, edit, {"If-Match": '"1"'}
        )
        assert status == 200
        wait_for_version(page, 2)
        button(page, "Accept all").click()
        conflict = proposal(page).locator(".conflict")
        expect(conflict).to_have_count(1)
        expect(conflict).to_contain_text("day two: pool")
        expect(conflict).to_contain_text("day two: surf")
        expect(page.locator("#notice")).to_contain_text("conflicts with changes made since")
        expect(proposal(page)).to_have_count(1)
    assert stored("review-4")["content"] == START.replace("beach", "pool")


def test_the_panel_with_proposals_open_has_no_serious_accessibility_violation(server, user_token):
    require_or_skip(AXE.exists(), "axe-core from npm (npm ci)")
    with chromium_page(bypass_csp=True) as page:  # bypass_csp: to inject axe-core, a script of the test's
        in_review(page, server, user_token, "review-5")
        content = START.replace("museum", "castle").replace("hills", "lake")
        server.call(
            user_token, "review-5", "update_document", content=content, title="Better", action_and_reasoning=WHY
        )
        expect(proposal(page).locator(".hunk")).to_have_count(2)
        serious = serious_violations(page)
    assert serious == []


def test_the_docs_screenshot_of_a_proposal(server, user_token, tmp_path):
    """Takes docs/panel-review.png, the picture of docs/review.md; written there
    only with WORKSPACE_UPDATE_SCREENSHOT=1, so that a test run leaves the tree as it was."""
    brief = "# Brief\n\n- Goal: a quiet week\n- Dates: June\n- Budget: 900 EUR\n"
    server.call(user_token, "review-shot", "update_document", content=brief, title="Brief", action_and_reasoning=WHY)
    with chromium_page(viewport={"width": 1200, "height": 760}) as page:
        open_panel(page, server, "review-shot")
        wait_for_version(page, 1)
        button(page, "Review agents' changes").click()
        expect(page.locator("#review-on")).to_be_visible()
        better = brief.replace("a quiet week", "a quiet week by the sea").replace("900", "1,200")
        reason = "The user wants the sea; that costs more."
        server.call(user_token, "review-shot", "update_document", content=better, action_and_reasoning=reason)
        expect(proposal(page).locator(".hunk")).to_have_count(2)
        page.screenshot(path=str(tmp_path / "panel-review.png"))
    assert (tmp_path / "panel-review.png").stat().st_size > 10_000
    if os.environ.get("WORKSPACE_UPDATE_SCREENSHOT"):
        shutil.copyfile(tmp_path / "panel-review.png", REPOSITORY / "docs" / "panel-review.png")
