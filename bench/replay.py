"""Server memory while reconnecting clients replay a thread of large updates.

Writes 100 updates of 1,000,000 characters to one thread, then opens event
streams that resume from before the first (``Last-Event-ID`` at version 0),
reads all 100 events on each, and reports the server process's resident
memory: before, and its peak (VmHWM) during the replay. Side by side in one
run: the product as configured (``WORKSPACE_EVENT_MAX_CHARS`` = 65,536, so
these events say ``"omitted": true``) and the same server with the bound
lifted, as every event carried the whole document before the bound existed.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/replay.py [--clients 1 3]
"""

import argparse
import threading
import time
import uuid

from live_setup import database_and_token

from tests.support.live import EventStream, Server

UPDATES = 100
SIZE = 1_000_000


def rss_kb(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise LookupError(field)


def replay(server: Server, token: str, thread_id: str, clients: int) -> tuple[int, int, int, float]:
    """Peak RSS growth (KB), events and characters received, seconds taken."""
    before = rss_kb(server.process.pid, "VmRSS")
    received = [0, 0]
    lock = threading.Lock()

    def client():
        stream = EventStream(
            server,
            f"/api/workspace/threads/{thread_id}/events/",
            {
                "Authorization": f"Token {token}",
                "Last-Event-ID": f"workspace.thread.{thread_id}:0",
            },
        )
        assert stream.status == 200, stream.body
        events = stream.collect(UPDATES, timeout=600)
        assert [event.json()["version"] for event in events] == list(range(1, UPDATES + 1))
        with lock:
            received[0] += len(events)
            received[1] += sum(len(event.data) for event in events)
        stream.close()

    started = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    peak = rss_kb(server.process.pid, "VmHWM")
    return peak - before, received[0], received[1], time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 3])
    client_counts = parser.parse_args().clients
    database_url, token = database_and_token("bench-replay")

    from workspace.documents.repository import WorkspaceRepository

    thread_id = f"bench-replay-{uuid.uuid4().hex[:8]}"
    for n in range(UPDATES):
        WorkspaceRepository.upsert_document(thread_id, content=f"{n:03d}" + "x" * (SIZE - 3), reason="bench")

    rows = []
    for label, environment in (("bounded (65,536)", {}), ("unbounded", {"WORKSPACE_EVENT_MAX_CHARS": str(2 * SIZE)})):
        for clients in client_counts:
            server = Server(database_url=database_url, **environment)  # a fresh process: its own peak
            try:
                rows.append((label, clients, *replay(server, token, thread_id, clients)))
            finally:
                server.stop()

    print(f"Replaying {UPDATES} updates of {SIZE:,} characters from Last-Event-ID 0")
    header = (
        f"{'events':>17} | {'clients':>7} | {'server RSS growth, MB':>21} | {'events':>6} | "
        f"{'MB received':>11} | {'s':>6}"
    )
    print(header)
    print("-" * len(header))
    for label, clients, growth, events, characters, seconds in rows:
        print(
            f"{label:>17} | {clients:>7} | {growth / 1024:>21.1f} | {events:>6} | {characters / 1e6:>11.1f} | "
            f"{seconds:>6.2f}"
        )


if __name__ == "__main__":
    main()
