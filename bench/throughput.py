"""Tool calls per second over HTTP against the framework's own ceiling, in one run.

Each server is gunicorn with 2 sync workers (--workers) on PostgreSQL;
this tree's on a new database beside DATABASE_URL's (<name>_throughput),
the baseline's on another (<name>_baseline): both start empty, whatever
earlier runs left. wrk drives 16 connections for --seconds each. The loads:
- bare DRF (ceiling): a DRF endpoint that authenticates the token with DRF's
  own TokenAuthentication, parses a body and answers, served by this tree's
  server;
- update_document, 1,000 threads: every request replaces the document of
  one of 1,000 threads with 1 KB of new content (so that calls rarely wait
  for each other's row lock; new, as a call that changes nothing commits
  nothing), on this tree and on a checkout of --baseline; the documents are
  created before, so that every call measured replaces one;
- update_document, own thread: each connection replaces *its own* thread's
  document with new content on every call, as an agent does with its one
  conversation; on this tree, on the baseline, and on this tree under
  gunicorn's gthread worker (one thread a worker), which keeps connections
  alive (the sync worker closes each after its answer, and waits for the
  client to close its end);
- one call at a time: one connection, each request sent once the last is
  answered, for update_document (own thread, new content), GET tools/ and
  the bare endpoint; and the same three requests in this process through
  Django's test client (persistent connection, rates off, logging to
  /dev/null: as a gunicorn worker runs them), for what HTTP adds;
- appends to one hot thread from 8 connections, then whether every answered
  append is in the document, once.
Beside each figure, the CPU time the server's workers spent per call
(/proc): it moves far less with the machine's other work than calls per
second do, and tells where a difference comes from.
The loads run in --rounds rounds, interleaved, each going first in turn:
this machine's speed drifts by a third over minutes, and a figure of one
run says as much about the minute as about the server. The tables give
each figure's median over the rounds and every round's p99.
Each server first gets a 2 s run that is not counted: a worker's first
requests load what it had not loaded at start (the URLconf and the views
in revisions before project/wsgi.py loaded them), which is start-up, not
throughput.

Needs wrk (apt-get install wrk). Usage:
DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/throughput.py \\
    [--seconds 10] [--rounds 3] [--workers 2] [--baseline COMMIT]
"""

import argparse
import contextlib
import json
import logging
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from databases import fresh_database

# The in-process rows run as a gunicorn worker does: a connection kept by
# the thread (project/wsgi.py), no rates; the bare endpoint's URLconf.
os.environ["DJANGO_SETTINGS_MODULE"] = "bench.bare_settings"
os.environ["DATABASE_CONNECTIONS"] = "persistent"
os.environ["WORKSPACE_RATE_WRITES"] = "off"  # one user makes thousands of calls a second here
os.environ["WORKSPACE_RATE_READS"] = "off"
GIVEN_DATABASE_URL = os.environ.get("DATABASE_URL")
if GIVEN_DATABASE_URL:  # this tree on a new database, as the baseline: the same start for both
    os.environ["DATABASE_URL"] = fresh_database(GIVEN_DATABASE_URL, "throughput")

from live_setup import baseline_server, database_and_token  # noqa: E402

from tests.support.live import Server  # noqa: E402

BASELINE = "0a322eb"  # main before history: events in a second transaction
CONNECTIONS = 16
CHUNK = "a line of an append\n"
CONTENT_CHARACTERS = 1000
THREADS = 1000  # of the 1,000-thread load, written by wrk's 2 threads
WARM_UP_SECONDS = 2
IN_PROCESS_CALLS = 300

