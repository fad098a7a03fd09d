"""What review costs, by document size, each beside what it stands in for.

Runs the API in this process (Django's test client, token authentication,
the database of DATABASE_URL). Interleaved round by round:
- proposing vs writing: an agent's ``update_document`` changing one line of
  a document in review (stored as a proposal; rejected afterwards, not
  timed, so that the cap is never reached), beside the same call on a
  document not in review (applied);
- deciding vs saving: a person's decision accepting every hunk of such a
  proposal (made beforehand, not timed), beside the person's own ``PUT
  document/`` of the same result at the current version.
Prints each median over --rounds rounds and their ratio.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/review.py [--rounds 15]
"""

import argparse
import json
import statistics
import time
import uuid

from live_setup import database_and_token

WHY = "Benchmarking review."
SIZES = (1_000, 10_000, 100_000, 950_000)  # the last within WORKSPACE_MAX_DOCUMENT_CHARS' default, with its growth


class Api:
    def __init__(self, token: str):
        from django.test import Client

        self.client = Client(HTTP_HOST="localhost")
        self.headers = {"HTTP_AUTHORIZATION": f"Token {token}"}

    def send(self, method: str, path: str, body: dict | None = None, expected: int = 200, **headers: str) -> dict:
        url = f"/api/workspace/threads/{path}"
        if body is None:
            response = self.client.get(url, **self.headers, **headers)
        else:
            data = json.dumps(body)
            response = getattr(self.client, method)(
                url, data, content_type="application/json", **self.headers, **headers
            )
        assert response.status_code == expected, (response.status_code, response.content[:300])
        return response.json()

    def update(self, thread_id: str, content: str) -> dict:
        return self.send(
            "post", f"{thread_id}/tools/update_document/", {"content": content, "action_and_reasoning": WHY}
        )

    def new_thread(self, content: str, review: bool) -> str:
        thread_id = f"bench-review-{uuid.uuid4().hex[:8]}"
        self.update(thread_id, content)
        self.send("patch", f"{thread_id}/document/", {"review": review})
        return thread_id

    def open_proposal(self, thread_id: str) -> int:
        return self.send("get", f"{thread_id}/proposals/?status=open")["results"][0]["id"]

    def decide(self, thread_id: str, proposal: int, accept: str) -> dict:
        return self.send("post", f"{thread_id}/proposals/{proposal}/decision/", {"accept": accept})


def document(size: int) -> str:
    return "".join(f"line {n:07d} of the working document, some words\n" for n in range(max(size // 48, 1)))


def timed(call, *args, **keywords) -> float:
    started = time.perf_counter()
    call(*args, **keywords)
    return time.perf_counter() - started


def line(size: int, before: list[float], after: list[float]) -> str:
    before_ms, after_ms = statistics.median(before) * 1000, statistics.median(after) * 1000
    return f"{size:>9,} | {before_ms:>10.1f} | {after_ms:>10.1f} | {after_ms / before_ms:>5.2f}x"


def proposing_vs_writing(api: Api, size: int, rounds: int) -> str:
    body = document(size)
    direct, in_review = api.new_thread(body, review=False), api.new_thread(body, review=True)
    writing, proposing = [], []
    for n in range(rounds):
        content = f"first line, round {n}\n" + body
        writing.append(timed(api.update, direct, content))
        proposing.append(timed(api.update, in_review, content))
        api.decide(in_review, api.open_proposal(in_review), "none")
    return line(len(body), writing, proposing)


def deciding_vs_saving(api: Api, size: int, rounds: int) -> str:
    body = document(size)
    by_person, in_review = api.new_thread(body, review=False), api.new_thread(body, review=True)
    saving, deciding = [], []
    version = 1
    for n in range(rounds):
        content = f"first line, round {n}\n" + body
        api.update(in_review, content)  # the proposal, not timed
        proposal = api.open_proposal(in_review)
        put = {"content": content, "action_and_reasoning": WHY}
        saving.append(timed(api.send, "put", f"{by_person}/document/", put, HTTP_IF_MATCH=f'"{version}"'))
        version += 1
        deciding.append(timed(api.decide, in_review, proposal, "all"))
    return line(len(body), saving, deciding)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    _, token = database_and_token("bench-review")
    api = Api(token)
    print(f"{'document':>9} | {'written ms':>10} | {'proposed ms':>10} | ratio")
    for size in SIZES:
        print(proposing_vs_writing(api, size, rounds))
    print()
    print(f"{'document':>9} | {'PUT ms':>10} | {'decided ms':>10} | ratio")
    for size in SIZES[1:]:
        print(deciding_vs_saving(api, size, rounds))


if __name__ == "__main__":
    main()
