"""What live drafts cost: per delta over a long draft, draft POSTs per second
against the bare-DRF ceiling, and the delay from a delta's POST to every viewer.

Parts (``--parts``, comma-separated; all by default):
- ``cost``: --kilobytes of content (``{"content": "..."}``) streamed in
  20-character deltas into one draft, in this process, once through
  ``DraftWriter.feed`` and once through Django's test client (the HTTP view);
  each delta timed; median and p90 of the first tenth against the last tenth.
- ``rate``: wrk, 16 connections, each POSTing 20-character deltas to a draft of
  its own (its own thread; every draft opened before), against the bare DRF
  endpoint of bench/bare_urls.py with the same body, on the same gunicorn
  (2 sync workers), --rounds rounds interleaved, as bench/throughput.py does.
- ``viewers``: --uvicorn viewers on one uvicorn process, --pushpin viewers
  through Pushpin in front of gunicorn (bench/streams.py's client processes),
  watching one thread while the bench POSTs --deltas deltas of 20 characters
  at each pace of --paces (seconds between deltas; the slowest pace is a
  delta after a quiet period, the others bursts, so their difference is the
  coalescing wait). A delta's delivery is timed from its POST's start to the
  viewer reading the event that completes its text (an event covers the
  characters offset .. offset + len(delta); coalesced, one covers several).

With no draft open nothing should change: bench/throughput.py --baseline REV
(tool calls per second) and bench/events.py --baseline REV (a document
event's delay) compare this tree with REV, the commit before drafts (db99dba).

Importing bench/throughput.py's wrk driver puts this run on a new database
beside DATABASE_URL's (<name>_throughput), with rates off (WORKSPACE_RATE_*).
The machine may be shared: read the figures as one run's.

Needs wrk and Pushpin. Usage:
DATABASE_URL=postgresql://postgres@127.0.0.1:5432/wt_bench python bench/drafts.py \\
    [--parts cost,rate,viewers] [--kilobytes 200] [--seconds 5] [--rounds 2] \\
    [--uvicorn 100] [--pushpin 1000] [--deltas 100] [--paces 0.5,0.1,0.03]
"""

import argparse
import json
import multiprocessing
import os
import re
import statistics
import sys
import time
import uuid

os.environ["WORKSPACE_RATE_DRAFTS"] = "off"  # one user sends thousands of deltas a second here
os.environ.setdefault("WORKSPACE_DRAFT_TIMEOUT", "600")  # drafts stay open between the rounds

# isort: off
from throughput import Load, Request, wrk  # noqa: E402  (first: it chooses the settings and the database)
from live_setup import database_and_token, percentile  # noqa: E402
from streams import StreamProtocol, client_process  # noqa: E402
from tests.support.live import PushpinServer, Server  # noqa: E402
# isort: on

DELTA = "x" * 20  # plain characters: their JSON is as long as their text
OPENING = '{"content": "'
CONNECTIONS = 16
WARM_UP_SECONDS = 2
STREAM_ENVIRONMENT = {
    "WORKSPACE_RATE_READS": "off",
    "WORKSPACE_RATE_WRITES": "off",
    "WORKSPACE_MAX_STREAMS_PER_USER": "20000",
    "DATABASE_CONNECTIONS": "pool",  # as the README runs uvicorn (throughput.py's import set "persistent")
}


def draft_body(delta: str) -> str:
    return json.dumps({"tool": "update_document", "delta": delta})


def draft_path(thread_id: str, call_id: str) -> str:
    return f"/api/workspace/threads/{thread_id}/drafts/{call_id}/"


# --- cost: per delta over a long draft ------------------------------------


def time_deltas(send, count: int) -> list[float]:
    """Milliseconds of each of ``count`` calls of ``send(delta)`` (after the opening one)."""
    send(OPENING)
    latencies = []
    for _ in range(count):
        started = time.perf_counter()
        send(DELTA)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


def cost(token: str, kilobytes: int) -> None:
    from django.test import Client

    from workspace.drafts import DraftWriter

    count = kilobytes * 1000 // len(DELTA)
    client = Client(HTTP_HOST="127.0.0.1")
    run = uuid.uuid4().hex[:8]

    def post(delta: str) -> None:
        path = draft_path(f"bench-cost-{run}", "http")
        response = client.post(path, draft_body(delta), content_type="application/json", HTTP_AUTHORIZATION=token)
        assert response.status_code == 202, response.content

    writer = DraftWriter(f"bench-cost-feed-{run}", "feed", "update_document")
    rows = {"DraftWriter.feed": time_deltas(writer.feed, count), "POST, test client": time_deltas(post, count)}
    writer.cancel()
    database = os.environ["DATABASE_URL"].split("://")[0]
    print(f"\ncost: {kilobytes} KB in {count} deltas of {len(DELTA)} characters into one draft, {database}, ms a delta")
    header = f"{'':>18} | {'first 10%: p50':>14} | {'p90':>6} | {'last 10%: p50':>13} | {'p90':>6} | {'last/first':>10}"
    print(header)
    print("-" * len(header))
    for name, latencies in rows.items():
        tenth = count // 10
        first, last = latencies[:tenth], latencies[-tenth:]
        ratio = statistics.median(last) / statistics.median(first)
        print(
            f"{name:>18} | {statistics.median(first):>14.3f} | {percentile(first, 0.9):>6.3f} | "
            f"{statistics.median(last):>13.3f} | {percentile(last, 0.9):>6.3f} | {ratio:>10.2f}"
        )


