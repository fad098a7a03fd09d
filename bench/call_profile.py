"""Where one tool call over HTTP spends its time: a cProfile of ``update_document``.

Runs the API in this process (Django's test client, token authentication, the
database of DATABASE_URL, rates off) on 50 existing documents, prints the
mean time of a call without the profiler, then the functions with the most
cumulative time under it.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/call_profile.py [--calls 1000]
"""

import argparse
import cProfile
import json
import logging
import os
import pstats
import time

os.environ["WORKSPACE_RATE_WRITES"] = "off"

from live_setup import database_and_token  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--lines", type=int, default=30)
    arguments = parser.parse_args()
    _, token = database_and_token("bench-profile")
    logging.disable(logging.INFO)  # one line a call would be most of what is measured
    from django.test import Client

    client = Client(HTTP_HOST="127.0.0.1")
    # Two contents in turn: the same content again would change nothing, and commit nothing.
    bodies = [json.dumps({"content": letter * 1000, "action_and_reasoning": "Profiling."}) for letter in "xy"]

    def call(n: int) -> None:
        path = f"/api/workspace/threads/bench-profile-{n % 50}/tools/update_document/"
        body = bodies[n // 50 % 2]
        response = client.post(path, body, content_type="application/json", HTTP_AUTHORIZATION=f"Token {token}")
        assert response.status_code == 200, response.content

    for n in range(100):  # the documents exist, connections and caches are warm
        call(n)
    started = time.perf_counter()
    for n in range(arguments.calls):
        call(n)
    print(f"{(time.perf_counter() - started) * 1000 / arguments.calls:.2f} ms a call, without the profiler")
    profiler = cProfile.Profile()
    profiler.enable()
    for n in range(arguments.calls):
        call(n)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(arguments.lines)


if __name__ == "__main__":
    main()
