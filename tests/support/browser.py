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


_module_chromium = None  # the Browser of the browser test module running, if any: see one_chromium


@contextlib.contextmanager
def one_chromium():
    """One Chromium for the block (a browser test module), of which each
    ``chromium_page`` takes a fresh context: a context costs a quarter of a
    second, a Chromium of its own a second.

    While it runs, Playwright's event loop runs in this thread, and Django's
    guard against database work inside a running event loop would refuse the
    tests' own (synchronous) database work: the guard is lifted in this
    process for the block. The servers under test keep it (``live.Server``
    does not pass the lift on)."""
    global _module_chromium
    lifted = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    with sync_playwright() as playwright:
        _module_chromium = launch(playwright)
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        try:
            yield
        finally:
            if lifted is None:
                os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
            else:
                os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = lifted
            _module_chromium.close()
            _module_chromium = None


@contextlib.contextmanager
def chromium_page(**options):
    """A page (``options``: Playwright's context options, such as ``viewport``)
    in a browser context of its own (cookies, storage, permissions), closed
    after the block: in the module's Chromium (``one_chromium``) if there is
    one, otherwise in a Chromium of its own. Without a module's Chromium, no
    database work inside the block: Playwright's event loop would make
    Django refuse it."""
    if _module_chromium is not None:
        context = _module_chromium.new_context(**options)
        try:
            yield context.new_page()
        finally:
            context.close()
        return
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            yield browser.new_page(**options)
        finally:
            browser.close()


def open_panel(page, server, thread_id, *, through_the_form: bool = False):
    """The panel of `thread_id` on `page`, signed in as "agent-owner" and live.

    Signed in as Django's test client's ``force_login`` does (a session in the
    database the server reads, its cookie in the page's context), or, with
    `through_the_form`, by the sign-in page the panel sends a stranger to: a
    password check costs the server a third of a second."""
    panel = f"{server.url}/workspace/threads/{thread_id}/"
    if through_the_form:
        page.goto(panel)
        page.fill("#id_username", "agent-owner")
        page.fill("#id_password", "pw")
        page.click("button[type=submit]")
        page.wait_for_url(panel)
    else:
        page.context.add_cookies([session_cookie(server, "agent-owner")])
        page.goto(panel)
    page.wait_for_selector("#status.live")


def session_cookie(server, username: str) -> dict:
    """A signed-in session of `username` for `server`, as a Playwright cookie."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    return {"name": settings.SESSION_COOKIE_NAME, "value": session, "url": server.url}


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


def serious_violations(page) -> list:
    """axe-core's serious and critical findings on the page as it is now
    (the page's context must bypass its CSP, for the test's own script)."""
    page.add_script_tag(path=str(AXE))
    results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        (violation["id"], [node["target"] for node in violation["nodes"]])
        for violation in results["violations"]
        if violation["impact"] in ("serious", "critical")
    ]
