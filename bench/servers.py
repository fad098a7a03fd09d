"""Which server to run: requests per second and latency of the API, side by side.

Each candidate serves the demo project on the database of DATABASE_URL; a
client in this process reads a document over kept-alive connections:
- one connection, one request at a time: the latency a single agent sees
  (a stall near 40 ms would mean Nagle's algorithm is on, TCP_NODELAY off);
- 8 connections at once: throughput.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/servers.py [--seconds 5]
"""

import argparse
import http.client
import statistics
import threading
import time

from live_setup import database_and_token

from tests.support.live import Server
from workspace.documents.repository import WorkspaceRepository

CANDIDATES = {
    "uvicorn ASGI, 1 process (README)": Server.UVICORN,
    "uvicorn ASGI, --workers 2": [*Server.UVICORN, "--workers", "2"],
    "gunicorn WSGI, 2 sync workers": [*Server.GUNICORN, "--workers", "2"],
    "gunicorn WSGI, 4 sync workers": [*Server.GUNICORN, "--workers", "4"],
}
PATH = "/api/workspace/threads/bench-servers/document/"


def run_client(port: int, headers: dict, deadline: float, latencies: list[float]) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while time.monotonic() < deadline:
        started = time.monotonic()
        connection.request("GET", PATH, headers=headers)
        response = connection.getresponse()
        response.read()
        assert response.status == 200, response.status
        latencies.append((time.monotonic() - started) * 1000)
    connection.close()


def load(port: int, headers: dict, clients: int, seconds: float) -> list[float]:
    latencies: list[float] = []
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=run_client, args=(port, headers, deadline, latencies)) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5)
    seconds = parser.parse_args().seconds
    database_url, token = database_and_token("bench-servers")
    headers = {"Authorization": f"Token {token}"}
    WorkspaceRepository.upsert_document("bench-servers", content="x" * 2000, title="bench")

    print(f"GET a 2 KB document, {seconds:g} s a run, kept-alive connections")
    header = f"{'server':>34} | {'1 client: p50 ms':>16} | {'p99 ms':>7} | {'8 clients: req/s':>16} | {'p50 ms':>7}"
    print(header)
    print("-" * len(header))
    for name, command in CANDIDATES.items():
        server = Server(database_url=database_url, command=command, DJANGO_DEBUG="0", DJANGO_SECRET_KEY="bench")
        try:
            time.sleep(1)  # let every worker start
            single = load(server.port, headers, 1, seconds)
            many = load(server.port, headers, 8, seconds)
        finally:
            server.stop()
        p99 = sorted(single)[int(0.99 * (len(single) - 1))]
        print(
            f"{name:>34} | {statistics.median(single):>16.2f} | {p99:>7.2f} | "
            f"{len(many) / seconds:>16.0f} | {statistics.median(many):>7.2f}"
        )


if __name__ == "__main__":
    main()
