"""The API's docs page (Redoc) in headless Chromium against a real server: it
renders the API, and no request it makes leaves the page's own origin."""

from urllib.parse import urlsplit

import pytest

from tests.support.browser import chromium_page, expect, open_panel

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def origin(url: str) -> str:
    """The origin of ``url``; a blob: URL's is that of the page that made it."""
    parts = urlsplit(url.removeprefix("blob:"))
    return f"{parts.scheme}://{parts.netloc}"


def test_the_docs_page_renders_the_api_and_sends_no_request_elsewhere(server, user_token):
    attempted, sent = [], []
    with chromium_page() as page:
        open_panel(page, server, "docs")  # signs in: the docs page is for signed-in users, as the API
        page.on("request", lambda request: attempted.append(request))
        # Every request the browser sends out, as it leaves (one its page's CSP refuses never gets here).
        page.context.route("**/*", lambda route: (sent.append(route.request.url), route.continue_()))
        page.goto(f"{server.url}/api/workspace/docs/")
        expect(page.locator("h1")).to_have_text("Workspace (1)", timeout=15_000)
        expect(page.locator("h2", has_text="threads_document_retrieve")).to_be_visible()
        expect(page.get_by_text("The thread as an MCP server", exact=False).first).to_be_visible()
        page.wait_for_timeout(1000)  # time for what Redoc loads once drawn (its logo)
        refused = {request.url: request.failure for request in attempted if origin(request.url) != server.url}
    assert any(url.endswith("/api/workspace/schema/") for url in sent)
    assert [url for url in sent if origin(url) != server.url] == []
    # What Redoc tries elsewhere (its logo, from a CDN) the page's CSP refuses before it is sent.
    assert all(failure == "csp" for failure in refused.values()), refused
