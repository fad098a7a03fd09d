"""Many viewers of one thread: N subscribers, 20 writes, each delivered to all of them.

For each N, a fresh server on the database of DATABASE_URL:
- "pushpin": Pushpin holding the streams in front of gunicorn (2 sync
  workers), as docs/deployment.md's "Serving many viewers" runs them;
- "uvicorn": one uvicorn process holding them itself (the README's run command);
- with ``--baseline REV``: the uvicorn counts again on a checkout of REV.

Client processes open N streams on one new thread (``--clients`` processes,
a few at a time each), then the bench appends 20 times through the API, one
write every ``--gap`` seconds. Each delivery is timed from the moment its
write request was sent to the moment a subscriber read the event. Missing:
a (subscriber, version) that had not arrived 10 s after the last write;
twice: one that arrived more than once. The servers' threads and resident
memory are read from /proc after the streams opened and after the writes.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/streams.py \\
           [--pushpin 100,1000,5000,10000] [--uvicorn 100,1000] [--gap 1.0] [--baseline REV]
"""

import argparse
import asyncio
import multiprocessing
import re
import resource
import statistics
import time
import uuid
from pathlib import Path

from live_setup import baseline_server, database_and_token, percentile

from tests.support.live import PushpinServer, Server, process_tree

WRITES = 20
OPEN_CONCURRENCY = 32  # streams a client process opens at once


# --- the client processes -------------------------------------------------


VERSION = re.compile(rb'^data: \{.*?"version": ([0-9]+)', re.MULTILINE)
EVENT_ID = re.compile(rb"^id: (.+)$", re.MULTILINE)


class StreamProtocol(asyncio.Protocol):
    """One subscriber: sends the request, decodes the chunked body as it comes
    (a callback per read, no task: the client must cost less than the server),
    notes when each version's event arrived, and, as a browser's EventSource
    does, reconnects with the last event id it got when the server closes
    the stream (``closed(last_id)``). ``MARK`` finds the events to time and
    ``mark`` names each (here: its version)."""

    MARK = VERSION

    @staticmethod
    def mark(match: re.Match):
        return int(match.group(1))

    def __init__(self, request: bytes, arrivals: dict[int, list[float]], opened, failed, closed):
        self.request, self.arrivals, self.opened, self.failed, self.closed = request, arrivals, opened, failed, closed
        self.last_id = None
        self.raw = b""  # bytes not yet decoded
        self.text = b""  # decoded body not yet split into lines
        self.headers_done = False
        self.chunked = False

    def connection_made(self, transport):
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        self.raw += data
        if not self.headers_done:
            head, separator, rest = self.raw.partition(b"\r\n\r\n")
            if not separator:
                return
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                self.failed(f"stream refused: {head[:100]!r}")
                return
            self.chunked = b"transfer-encoding: chunked" in head.lower()
            self.headers_done, self.raw = True, rest
            self.opened()
        if self.chunked:
            while True:
                size_end = self.raw.find(b"\r\n")
                if size_end < 0:
                    break
                size = int(self.raw[:size_end], 16)
                if len(self.raw) < size_end + 2 + size + 2:
                    break
                self.text += self.raw[size_end + 2 : size_end + 2 + size]
                self.raw = self.raw[size_end + 2 + size + 2 :]
        else:
            self.text, self.raw = self.text + self.raw, b""
        complete, _, self.text = self.text.rpartition(b"\n")
        for match in self.MARK.finditer(complete):
            self.arrivals.setdefault(self.mark(match), []).append(now)
        ids = EVENT_ID.findall(complete)
        self.last_id = ids[-1] if ids else self.last_id

    def connection_lost(self, exc) -> None:
        if not self.headers_done:
            self.failed(f"closed before answering: {exc!r}")
        else:
            self.closed(self.last_id)


