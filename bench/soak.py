"""Soak: mixed load for --minutes against gunicorn + uvicorn + PostgreSQL + Redis.

The API runs on gunicorn (2 sync workers), the event streams on uvicorn,
joined by Redis, as docs/deployment.md deploys them. For the whole run:
- 4 writers, each owning 5 threads, append (and now and then replace) with
  an Idempotency-Key, retrying a 503 after its Retry-After;
- 2 readers read documents and revisions;
- 50 subscribers, one stream per thread and more, rebuild each thread from
  its events; one of them drops its stream every few seconds and resumes
  with Last-Event-ID.
Every 10 s the RSS of every server process is sampled. At the end: the RSS
per minute, the count of 5xx answers, whether every thread's content equals
what its writer was told, and whether every subscriber rebuilt it exactly.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres \\
       REDIS_URL=redis://127.0.0.1:6379/0 python bench/soak.py [--minutes 10]
"""

import argparse
import json
import os
import random
import threading
import time
import uuid
from collections import Counter, defaultdict

from live_setup import database_and_token

from tests.support.live import EventStream, Server

THREADS_PER_WRITER, WRITERS, SUBSCRIBERS = 5, 4, 50


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def processes(server: Server) -> list[int]:
    """The server's process and its children (gunicorn's workers)."""
    children = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == server.process.pid:
                        children.append(int(pid))
            except OSError:
                pass
    return [server.process.pid, *children]


class Subscriber:
    def __init__(self, server: Server, token: str, thread_id: str):
        self.server, self.token, self.thread_id = server, token, thread_id
        self.content, self.version, self.last_id = "", 0, None
        self.stream = self._open()

    def _open(self) -> EventStream:
        headers = {"Authorization": f"Token {self.token}"}
        if self.last_id:
            headers["Last-Event-ID"] = self.last_id
        stream = EventStream(self.server, f"/api/workspace/threads/{self.thread_id}/events/", headers)
        assert stream.status == 200, stream.status
        return stream

    def drain(self) -> None:
        for event in self.stream.quiet(seconds=0.01):
            data = event.json()
            assert data["version"] == self.version + 1, (self.thread_id, data["version"], self.version)
            self.content = self.content + data["text"] if data["op"] == "append" else data["content"]
            self.version, self.last_id = data["version"], event.id

    def reconnect(self) -> None:
        self.drain()
        self.stream.close()
        self.stream = self._open()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10)
    minutes = parser.parse_args().minutes
    database_url, token = database_and_token("bench-soak")
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    common = {
        "REDIS_URL": redis_url,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "soak",
        "WORKSPACE_RATE_WRITES": "off",
        "WORKSPACE_RATE_READS": "off",
        "WORKSPACE_MAX_STREAMS_PER_USER": "100",
    }
    api = Server(database_url=database_url, command=[*Server.GUNICORN, "--workers", "2"], **common)
    streams = Server(database_url=database_url, **common)
    run = uuid.uuid4().hex[:8]
    threads = [f"soak-{run}-{n}" for n in range(WRITERS * THREADS_PER_WRITER)]
    subscribers = [Subscriber(streams, token, threads[n % len(threads)]) for n in range(SUBSCRIBERS)]
    expected = {thread_id: "" for thread_id in threads}
    statuses: Counter = Counter()
    stop = threading.Event()
    lock = threading.Lock()

    def call(thread_id: str, tool: str, arguments: dict) -> dict:
        key = uuid.uuid4().hex
        while True:
            status, body = api.request(
                "POST",
                f"/api/workspace/threads/{thread_id}/tools/{tool}/",
                token,
                json.dumps({**arguments, "action_and_reasoning": "soak"}),
                headers={"Idempotency-Key": key},
            )
            with lock:
                statuses[status] += 1
            if status != 503:
                assert status == 200, (status, body)
                return body
            time.sleep(1)

    def writer(owned: list[str]) -> None:
        rng, n = random.Random(owned[0]), 0
        while not stop.is_set():
            thread_id, n = rng.choice(owned), n + 1
            if n % 50 == 0:
                call(thread_id, "update_document", {"content": f"reset {n};"})
                expected[thread_id] = f"reset {n};"
            else:
                call(thread_id, "append_to_document", {"text": f"{n};"})
                expected[thread_id] += f"{n};"

    def reader() -> None:
        rng = random.Random()
        while not stop.is_set():
            thread_id = rng.choice(threads)
            for path in ("document/", "revisions/?limit=20"):
                status, _ = api.request("GET", f"/api/workspace/threads/{thread_id}/{path}", token)
                with lock:
                    statuses[status] += 1

    workers = [threading.Thread(target=writer, args=(threads[w::WRITERS],)) for w in range(WRITERS)]
    workers += [threading.Thread(target=reader) for _ in range(2)]
    samples: dict[int, list[float]] = defaultdict(list)
    started = time.monotonic()
    for worker in workers:
        worker.start()
    try:
        while (elapsed := time.monotonic() - started) < minutes * 60:
            for pid in processes(api) + processes(streams):
                samples[int(elapsed // 60)].append((pid, rss_mb(pid)))
            for subscriber in subscribers:
                subscriber.drain()
            subscribers[int(elapsed) % SUBSCRIBERS].reconnect()
            time.sleep(10)
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    deadline = time.monotonic() + 60
    stored = {}
    for thread_id in threads:
        _, document = api.request("GET", f"/api/workspace/threads/{thread_id}/document/", token)
        stored[thread_id] = document
    while time.monotonic() < deadline and any(s.version < stored[s.thread_id]["version"] for s in subscribers):
        for subscriber in subscribers:
            subscriber.drain()
    stream_pids = set(processes(streams))
    api.stop()
    streams.stop()

    print(f"Soak, {minutes:g} min: RSS (MB) of each server process, per minute (max of its samples)")
    pids = sorted({pid for rows in samples.values() for pid, _ in rows})
    names = {pid: "uvicorn" if pid in stream_pids else "gunicorn worker" for pid in pids}
    names[api.process.pid] = "gunicorn master"
    print("minute | " + " | ".join(f"{names[pid]} {pid}" for pid in pids))
    for minute, rows in sorted(samples.items()):
        by_pid = defaultdict(float)
        for pid, rss in rows:
            by_pid[pid] = max(by_pid[pid], rss)
        print(f"{minute + 1:>6} | " + " | ".join(f"{by_pid.get(pid, 0):>10.1f}" for pid in pids))
    calls = sum(statuses.values())
    print(
        f"answers: {calls}, by status: {dict(statuses)}, 5xx other than 503: "
        f"{sum(n for s, n in statuses.items() if s >= 500 and s != 503)}"
    )
    print("content equals what the writers were told:", all(stored[t]["content"] == expected[t] for t in threads))
    print(
        "every subscriber rebuilt its thread exactly:",
        all(s.content == stored[s.thread_id]["content"] for s in subscribers),
    )


if __name__ == "__main__":
    main()