# Each wrk thread has its own Lua state: ``id`` is its number. With
# ``SPREAD`` 1 and one connection a wrk thread, each connection writes one
# thread of its own. A body with a ``BODY_TAIL`` is new on every call: the
# call's number between its head and tail.
WRK_SCRIPT = """
local counter = 0
local next_id = 0
function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end
request = function()
  counter = counter + 1
  local path = string.format(PATH, id * SPREAD + counter % SPREAD)
  local body = BODY_HEAD
  if BODY_TAIL then body = BODY_HEAD .. counter .. BODY_TAIL end
  return wrk.format(METHOD, path, {["Authorization"] = "Token " .. TOKEN, ["Content-Type"] = "application/json"}, body)
end
"""


@dataclass(frozen=True)
class Request:
    """What wrk sends: a ``%d`` in ``path`` is the thread's number (Lua's
    string.format ignores a number the path has no place for); a body with a
    ``body_tail`` changes on every call."""

    method: str
    path: str
    body_head: str | None = None
    body_tail: str | None = None
    spread: int = 1


@dataclass(frozen=True)
class Load:
    server: Server
    token: str
    request: Request
    connections: int = CONNECTIONS
    threads: int = 2  # wrk's; as many as connections when each connection writes its own thread


def wrk(load: Load, seconds: int) -> dict:
    request = load.request
    script = WRK_SCRIPT
    for name, value in (
        ("PATH", request.path),
        ("SPREAD", str(request.spread)),
        ("METHOD", request.method),
        ("TOKEN", load.token),
        ("BODY_HEAD", request.body_head),
        ("BODY_TAIL", request.body_tail),
    ):
        literal = value if name == "SPREAD" else "nil" if value is None else f"[=[{value}]=]"
        script = script.replace(name, literal)
    workers = _children(load.server.process.pid)
    cpu_before = _cpu_seconds(workers)
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as file:
        file.write(script)
        file.flush()
        output = subprocess.run(
            [
                "wrk",
                f"-t{load.threads}",
                f"-c{load.connections}",
                f"-d{seconds}s",
                "--timeout",
                "10s",
                "--latency",
                "-s",
                file.name,
                load.server.url,
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=seconds + 60,
        ).stdout
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if errors:
        sys.exit(f"{errors.group(1)} calls failed:\n{output}")
    answered = int(re.search(r"(\d+) requests in", output).group(1))
    return {
        "answered": answered,
        "rate": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
        "p50": _milliseconds(re.search(r"\s50%\s+([\d.]+\w+)", output).group(1)),
        "p99": _milliseconds(re.search(r"\s99%\s+([\d.]+\w+)", output).group(1)),
        "cpu": (_cpu_seconds(workers) - cpu_before) * 1000 / max(answered, 1),
    }


def in_process(client, method: str, path: str, body: str | None, token: str, calls: int) -> dict:
    """``calls`` requests one after another through Django's test client, with
    the console's log lines written to /dev/null (the server writes them to a file)."""
    handlers = [handler for handler in logging.getLogger().handlers if isinstance(handler, logging.StreamHandler)]
    with open(os.devnull, "w") as devnull:
        streams = [handler.setStream(devnull) for handler in handlers]
        try:
            latencies = []
            cpu_before = time.process_time()
            for number in range(calls):
                data = body.replace("@", str(number)) if body else None
                started = time.perf_counter()
                if method == "POST":
                    response = client.post(path, data, content_type="application/json", HTTP_AUTHORIZATION=token)
                else:
                    response = client.get(path, HTTP_AUTHORIZATION=token)
                latencies.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, response.content
            cpu = (time.process_time() - cpu_before) * 1000 / calls
        finally:
            for handler, stream in zip(handlers, streams, strict=True):
                handler.setStream(stream)
    latencies.sort()
    return {
        "answered": calls,
        "rate": 1000 / statistics.mean(latencies),
        "p50": statistics.median(latencies),
        "p99": latencies[int(0.99 * (len(latencies) - 1))],
        "cpu": cpu,
    }


def create_documents(server: Server, token: str, paths: list[str], body: str) -> None:
    """POST ``body`` to each of ``paths`` once, 8 at a time; every call must succeed."""

    def create(path: str) -> None:
        status, envelope = server.request("POST", path, token, body)
        if status != 200:
            sys.exit(f"creating the documents: {path} answered {status} {envelope}")

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(create, paths))