async def _client(port: int, path: str, token: str, count: int, connection, protocol=StreamProtocol) -> None:
    loop = asyncio.get_running_loop()
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Token {token}\r\n"
        "Accept: text/event-stream\r\n"
    ).encode()
    streams: list[dict[int, list[float]]] = [{} for _ in range(count)]
    failures: list[str] = []
    limit = asyncio.Semaphore(OPEN_CONCURRENCY)
    settled = reconnects = 0
    stopping = False

    async def open_one(arrivals, last_id: bytes | None = None):
        nonlocal settled
        await limit.acquire()
        answered = loop.create_future()

        def settle(failure=None):
            nonlocal settled
            if not answered.done():
                settled += last_id is None  # a first open
                failures.extend([failure] if failure else [])
                answered.set_result(None)
                limit.release()

        def reopen(seen: bytes | None) -> None:
            nonlocal reconnects
            if not stopping:
                reconnects += 1
                tasks.append(asyncio.create_task(open_one(arrivals, seen)))

        resume = b"Last-Event-ID: " + last_id + b"\r\n" if last_id else b""
        try:
            await loop.create_connection(
                lambda: protocol(request + resume + b"\r\n", arrivals, settle, settle, reopen), "127.0.0.1", port
            )
        except OSError as error:
            settle(repr(error))

    tasks = [asyncio.create_task(open_one(arrivals)) for arrivals in streams]
    while settled < count:
        await asyncio.sleep(0.1)
    connection.send(("open", count - len(failures)))
    await loop.run_in_executor(None, connection.recv)  # the parent says: stop
    stopping = True
    for task in tasks:
        task.cancel()
    connection.send(("done", streams, failures, reconnects))


def client_process(port: int, path: str, token: str, count: int, connection, protocol=StreamProtocol) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run(_client(port, path, token, count, connection, protocol))


# --- the servers' threads and memory -------------------------------------