# --- rate: draft POSTs per second against the bare ceiling -----------------


def rate(database_url: str, token: str, seconds: int, rounds: int) -> None:
    environment = {"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "bench", "DJANGO_SETTINGS_MODULE": "bench.bare_settings"}
    server = Server(database_url=database_url, command=[*Server.GUNICORN, "--workers", "2"], **environment)
    try:
        run = uuid.uuid4().hex[:8]
        path = draft_path(f"bench-rate-{run}-%d", "call")
        for number in range(CONNECTIONS):  # open each connection's draft
            status, answer = server.request("POST", path % number, token, draft_body(OPENING))
            assert status == 202, (status, answer)
        loads = {
            "bare DRF (ceiling)": Load(server, token, Request("POST", "/bench/bare/", draft_body(DELTA))),
            "draft POST, own draft": Load(server, token, Request("POST", path, draft_body(DELTA)), threads=CONNECTIONS),
        }
        for load in loads.values():
            wrk(load, WARM_UP_SECONDS)
        runs: dict[str, list[dict]] = {name: [] for name in loads}
        for round_number in range(rounds):
            names = list(loads)[round_number % 2 :] + list(loads)[: round_number % 2]
            for name in names:
                runs[name].append(wrk(loads[name], seconds))
    finally:
        server.stop()
    ceiling = statistics.median(run["rate"] for run in runs["bare DRF (ceiling)"])
    print(f"\nrate: gunicorn 2 sync workers, wrk {CONNECTIONS} connections, {seconds} s x {rounds} rounds, medians")
    header = f"{'':>22} | {'calls/s':>8} | {'p50 ms':>7} | {'p99 ms':>7} | {'CPU ms':>6} | {'x ceiling':>9}"
    print(header)
    print("-" * len(header))
    for name, name_runs in runs.items():
        figures = {key: statistics.median(run[key] for run in name_runs) for key in ("rate", "p50", "p99", "cpu")}
        print(
            f"{name:>22} | {figures['rate']:>8.0f} | {figures['p50']:>7.2f} | {figures['p99']:>7.2f} | "
            f"{figures['cpu']:>6.2f} | {figures['rate'] / ceiling:>9.2f}"
        )


# --- viewers: delay from a delta's POST to every viewer --------------------


class DraftStreamProtocol(StreamProtocol):
    """A viewer noting when each ``draft`` event arrived, by (call id, offset
    its text reaches)."""

    MARK = re.compile(rb'^data: \{"call_id": "([^"]+)".*?"offset": ([0-9]+), "delta": "([^"]*)"', re.MULTILINE)

    @staticmethod
    def mark(match: re.Match):
        return match.group(1).decode(), int(match.group(2)) + len(match.group(3))


def send_deltas(server: Server, token: str, thread_id: str, count: int, pace: float) -> tuple[str, list, list]:
    """Open a draft, POST ``count`` deltas one every ``pace`` seconds, cancel
    it; its call id, each delta's (start, end offset) and each POST's milliseconds."""
    call_id = f"pace-{uuid.uuid4().hex[:8]}"
    path = draft_path(thread_id, call_id)
    status, _ = server.request("POST", path, token, draft_body(OPENING))
    assert status == 202, status
    sent, answers = [], []
    for number in range(count):
        started = time.monotonic()
        status, answer = server.request("POST", path, token, draft_body(DELTA))
        answers.append((time.monotonic() - started) * 1000)
        assert status == 202, (status, answer)
        sent.append((started, (number + 1) * len(DELTA)))
        time.sleep(max(0.0, pace - (time.monotonic() - started)))
    time.sleep(1)
    server.request("DELETE", path, token)
    return call_id, sent, answers


def delivery_delays(streams: list[dict], call_id: str, sent: list) -> tuple[list[float], int]:
    """Each (viewer, delta)'s delay in ms, and how many never arrived."""
    delays, missing = [], 0
    for arrivals in streams:
        events = sorted((end, times[0]) for (call, end), times in arrivals.items() if call == call_id)
        for started, end in sent:
            arrived = next((at for event_end, at in events if event_end >= end), None)
            missing += arrived is None
            delays += [] if arrived is None else [(arrived - started) * 1000]
    return delays, missing


def open_viewers(server: Server, token: str, path: str, count: int, clients: int) -> tuple[list, list, int]:
    pipes, processes = [], []
    for number in range(clients):
        parent, child = multiprocessing.Pipe()
        share = count // clients + (1 if number < count % clients else 0)
        arguments = (server.port, path, token, share, child, DraftStreamProtocol)
        process = multiprocessing.Process(target=client_process, args=arguments, daemon=True)
        process.start()
        pipes.append(parent)
        processes.append(process)
    return pipes, processes, sum(pipe.recv()[1] for pipe in pipes)


def watch(server: Server, token: str, kind: str, count: int, options) -> list[dict]:
    """One row per pace: ``count`` viewers of one thread while deltas are sent."""
    thread_id = f"bench-viewers-{uuid.uuid4().hex[:8]}"
    server.request("GET", "/api/workspace/tools/", token)  # warm up
    pipes, processes, opened = open_viewers(server, token, f"/api/workspace/threads/{thread_id}/events/", count, 2)
    time.sleep(3)  # Pushpin checks each new stream for a missed change about a second after it opens
    drafts = [(pace, *send_deltas(server, token, thread_id, options.deltas, pace)) for pace in options.paces]
    time.sleep(2)
    streams, failures = [], []
    for pipe in pipes:
        pipe.send("stop")
    for pipe in pipes:
        _, client_streams, failed, _ = pipe.recv()
        streams += client_streams
        failures += failed
    for process in processes:
        process.join(timeout=30)
    rows = []
    for pace, call_id, sent, answers in drafts:
        delays, missing = delivery_delays(streams, call_id, sent)
        rows.append(
            {"kind": kind, "viewers": opened, "pace": pace, "missing": missing, "failures": len(failures)}
            | {"p50": statistics.median(delays), "p99": percentile(delays, 0.99), "max": max(delays)}
            | {"post": statistics.median(answers)}
        )
    return rows


def viewers(database_url: str, token: str, options) -> None:
    rows = []
    for kind, count in (("uvicorn", options.uvicorn), ("pushpin", options.pushpin)):
        if not count:
            continue
        if kind == "pushpin":
            server = PushpinServer(database_url, **STREAM_ENVIRONMENT)
        else:
            server = Server(database_url, **STREAM_ENVIRONMENT)
        try:
            rows += watch(server, token, kind, count, options)
        finally:
            server.stop()
    print(f"\nviewers: {options.deltas} deltas of {len(DELTA)} characters a pace; ms from each POST's start")
    header = (
        f"{'server':>8} | {'viewers':>7} | {'pace s':>6} | {'missing':>7} | {'p50':>7} | {'p99':>7} | "
        f"{'max':>7} | {'POST p50':>8}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row['kind']:>8} | {row['viewers']:>7} | {row['pace']:>6.2f} | {row['missing']:>7} | "
            f"{row['p50']:>7.1f} | {row['p99']:>7.1f} | {row['max']:>7.1f} | {row['post']:>8.1f}"
        )
        if row["failures"]:
            print(f"         {row['failures']} streams failed to open")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default="cost,rate,viewers")
    parser.add_argument("--kilobytes", type=int, default=200, choices=range(1, 2001), metavar="1..2000")
    parser.add_argument("--seconds", type=int, default=5, choices=range(1, 61), metavar="1..60")
    parser.add_argument("--rounds", type=int, default=2, choices=range(1, 11), metavar="1..10")
    parser.add_argument("--uvicorn", type=int, default=100, choices=range(0, 2001), metavar="0..2000")
    parser.add_argument("--pushpin", type=int, default=1000, choices=range(0, 20001), metavar="0..20000")
    parser.add_argument("--deltas", type=int, default=100, choices=range(1, 1001), metavar="1..1000")
    parser.add_argument("--paces", default="0.5,0.1,0.03", help="seconds between deltas, each 0.001..5")
    options = parser.parse_args()
    options.paces = [float(pace) for pace in options.paces.split(",")]
    parts = set(options.parts.split(","))
    if not parts <= {"cost", "rate", "viewers"} or not all(0.001 <= pace <= 5 for pace in options.paces):
        parser.error("--parts: cost, rate, viewers; --paces: 0.001 to 5 s each")
    database_url, token = database_and_token("bench-drafts")
    print(f"live drafts on {database_url.rsplit('/', 1)[-1]}; {os.cpu_count()} CPUs, shared with other work")
    if "cost" in parts:
        cost(f"Token {token}", options.kilobytes)
    if "rate" in parts:
        rate(database_url, token, options.seconds, options.rounds)
    if "viewers" in parts:
        viewers(database_url, token, options)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