def worker_rss_mb(server: Server) -> list[float]:
    """The resident memory of each gunicorn worker (the children of the master), in MB."""
    sizes = []
    for pid in _children(server.process.pid):
        status = Path(f"/proc/{pid}/status").read_text()
        sizes.append(int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024)
    return sizes


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time of ``pids`` so far, in seconds."""
    ticks = 0
    for pid in pids:
        with contextlib.suppress(FileNotFoundError):  # a worker restarted: its time is lost, not wrong
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _milliseconds(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(\w+)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1, "s": 1000}[unit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each load, interleaved; medians reported")
    parser.add_argument("--baseline", default=BASELINE, help='a commit to compare with; "" for none')
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers of every server")
    arguments = parser.parse_args()
    if arguments.rounds < 1 or arguments.seconds < 1:
        parser.error("--rounds and --seconds must be at least 1")
    database_url, token = database_and_token("bench-throughput")
    why = "Measuring throughput."
    same_body = json.dumps({"content": "x" * CONTENT_CHARACTERS, "action_and_reasoning": why})
    # the call's number, then x up to the usual length: new content on every call
    head, tail = json.dumps({"content": "@" + "x" * (CONTENT_CHARACTERS - 6), "action_and_reasoning": why}).split("@")
    update = "/api/workspace/threads/bench-throughput-%d/tools/update_document/"
    spread = Request("POST", update, head, tail, spread=THREADS // 2)
    own = Request("POST", "/api/workspace/threads/bench-own-%d/tools/update_document/", head, tail)
    tools = Request("GET", "/api/workspace/tools/")
    bare = Request("POST", "/bench/bare/", same_body)
    chunk = json.dumps({"text": CHUNK, "action_and_reasoning": "Measuring appends to one thread."})
    command = [*Server.GUNICORN, "--workers", str(arguments.workers)]
    environment = {"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "bench", "DJANGO_SETTINGS_MODULE": "bench.bare_settings"}

    with contextlib.ExitStack() as servers:
        server = Server(database_url=database_url, command=command, **environment)
        servers.callback(server.stop)
        kept_alive = Server(
            database_url=database_url, command=[*command, "--worker-class", "gthread", "--threads", "1"], **environment
        )
        servers.callback(kept_alive.stop)
        loads = {
            "bare DRF (ceiling)": Load(server, token, bare),
            "1,000 threads, this tree": Load(server, token, spread),
            "own thread, this tree": Load(server, token, own, threads=CONNECTIONS),
            "own thread, gthread keep-alive": Load(kept_alive, token, own, threads=CONNECTIONS),
        }
        if arguments.baseline:
            baseline, key = servers.enter_context(baseline_server(arguments.baseline, GIVEN_DATABASE_URL, command))
            loads[f"1,000 threads, {arguments.baseline}"] = Load(baseline, key, spread)
            loads[f"own thread, {arguments.baseline}"] = Load(baseline, key, own, threads=CONNECTIONS)
        one_at_a_time = {
            "update_document": Load(server, token, own, connections=1, threads=1),
            "GET tools/": Load(server, token, tools, connections=1, threads=1),
            "bare DRF": Load(server, token, bare, connections=1, threads=1),
            "update_document, keep-alive": Load(kept_alive, token, own, connections=1, threads=1),
        }
        in_process_requests = {
            "update_document, in-process": ("POST", own.path % 99, head + "@" + tail),
            "GET tools/, in-process": ("GET", "/api/workspace/tools/", None),
            "bare DRF, in-process": ("POST", "/bench/bare/", same_body),
        }
        documents = [update % number for number in range(THREADS)]
        documents += [own.path % number for number in range(CONNECTIONS)]
        for target, key in {(load.server, load.token) for load in loads.values() if load.server is not kept_alive}:
            create_documents(target, key, documents, same_body)
        from django.test import Client

        client = Client(HTTP_HOST="127.0.0.1")
        for load in [*loads.values(), *one_at_a_time.values()]:
            wrk(load, WARM_UP_SECONDS)
        for method, path, body in in_process_requests.values():
            in_process(client, method, path, body, f"Token {token}", 50)

        runs = {name: [] for name in [*loads, *one_at_a_time, *in_process_requests]}
        sequential_seconds = max(1, arguments.seconds // 2)
        for round_number in range(arguments.rounds):
            names = list(runs)
            names = names[round_number % len(names) :] + names[: round_number % len(names)]  # each goes first in turn
            for name in names:
                if name in loads:
                    runs[name].append(wrk(loads[name], arguments.seconds))
                elif name in one_at_a_time:
                    runs[name].append(wrk(one_at_a_time[name], sequential_seconds))
                else:
                    method, path, body = in_process_requests[name]
                    runs[name].append(in_process(client, method, path, body, f"Token {token}", IN_PROCESS_CALLS))
        rss = worker_rss_mb(server)
        hot = f"bench-hot-{uuid.uuid4().hex[:12]}"
        appends = wrk(
            Load(server, token, Request("POST", f"/api/workspace/threads/{hot}/tools/append_to_document/", chunk), 8),
            arguments.seconds,
        )
        status, document = server.request("GET", f"/api/workspace/threads/{hot}/document/", token)
        # every answered append is in the document, once (a call cut off by wrk's end may have committed too)
        lost = max(0, appends["answered"] - document["version"])
        doubled = document["length"] != document["version"] * len(CHUNK)

    rows = {name: _median_run(name_runs) for name, name_runs in runs.items()}
    workers, seconds, rounds = arguments.workers, arguments.seconds, arguments.rounds
    print(
        f"gunicorn, {workers} workers (sync unless said), PostgreSQL; {rounds} rounds of every load, interleaved: "
        "medians, and every round's p99; CPU: the server's workers' (in-process: this process's) per call"
    )
    print(f"\nwrk, {CONNECTIONS} connections, {seconds} s a run; update_document of 1 KB")
    throughput = {name: rows[name] for name in loads}
    throughput["append, 1 thread, 8 conns"] = {**appends, "p99s": [appends["p99"]]}
    _print_table(throughput, ceiling=rows["bare DRF (ceiling)"]["rate"])
    print(f"\none call at a time: one connection, {sequential_seconds} s a run; in-process: {IN_PROCESS_CALLS} calls")
    _print_table({name: rows[name] for name in [*one_at_a_time, *in_process_requests]})
    print(f"\nRSS of this tree's gunicorn workers after its runs: {', '.join(f'{size:.1f} MB' for size in rss)}")
    twice = "some" if doubled else "none"
    print(f"appends to one thread: {appends['answered']} answered, {lost} lost, {twice} applied twice")


def _print_table(rows: dict[str, dict], ceiling: float | None = None) -> None:
    header = f"{'':>32} | {'calls/s':>8} | {'p50 ms':>7} | {'p99 ms':>7} | {'CPU ms':>6} | "
    header += f"{'x ceiling':>9} | p99 of each round" if ceiling else "p99 of each round"
    print(header)
    print("-" * len(header))
    for name, row in rows.items():
        line = f"{name:>32} | {row['rate']:>8.0f} | {row['p50']:>7.2f} | {row['p99']:>7.2f} | {row['cpu']:>6.2f} | "
        if ceiling:
            line += f"{row['rate'] / ceiling:>9.2f} | "
        print(line + ", ".join(f"{p99:.1f}" for p99 in row["p99s"]))


def _median_run(runs: list[dict]) -> dict:
    """The median of each figure over the rounds, and every round's p99."""
    return {
        **{figure: statistics.median(run[figure] for run in runs) for figure in ("rate", "p50", "p99", "cpu")},
        "p99s": [run["p99"] for run in runs],
    }


if __name__ == "__main__":
    main()
