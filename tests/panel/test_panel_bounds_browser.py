"""The panel in headless Chromium past what it can show as it is: two versions
too far apart for a line diff, Markdown nested deeper than the renderer goes,
a table's column alignment under the page's strict CSP, and a page that asks
for nothing it does not get (its icon included)."""

import re

import pytest

from tests.support.browser import WHY, button, chromium_page, expect, open_panel, rendered, wait_for_version

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

# Every Content-Security-Policy violation of the page, from its first script on
# (an init script runs before the page's own, and the page's CSP does not apply to it).
RECORD_CSP_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation",
  (event) => window.cspViolations.push(`${event.effectiveDirective} ${event.blockedURI}`));
"""


def lines(tag: str, count: int) -> str:
    return "".join(f"{tag} line {n}\n" for n in range(count))


def two_versions(server, token: str, thread_id: str, lines_a_side: int) -> None:
    """Version 1, then version 2 with every one of its ``lines_a_side`` lines changed."""
    for tag in ("first", "second"):
        server.call(token, thread_id, "update_document", content=lines(tag, lines_a_side), action_and_reasoning=WHY)


def changes_from_version_1(page, server, thread_id: str, why: str | re.Pattern[str]):
    """The panel's History at version 2: its comparison with version 1, once it says ``why`` it is shown whole."""
    open_panel(page, server, thread_id)
    wait_for_version(page, 2)
    button(page, "History").click()
    comparison = page.locator("#history-view .comparison").first
    expect(comparison.locator(".diff-why")).to_have_text(why, timeout=10_000)
    expect(comparison.locator("h5")).to_have_text(["Version 1", "Version 2"])
    assert comparison.locator("ins, del").count() == 0
    return comparison


def test_two_versions_of_too_many_lines_are_shown_whole_saying_why_and_the_page_stays_usable(server, user_token):
    # 20,000 differing lines a side: an unbounded line diff froze the tab for minutes.
    two_versions(server, user_token, "diff-big", 20_000)
    with chromium_page() as page:
        why = "Too many lines to compare (more than 1000 on a side): both versions are shown whole instead."
        comparison = changes_from_version_1(page, server, "diff-big", why)
        expect(comparison.locator(".version-text").first).to_contain_text("first line 19999")
        expect(comparison.locator(".version-text").last).to_contain_text("second line 19999")
        # Version 2 is the current version: nothing to compare it with.
        expect(page.locator("#history-view .same")).to_have_text("Version 2 is the current version.")
        button(page, "Source").click()  # the page still answers
        expect(page.locator("#content")).to_be_visible()


def test_two_versions_too_different_for_a_line_diff_are_shown_whole_saying_why(server, user_token):
    # 700 lines a side, within the line bound, but every line changed: 1,400 lines added and removed.
    two_versions(server, user_token, "diff-far", 700)
    too_many = "Too many changed lines to compare (more than 1000 lines added and removed)"
    # On a loaded machine the diff may reach its 250 ms bound before the edit bound: then it says that.
    too_long = "Comparing took too long (more than 250 ms)"
    with chromium_page() as page:
        why = re.compile(f"^({re.escape(too_many)}|{re.escape(too_long)}): both versions are shown whole instead.$")
        comparison = changes_from_version_1(page, server, "diff-far", why)
        expect(comparison.locator(".version-text").last).to_contain_text("second line 699")
        # Without the time bound, the edit bound is what stops it.
        refused = page.evaluate(
            """async () => {
              const library = document.querySelector("script[type=module]").src.replace("panel-page.js", "panel.js");
              const { diffElement } = await import(library);
              const lines = (tag) => Array.from({ length: 700 }, (_, n) => `${tag} line ${n}\n`).join("");
              return diffElement(lines("first"), lines("second"), { timeoutMs: Infinity }).querySelector(".diff-why")
                .textContent;
            }"""
        )
    assert refused == f"{too_many}: both versions are shown whole instead."


