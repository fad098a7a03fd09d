"""Delay from a committed change to a subscriber holding its event.

Starts real server processes (uvicorn, as the README runs it) on the
database of DATABASE_URL, subscribes to a thread's event stream, and makes
200 appends through the API one after another, side by side:
- one process: the writer and the subscriber on the same server;
- two processes: writing through one, subscribed to the other, joined by
  Redis (REDIS_URL, default redis://127.0.0.1:6379/0);
- the split deployment: the API on gunicorn (WSGI), the stream on uvicorn;
- with ``--baseline REV``: one process again, on a checkout of REV.

The commit happens while the append request is served, so each delay is
shown from both ends of that request: from sending it (an upper bound) and
from its answer (a lower bound; below zero when the event overtook the answer).

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/events.py [--events 200] \\
           [--baseline REV]
"""

import argparse
import os
import statistics
import time
import uuid

from live_setup import baseline_server, database_and_token, percentile

from tests.support.live import EventStream, Server


def measure(writer: Server, reader: Server, token: str, count: int) -> tuple[list[float], list[float]]:
    thread_id = f"bench-{uuid.uuid4().hex[:12]}"
    stream = EventStream(reader, f"/api/workspace/threads/{thread_id}/events/", {"Authorization": f"Token {token}"})
    assert stream.status == 200, stream.body
    stream.next("stream-open")
    from_request, from_answer = [], []
    for n in range(count):
        sent = time.monotonic()
        envelope = writer.call(
            token, thread_id, "append_to_document", text=f"chunk {n}\n", action_and_reasoning="bench"
        )
        answered = time.monotonic()
        assert envelope["success"], envelope
        event = stream.next(timeout=10)
        assert event.json()["version"] == n + 1, event.data
        from_request.append((event.received_at - sent) * 1000)
        from_answer.append((event.received_at - answered) * 1000)
    stream.close()
    return from_request, from_answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=200, choices=range(1, 10001), metavar="1..10000")
    parser.add_argument("--baseline", help="also one process on a checkout of this revision")
    arguments = parser.parse_args()
    count = arguments.events
    database_url, token = database_and_token("bench-events")
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

    rows = {}
    single = Server(database_url=database_url)
    try:
        rows["one process"] = measure(single, single, token, count)
    finally:
        single.stop()
    for name, writer_command in (("two uvicorn + Redis", Server.UVICORN), ("gunicorn API + uvicorn", Server.GUNICORN)):
        writer = Server(database_url=database_url, command=writer_command, REDIS_URL=redis_url)
        reader = Server(database_url=database_url, REDIS_URL=redis_url)
        try:
            rows[name] = measure(writer, reader, token, count)
        finally:
            writer.stop()
            reader.stop()
    if arguments.baseline:
        with baseline_server(arguments.baseline, database_url, Server.UVICORN) as (server, key):
            rows[f"one process, {arguments.baseline[:7]}"] = measure(server, server, key, count)

    print(f"Delay until the subscriber has the event, ms, {count} appends each")
    header = f"{'':>22} | {'from request: median':>20} | {'p99':>7} | {'from answer: median':>19} | {'p99':>7}"
    print(header)
    print("-" * len(header))
    for name, (from_request, from_answer) in rows.items():
        print(
            f"{name:>22} | {statistics.median(from_request):>20.2f} | {percentile(from_request, 0.99):>7.2f} | "
            f"{statistics.median(from_answer):>19.2f} | {percentile(from_answer, 0.99):>7.2f}"
        )


if __name__ == "__main__":
    main()
