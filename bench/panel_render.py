"""How soon the panel shows a large document, and a live append to it, in headless Chromium.

Starts uvicorn as the README runs it, on the database of DATABASE_URL, writes
a Markdown document of each size through the API, and opens the panel signed
in, --rounds times. It reads the panel's own timing records
(``window.__workspacePanelTimings``, docs/panel.md): the first blocks in the
DOM after the document arrived, and every block; then an append's blocks in
the DOM after its event. Side by side, in the same page: the text rendered
whole at once (the client's ``renderMarkdown``, then into the DOM), which is
what the panel would cost without rendering block by block. Medians.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/panel_render.py [--rounds 3]
(Chromium: apt-get install chromium; the documents' Markdown is the browser tests'.)
"""

import argparse
import shutil
import statistics
import sys
import uuid

from live_setup import database_and_token

from tests.support.live import Server

WHY = "Benchmarking the panel's render."
PASSWORD = "bench-panel"  # noqa: S105  (a user of the bench's own database)
WHOLE_RENDER = """async () => {
  const url = document.querySelector('script[type=module]').src.replace('panel-page.js', 'panel.js');
  const { renderMarkdown } = await import(url);
  const text = document.getElementById('content').textContent;
  const started = performance.now();
  const whole = document.createElement('article');
  whole.innerHTML = renderMarkdown(text);
  document.body.append(whole);
  whole.getBoundingClientRect();  // laid out, as the panel's blocks are when they count as shown
  const took = performance.now() - started;
  whole.remove();
  return took;
}"""


def open_signed_in(page, server: Server, username: str, thread_id: str) -> None:
    page.goto(f"{server.url}/workspace/threads/{thread_id}/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("#status.live")


def measure(page, server: Server, token: str, username: str, size: int) -> dict[str, float]:
    thread_id = f"bench-panel-{uuid.uuid4().hex[:8]}"
    from tests.support.browser import markdown_document, panel_timings

    server.call(token, thread_id, "update_document", content=markdown_document(size), action_and_reasoning=WHY)
    page.add_init_script("window.__workspacePanelTimings = []")
    open_signed_in(page, server, username, thread_id)
    first = panel_timings(page, 1, "shownMs")
    whole = panel_timings(page, 1, "completeMs")
    server.call(
        token, thread_id, "append_to_document", text="\n## Appended\n\nA paragraph.\n", action_and_reasoning=WHY
    )
    append = panel_timings(page, 2, "shownMs")
    return {
        "first blocks": first["shownMs"],
        "every block": whole["completeMs"],
        "append": append["shownMs"],
        "whole at once": page.evaluate(WHOLE_RENDER),
    }


def main() -> None:
    from django.contrib.auth import get_user_model
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    if not shutil.which("chromium"):
        sys.exit("No Chromium here: apt-get install chromium")
    from tests.support.browser import launch  # (it skips itself where Chromium is missing)

    username = "bench-panel"
    database_url, token = database_and_token(username)
    user = get_user_model().objects.get(username=username)
    user.set_password(PASSWORD)
    user.save()
    server = Server(database_url=database_url, DJANGO_DEBUG="0", DJANGO_SECRET_KEY="bench")
    columns = ("first blocks", "every block", "append", "whole at once")
    print(f"{'document':>9} | " + " | ".join(f"{column + ' ms':>16}" for column in columns) + " | whole / first")
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            for size in (100_000, 990_000):
                results = []
                for _ in range(rounds):
                    page = browser.new_page()
                    results.append(measure(page, server, token, username, size))
                    page.close()
                medians = {column: statistics.median(result[column] for result in results) for column in columns}
                ratio = medians["whole at once"] / medians["first blocks"]
                print(
                    f"{size:>9,} | "
                    + " | ".join(f"{medians[column]:>16.1f}" for column in columns)
                    + f" | {ratio:>12.1f}x"
                )
            browser.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
