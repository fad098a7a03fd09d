"""Headless Chromium for the panel's tests (Playwright, driving Debian's
chromium): a page of its own, the panel opened and signed in, what it shows.
A test module that imports this is skipped where Chromium or Playwright is
missing (in CI, with WORKSPACE_TESTS_REQUIRE_ALL=1, it fails instead)."""

import contextlib
import os
import shutil

import pytest

from tests.support.live import REPOSITORY

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    if os.environ.get("WORKSPACE_TESTS_REQUIRE_ALL"):
        raise RuntimeError(f"no Chromium at {CHROMIUM}: install Debian's chromium package")
    pytest.skip("no Chromium here (apt-get install chromium)", allow_module_level=True)
WHY = "Browser test."
AXE = REPOSITORY / "node_modules" / "axe-core" / "axe.min.js"
HOSTILE = '<script>window.pwned = 1; alert("x")</script><img src=x onerror="window.pwned = 2">'
playwright_api = pytest.importorskip("playwright.sync_api")
sync_playwright, expect = playwright_api.sync_playwright, playwright_api.expect


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


def button(page, name):
    return page.get_by_role("button", name=name, exact=True)


def rendered(page):
    return page.locator("#rendered")


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
