"""What a person's save costs when it merges, beside a plain save, by document size.

Runs the API in this process (Django's test client, token authentication,
the database of DATABASE_URL). For each size, interleaved round by round:
- plain: ``PUT document/`` with ``If-Match`` of the current version (no merge);
- merged: an agent appends (not timed), then the person's ``PUT`` from the
  version before the append, editing the first line: the server rebuilds the
  older version from history and merges three ways.
Prints each median (and the ratio merged / plain) over --rounds rounds.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/person_edit.py [--rounds 15]
"""

import argparse
import json
import statistics
import time
import uuid

from live_setup import database_and_token

WHY = "Benchmarking a person's save."


def put(client, token: str, url: str, content: str, version: int) -> dict:
    response = client.put(
        url,
        json.dumps({"content": content, "action_and_reasoning": WHY}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
        HTTP_IF_MATCH=f'"{version}"',
    )
    assert response.status_code == 200, (response.status_code, response.content[:300])
    return response.json()


def append(client, token: str, thread_id: str) -> None:
    response = client.post(
        f"/api/workspace/threads/{thread_id}/tools/append_to_document/",
        json.dumps({"text": "an agent's line\n", "action_and_reasoning": WHY}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert response.status_code == 200, response.content[:300]


def main() -> None:
    from django.test import Client

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    _, token = database_and_token("bench-person")
    client = Client(HTTP_HOST="localhost")
    print(f"{'document':>9} | {'plain PUT ms':>12} | {'merged PUT ms':>13} | {'ratio':>5}")
    for size in (10_000, 100_000, 950_000):  # the last within WORKSPACE_MAX_DOCUMENT_CHARS' default, with its growth
        thread_id = f"bench-person-{uuid.uuid4().hex[:8]}"
        url = f"/api/workspace/threads/{thread_id}/document/"
        body = "".join(f"line {n:07d} of the working document, some words\n" for n in range(size // 48))
        version = put(client, token, url, body, 0)["version"]
        plain, merged = [], []
        for n in range(rounds):
            content = f"first line, round {n}\n" + body
            started = time.perf_counter()
            answer = put(client, token, url, content, version)
            plain.append(time.perf_counter() - started)
            assert answer["merged"] is False
            append(client, token, thread_id)
            started = time.perf_counter()
            answer = put(client, token, url, f"edited first line, round {n}\n" + body, answer["version"])
            merged.append(time.perf_counter() - started)
            assert answer["merged"] is True and answer["content"].endswith("an agent's line\n" * (n + 1))
            version, body = answer["version"], answer["content"].split("\n", 1)[1]
        plain_ms, merged_ms = statistics.median(plain) * 1000, statistics.median(merged) * 1000
        print(f"{len(body):>9,} | {plain_ms:>12.1f} | {merged_ms:>13.1f} | {merged_ms / plain_ms:>4.1f}x")


if __name__ == "__main__":
    main()
