"""A server's memory while viewers open streams on a thread with large open drafts.

Opens --drafts drafts of --megabytes of content each on one thread (a first
piece, then the whole content as one piece), then opens --viewers streams
at once; each reads the drafts' openings (one ``draft`` event per draft,
cut at WORKSPACE_EVENT_MAX_CHARS) and closes. Prints the uvicorn process's
resident memory before the viewers, its peak while they read (sampled every
20 ms) and after they all closed, with what each viewer received: for this
tree and for --baseline (a commit whose read of the drafts joined every
piece of every open draft before cutting it; default 1300a33), each on a
database of its own, side by side in one run.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/draft_memory.py \\
    [--drafts 8] [--megabytes 12] [--viewers 1 5] [--baseline 1300a33]
"""

import argparse
import json
import os
import threading
import time
import uuid

os.environ["WORKSPACE_RATE_DRAFTS"] = "off"
os.environ["WORKSPACE_DRAFT_TIMEOUT"] = "3600"  # the drafts stay open while the viewers come and go

from live_setup import baseline_server, database_and_token  # noqa: E402

from tests.support.live import EventStream, Server  # noqa: E402


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise LookupError("VmRSS")


def open_drafts(server: Server, token: str, thread_id: str, drafts: int, megabytes: int) -> None:
    content = "x" * (megabytes * 1_000_000 - 100)  # its piece's body stays under DATA_UPLOAD_MAX_MEMORY_SIZE
    for number in range(drafts):
        path = f"/api/workspace/threads/{thread_id}/drafts/call_{number}/"
        for delta in ('{"content": "', content):
            body = json.dumps({"tool": "update_document", "delta": delta})
            status, answer = server.request("POST", path, token, body)
            assert status == 202, (status, answer)


def view(server: Server, token: str, thread_id: str, viewers: int, drafts: int) -> tuple[float, float, float, int]:
    """RSS before, peak while ``viewers`` read the openings, after they closed (MB); bytes each received."""
    pid = server.process.pid
    before = rss_mb(pid)
    peak = [before]
    reading = threading.Event()

    def sample() -> None:
        while not reading.is_set():
            peak[0] = max(peak[0], rss_mb(pid))
            time.sleep(0.02)

    received: list[int] = []

    def viewer() -> None:
        stream = EventStream(server, f"/api/workspace/threads/{thread_id}/events/", {"Authorization": f"Token {token}"})
        assert stream.status == 200, stream.body
        events = stream.collect(drafts, "draft", timeout=300)
        received.append(sum(len(event.data) for event in events))
        stream.close()

    sampler = threading.Thread(target=sample)
    sampler.start()
    threads = [threading.Thread(target=viewer) for _ in range(viewers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    time.sleep(2)  # the streams' ends reach the server
    reading.set()
    sampler.join()
    return before, peak[0], rss_mb(pid), max(received)


def measure(server: Server, token: str, arguments: argparse.Namespace) -> list[tuple[int, tuple]]:
    thread_id = f"bench-draft-memory-{uuid.uuid4().hex[:8]}"
    open_drafts(server, token, thread_id, arguments.drafts, arguments.megabytes)
    return [(viewers, view(server, token, thread_id, viewers, arguments.drafts)) for viewers in arguments.viewers]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--drafts", type=int, default=8)
    parser.add_argument("--megabytes", type=int, default=12)
    parser.add_argument("--viewers", type=int, nargs="+", default=[1, 5])
    parser.add_argument("--baseline", default="1300a33", help='a commit to compare with; "" for none')
    arguments = parser.parse_args()
    database_url, token = database_and_token("bench-draft-memory")
    environment = {"WORKSPACE_RATE_READS": "off", "WORKSPACE_RATE_DRAFTS": "off", "WORKSPACE_DRAFT_TIMEOUT": "3600"}

    rows = {}
    server = Server(database_url=database_url, **environment)
    try:
        rows["this tree"] = measure(server, token, arguments)
    finally:
        server.stop()
    if arguments.baseline:
        with baseline_server(arguments.baseline, database_url, Server.UVICORN, **environment) as (server, token):
            rows[f"baseline {arguments.baseline}"] = measure(server, token, arguments)

    print(
        f"\n{arguments.drafts} open drafts of {arguments.megabytes} MB on one thread; "
        "viewers open their streams at once and read every draft's opening"
    )
    header = (
        f"{'':>17} | {'viewers':>7} | {'RSS before, MB':>14} | {'peak, MB':>8} | {'after, MB':>9} | "
        f"{'KB to a viewer':>14}"
    )
    print(header)
    print("-" * len(header))
    for label, measured in rows.items():
        for viewers, (before, peak, after, received) in measured:
            print(
                f"{label:>17} | {viewers:>7} | {before:>14.0f} | {peak:>8.0f} | {after:>9.0f} | "
                f"{received / 1000:>14.0f}"
            )


if __name__ == "__main__":
    main()
