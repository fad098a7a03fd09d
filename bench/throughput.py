"""Tool calls per second over HTTP against the framework's own ceiling, in one run.

Each server is gunicorn with 2 sync workers (--workers) on PostgreSQL (DATABASE_URL);
wrk drives 16 connections for --seconds each, every request an
``update_document`` of 1 KB on one of 1,000 threads (so that calls rarely
wait for each other's row lock):
- this tree: the product as it is;
- baseline: the same on a checkout of --baseline (default: main before the
  revision log), on a database of its own, for the "before" figures;
- bare DRF: a DRF endpoint that authenticates the token with DRF's own
  TokenAuthentication, parses the same body and answers, served by this
  tree's server: the ceiling;
- appends to one hot thread from 8 connections, then whether every answered
  append is in the document, once.
The loads run in --rounds rounds, interleaved, each going first in turn:
this machine's speed drifts by a third over minutes, and a figure of one
run says as much about the minute as about the server. The table gives
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
import re
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from live_setup import baseline_server, database_and_token

from tests.live import Server

BASELINE = "0a322eb"  # main before history: events in a second transaction
CONNECTIONS = 16
CHUNK = "a line of an append\n"

WRK_SCRIPT = """
local counter = 0
local next_id = 0
function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end
request = function()
  counter = counter + 1
  local path = string.format(PATH, id * 500 + counter % 500)
  return wrk.format("POST", path, {["Authorization"] = "Token " .. TOKEN, ["Content-Type"] = "application/json"}, BODY)
end
"""


WARM_UP_SECONDS = 2


def wrk(url: str, path_pattern: str, token: str, body: str, seconds: int, connections: int = CONNECTIONS) -> dict:
    script = WRK_SCRIPT.replace("PATH", json.dumps(path_pattern)).replace("TOKEN", json.dumps(token))
    script = script.replace("BODY", "[=[" + body + "]=]")
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as file:
        file.write(script)
        file.flush()
        output = subprocess.run(
            ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", file.name, url],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if errors:
        sys.exit(f"{errors.group(1)} calls failed:\n{output}")
    return {
        "answered": int(re.search(r"(\d+) requests in", output).group(1)),
        "rate": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
        "p50": _milliseconds(re.search(r"50%\s+([\d.]+\w+)", output).group(1)),
        "p99": _milliseconds(re.search(r"99%\s+([\d.]+\w+)", output).group(1)),
    }


def worker_rss_mb(server: Server) -> list[float]:
    """The resident memory of each gunicorn worker (the children of the master), in MB."""
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children").read_text().split()
    sizes = []
    for pid in children:
        status = Path(f"/proc/{pid}/status").read_text()
        sizes.append(int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024)
    return sizes


def _milliseconds(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(\w+)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1, "s": 1000}[unit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3, help="runs of each server, interleaved; medians reported")
    parser.add_argument("--baseline", default=BASELINE, help='a commit to compare with; "" for none')
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers of every server")
    arguments = parser.parse_args()
    if arguments.rounds < 1 or arguments.seconds < 1:
        parser.error("--rounds and --seconds must be at least 1")
    database_url, token = database_and_token("bench-throughput")
    body = json.dumps({"content": "x" * 1000, "action_and_reasoning": "Measuring throughput."})
    update = "/api/workspace/threads/bench-throughput-%d/tools/update_document/"
    chunk = json.dumps({"text": CHUNK, "action_and_reasoning": "Measuring appends to one thread."})
    command = [*Server.GUNICORN, "--workers", str(arguments.workers)]

    with contextlib.ExitStack() as servers:
        server = Server(
            database_url=database_url,
            command=command,
            DJANGO_SETTINGS_MODULE="bench.bare_settings",
            DJANGO_DEBUG="0",
            DJANGO_SECRET_KEY="bench",
            WORKSPACE_RATE_WRITES="off",  # one user makes thousands of calls a second here
            WORKSPACE_RATE_READS="off",
        )
        servers.callback(server.stop)
        # name: (server, path, token), every one run once a round
        loads = {
            "bare DRF (ceiling)": (server, "/bench/bare/", token),
            "update_document, this tree": (server, update, token),
        }
        if arguments.baseline:
            baseline, key = servers.enter_context(baseline_server(arguments.baseline, database_url, command))
            loads[f"update_document, {arguments.baseline}"] = (baseline, update, key)
        for target, path, key in loads.values():
            wrk(target.url, path, key, body, WARM_UP_SECONDS)
        runs = {name: [] for name in loads}
        for round_number in range(arguments.rounds):
            names = list(loads)
            names = names[round_number % len(names) :] + names[: round_number % len(names)]  # each goes first in turn
            for name in names:
                target, path, key = loads[name]
                runs[name].append(wrk(target.url, path, key, body, arguments.seconds))
        rss = worker_rss_mb(server)
        hot = f"bench-hot-{uuid.uuid4().hex[:12]}"
        appends = wrk(
            server.url, f"/api/workspace/threads/{hot}/tools/append_to_document/", token, chunk, arguments.seconds, 8
        )
        status, document = server.request("GET", f"/api/workspace/threads/{hot}/document/", token)
        # every answered append is in the document, once (a call cut off by wrk's end may have committed too)
        lost = max(0, appends["answered"] - document["version"])
        doubled = document["length"] != document["version"] * len(CHUNK)

    rows = {name: _median_run(name_runs) for name, name_runs in runs.items()}
    rows["append, 1 thread, 8 conns"] = {**appends, "p99s": [appends["p99"]]}
    ceiling = rows["bare DRF (ceiling)"]["rate"]
    workers, seconds, rounds = arguments.workers, arguments.seconds, arguments.rounds
    print(
        f"gunicorn, {workers} sync workers, PostgreSQL; wrk, {CONNECTIONS} connections; {rounds} rounds of {seconds} s "
        "for each server, interleaved: medians, and every round's p99"
    )
    header = f"{'':>28} | {'calls/s':>8} | {'p50 ms':>7} | {'p99 ms':>7} | {'x ceiling':>9} | p99 of each round"
    print(header)
    print("-" * len(header))
    for name, row in rows.items():
        print(
            f"{name:>28} | {row['rate']:>8.0f} | {row['p50']:>7.2f} | {row['p99']:>7.2f} | "
            f"{row['rate'] / ceiling:>9.2f} | {', '.join(f'{p99:.1f}' for p99 in row['p99s'])}"
        )
    print(f"RSS of this tree's gunicorn workers after its runs: {', '.join(f'{size:.1f} MB' for size in rss)}")
    twice = "some" if doubled else "none"
    print(f"appends to one thread: {appends['answered']} answered, {lost} lost, {twice} applied twice")


def _median_run(runs: list[dict]) -> dict:
    """The median of each figure over the rounds, and every round's p99."""
    return {
        **{figure: statistics.median(run[figure] for run in runs) for figure in ("rate", "p50", "p99")},
        "p99s": [run["p99"] for run in runs],
    }


if __name__ == "__main__":
    main()