def test_a_line_diff_that_takes_too_long_gives_way_to_both_versions_whole_saying_why(server, user_token):
    server.call(user_token, "diff-slow", "update_document", content="a\n", action_and_reasoning=WHY)
    with chromium_page() as page:
        open_panel(page, server, "diff-slow")
        # The panel's own diffElement, with a time bound of 1 ms for 1,000 changed lines a side.
        shown = page.evaluate(
            """async () => {
              const library = document.querySelector("script[type=module]").src.replace("panel-page.js", "panel.js");
              const { diffElement } = await import(library);
              const lines = (tag) => Array.from({ length: 1000 }, (_, n) => `${tag} ${n}\\n`).join("");
              const shown = diffElement(lines("first"), lines("second"), { timeoutMs: 1, maxEditLength: Infinity });
              return [shown.querySelector(".diff-why").textContent, shown.querySelectorAll("pre").length];
            }"""
        )
    assert shown == ["Comparing took too long (more than 1 ms): both versions are shown whole instead.", 2]


def test_markdown_nested_deeper_than_the_renderer_goes_is_shown_as_its_source_with_a_notice(server, user_token):
    deep = ">" * 150 + " the deepest quote\n"
    content = f"# Nested\n\n{deep}\n> shallow quote\n\nAfter it.\n"
    server.call(user_token, "deep", "update_document", content=content, action_and_reasoning=WHY)
    with chromium_page() as page:
        open_panel(page, server, "deep")
        wait_for_version(page, 1)
        expect(rendered(page).locator("h1")).to_have_text("Nested")
        expect(rendered(page).locator(".unrendered-notice")).to_have_text(
            "Not rendered: this part is nested more than 100 levels deep, deeper than the panel renders. "
            "Its source is shown instead."
        )
        expect(rendered(page).locator("pre.unrendered")).to_have_text(deep.rstrip("\n"))
        expect(rendered(page).locator("blockquote").last).to_have_text("shallow quote")  # the rest is rendered
        expect(rendered(page).locator("p").last).to_have_text("After it.")


ALIGNED_TABLE = """| Day | Place | Cost |
|:----|:-----:|-----:|
| 1 | Alfama | 120 |
"""


def test_table_columns_are_aligned_under_the_pages_strict_csp(server, user_token):
    server.call(user_token, "aligned", "update_document", content=ALIGNED_TABLE, action_and_reasoning=WHY)
    with chromium_page() as page:
        page.add_init_script(RECORD_CSP_VIOLATIONS)
        open_panel(page, server, "aligned")
        wait_for_version(page, 1)
        cells = rendered(page).locator("td")
        expect(cells.nth(2)).to_have_text("120")
        aligned = [cell.evaluate("(cell) => getComputedStyle(cell).textAlign") for cell in cells.all()]
        heads = [
            cell.evaluate("(cell) => getComputedStyle(cell).textAlign") for cell in rendered(page).locator("th").all()
        ]
        assert aligned == ["left", "center", "right"]
        assert heads == ["left", "center", "right"]
        assert rendered(page).locator("[style]").count() == 0
        assert page.evaluate("window.cspViolations") == []


def test_opening_the_panel_asks_for_nothing_it_does_not_get_and_shows_its_icon(server, user_token):
    server.call(user_token, "icon", "update_document", content="# Plan\n", action_and_reasoning=WHY)
    failed, icons = [], []
    with chromium_page() as page:
        page.on("requestfailed", lambda request: failed.append(f"{request.url} {request.failure}"))
        page.on(
            "response", lambda response: response.status >= 400 and failed.append(f"{response.url} {response.status}")
        )
        page.on(
            "response",
            lambda response: (
                response.request.resource_type != "document"
                and response.url.endswith(".svg")
                and icons.append((response.status, response.headers.get("content-type")))
            ),
        )
        open_panel(page, server, "icon")
        wait_for_version(page, 1)
        icon = page.locator('link[rel="icon"]')
        expect(icon).to_have_attribute("type", "image/svg+xml")
        page.wait_for_timeout(500)  # time for the icon's request, made after the page's own
    assert failed == []
    assert icons and all(answer == (200, "image/svg+xml") for answer in icons), icons