def status_of(pid: int) -> tuple[str, int, float]:
    """(name, threads, RSS in MB) of one process."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return fields["Name"].strip(), int(fields["Threads"]), int(fields["VmRSS"].split()[0]) / 1024


def usage(server: Server) -> dict[str, tuple[int, float]]:
    """Threads and RSS (MB) summed by kind: "django" (gunicorn workers or
    uvicorn, not gunicorn's master) and "pushpin" (all of its processes)."""
    totals = {}

    def add(kind, pid):
        _, threads, rss = status_of(pid)
        before = totals.get(kind, (0, 0.0))
        totals[kind] = (before[0] + threads, before[1] + rss)

    if isinstance(server, PushpinServer):
        for pid in process_tree(server.origin.process.pid)[1:]:  # the workers
            add("django", pid)
        for pid in process_tree(server.process.pid):
            add("pushpin", pid)
    else:
        add("django", server.process.pid)
    return totals


# --- one run --------------------------------------------------------------


ENVIRONMENT = {"WORKSPACE_RATE_READS": "off", "WORKSPACE_RATE_WRITES": "off", "WORKSPACE_MAX_STREAMS_PER_USER": "20000"}


def run(kind: str, count: int, clients: int, gap: float, database_url: str, token: str) -> dict:
    server = PushpinServer(database_url, **ENVIRONMENT) if kind == "pushpin" else Server(database_url, **ENVIRONMENT)
    try:
        row = measure(server, token, kind, count, clients, gap)
        row["complaints"] = [line for line in server.output().splitlines() if "[ERR]" in line or "[WARN]" in line]
        return row
    finally:
        server.stop()


def measure(server: Server, token: str, kind: str, count: int, clients: int, gap: float) -> dict:
    thread_id = f"viewers-{uuid.uuid4().hex[:12]}"
    path = f"/api/workspace/threads/{thread_id}/events/"
    server.request("GET", "/api/workspace/tools/", token)  # warm up
    before = usage(server)
    pipes, processes = [], []
    started = time.monotonic()
    for n in range(clients):
        parent, child = multiprocessing.Pipe()
        share = count // clients + (1 if n < count % clients else 0)
        process = multiprocessing.Process(target=client_process, args=(server.port, path, token, share, child))
        process.start()
        pipes.append(parent)
        processes.append(process)
    opened = sum(pipe.recv()[1] for pipe in pipes)
    open_seconds = time.monotonic() - started
    time.sleep(3)  # Pushpin checks each new stream for a missed change about a second after it opens
    with_streams = usage(server)

    sent, answers = {}, []
    for version in range(1, WRITES + 1):
        sent[version] = time.monotonic()
        envelope = server.call(token, thread_id, "append_to_document", text=f"{version},", action_and_reasoning="bench")
        answers.append((time.monotonic() - sent[version]) * 1000)
        assert envelope["success"], envelope
        time.sleep(gap)
    time.sleep(10)
    after = usage(server)

    for pipe in pipes:
        pipe.send("stop")
    delays, missing, twice, failures, reconnects = [], 0, 0, [], 0
    by_version = {version: [] for version in range(1, WRITES + 1)}
    for pipe in pipes:
        _, streams, failed, reopened = pipe.recv()
        failures += failed
        reconnects += reopened
        for arrivals in streams:
            for version in range(1, WRITES + 1):
                times = arrivals.get(version, [])
                missing += not times
                twice += len(times) > 1
                delays += [(times[0] - sent[version]) * 1000] if times else []
                by_version[version] += [(times[0] - sent[version]) * 1000] if times else []
    for process in processes:
        process.join(timeout=30)
    return {
        "kind": kind,
        "subscribers": count,
        "opened": opened,
        "open_s": open_seconds,
        "failures": failures,
        "reconnects": reconnects,
        "missing": missing,
        "twice": twice,
        "p50": statistics.median(delays) if delays else float("nan"),
        "p99": percentile(delays, 0.99) if delays else float("nan"),
        "max": max(delays) if delays else float("nan"),
        "answer_p50": statistics.median(answers),
        "answers": answers,
        "slowest_by_write": [max(by_version[version], default=float("nan")) for version in by_version],
        "before": before,
        "with_streams": with_streams,
        "after": after,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pushpin", default="100,1000,5000,10000", help="subscriber counts through Pushpin")
    parser.add_argument("--uvicorn", default="100,1000", help="subscriber counts on one uvicorn process")
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--gap", type=float, default=1.0, help="seconds between writes")
    parser.add_argument("--baseline", help="also the uvicorn counts on a checkout of this revision")
    parser.add_argument("--per-write", action="store_true", help="print each write's slowest delivery and answer")
    arguments = parser.parse_args()
    database_url, token = database_and_token("bench-streams")

    rows = []
    for kind, counts in (("pushpin", arguments.pushpin), ("uvicorn", arguments.uvicorn)):
        for count in (int(value) for value in counts.split(",") if value):
            rows.append(run(kind, count, arguments.clients, arguments.gap, database_url, token))
            print(f"{kind} {count}: done", flush=True)
    if arguments.baseline:
        for count in (int(value) for value in arguments.uvicorn.split(",") if value):
            with baseline_server(arguments.baseline, database_url, Server.UVICORN, **ENVIRONMENT) as (server, key):
                rows.append(measure(server, key, arguments.baseline[:7], count, arguments.clients, arguments.gap))
            print(f"{arguments.baseline} {count}: done", flush=True)

    print(f"\n{WRITES} appends to one thread, delivered to every subscriber; delays from each write request, ms")
    header = (
        f"{'server':>8} | {'subs':>6} | {'open s':>6} | {'missing':>7} | {'twice':>5} | {'p50':>7} | {'p99':>7} | "
        f"{'max':>7} | {'write':>6} | {'django thr':>10} | {'django MB':>9} | {'KB/sub':>6} | {'pushpin MB':>10}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        django_threads, django_mb = row["with_streams"]["django"]
        base_mb = row["before"]["django"][1]
        # Behind Pushpin the workers hold no stream: their growth is the requests', not the viewers'.
        per_subscriber = "-" if row["kind"] == "pushpin" else f"{(django_mb - base_mb) * 1024 / row['subscribers']:.1f}"
        pushpin_mb = row["with_streams"].get("pushpin", (0, 0.0))[1]
        print(
            f"{row['kind']:>8} | {row['subscribers']:>6} | {row['open_s']:>6.1f} | {row['missing']:>7} | "
            f"{row['twice']:>5} | {row['p50']:>7.1f} | {row['p99']:>7.1f} | {row['max']:>7.1f} | "
            f"{row['answer_p50']:>6.1f} | {django_threads:>10} | {django_mb:>9.1f} | {per_subscriber:>6} | "
            f"{pushpin_mb:>10.1f}"
        )
        if arguments.per_write:
            print(
                "         slowest delivery of each write, ms:", " ".join(f"{ms:.0f}" for ms in row["slowest_by_write"])
            )
            print("         answer of each write, ms:", " ".join(f"{ms:.0f}" for ms in row["answers"]))
        if row.get("complaints"):
            print(f"         the servers logged {len(row['complaints'])} warnings, e.g. {row['complaints'][0][:200]}")
        if row["reconnects"]:
            print(f"         {row['reconnects']} streams closed by the server and reopened with their last id")
        if row["failures"]:
            print(f"         {len(row['failures'])} streams failed to open, e.g. {row['failures'][0]}")
    print(
        "django thr / MB: threads and resident memory of the Django processes (gunicorn's workers, or uvicorn)"
        " with every stream open; KB/sub: their growth since before the streams, per subscriber (uvicorn);"
        " write: median answer time of the 20 appends"
    )


if __name__ == "__main__":
    main()
