"""What one very large draft piece costs, beside a tool call of the same arguments.

For each kind of content (plain, accented and emoji text written with
``\\u`` escapes, as ``json.dumps`` writes them, and text full of newlines
and quotes), a document as long as fits in one piece (the piece's body, its
arguments escaped again inside ``{"tool", "delta"}``, under the demo's
DATA_UPLOAD_MAX_MEMORY_SIZE of 13 MB):

- ``reader``: ``partial_json.FieldReader.feed`` of the whole arguments in
  this process, milliseconds and the peak of Python's memory (tracemalloc),
  for this tree and --baseline's reader (its module, read with git show);
- ``server``: on uvicorn, one draft piece holding the whole arguments (which
  holds a worker and the draft's row lock) and the ``update_document`` call
  of the same arguments, median milliseconds of --rounds, for this tree and
  for --baseline (a checkout on a database of its own), side by side.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/draft_piece.py \\
    [--rounds 3] [--baseline 1300a33] [--parts reader,server]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
import types
import uuid

os.environ["WORKSPACE_RATE_DRAFTS"] = "off"
os.environ["WORKSPACE_RATE_WRITES"] = "off"

from live_setup import baseline_server, database_and_token  # noqa: E402

from tests.support.live import REPOSITORY, Server  # noqa: E402

BODY_LIMIT = 13_048_576  # the demo's DATA_UPLOAD_MAX_MEMORY_SIZE
WHY = "Benchmarking one large piece."
KINDS = {
    "plain": "Some words, more words.\n",
    "accents, \\u": "Été: café, crème brûlée; ",
    "emoji, \\u": "\U0001f600\U0001f680 ",
    "newlines, quotes": 'a\n"b"\n\\ ',
}


def arguments_of(text: str) -> str:
    """``update_document``'s arguments holding as much of ``text`` repeated as one piece takes."""

    def arguments(count: int) -> str:
        return json.dumps({"title": "Plan", "content": (text * (count // len(text) + 1))[:count]})

    def body(count: int) -> int:
        return len(json.dumps({"tool": "update_document", "delta": arguments(count)}))

    count = min(1_000_000, int(1_000_000 * (BODY_LIMIT - 4096) / body(1_000_000)))
    while body(count) > BODY_LIMIT - 4096:
        count = int(count * 0.95)
    return arguments(count)


def baseline_reader(revision: str) -> type:
    source = subprocess.run(
        ["git", "-C", str(REPOSITORY), "show", f"{revision}:workspace/partial_json.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    module = types.ModuleType("baseline_partial_json")
    exec(compile(source, "baseline_partial_json", "exec"), module.__dict__)  # noqa: S102
    return module.FieldReader


def read_once(reader_class: type, arguments: str) -> tuple[float, float]:
    """Milliseconds and peak MB of reading ``arguments`` as one delta."""
    reader = reader_class("content")
    tracemalloc.start()
    started = time.perf_counter()
    reader.feed(arguments)
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return elapsed * 1000, peak / 1e6


def reader_part(revision: str) -> None:
    from workspace.drafts.partial_json import FieldReader

    readers = {"this tree": FieldReader}
    if revision:
        readers[f"baseline {revision}"] = baseline_reader(revision)
    print("\nreader: one delta holding the whole arguments, in this process")
    header = f"{'content':>16} | {'MB':>5} | " + " | ".join(f"{name:>20} ms, peak MB" for name in readers)
    print(header)
    print("-" * len(header))
    for kind, text in KINDS.items():
        arguments = arguments_of(text)
        cells = [f"{ms:>20.0f} {peak:>12.0f}" for ms, peak in (read_once(cls, arguments) for cls in readers.values())]
        print(f"{kind:>16} | {len(arguments) / 1e6:>5.1f} | " + " | ".join(cells))


def timed(server: Server, token: str, path: str, body: str) -> float:
    started = time.perf_counter()
    status, answer = server.request("POST", path, token, body)
    elapsed = (time.perf_counter() - started) * 1000
    assert status in (200, 202), (status, answer)
    return elapsed


def server_rows(server: Server, token: str, rounds: int) -> dict[str, tuple[float, float]]:
    """Per kind: median ms of one draft piece of the whole arguments, and of the tool call."""
    rows = {}
    for kind, text in KINDS.items():
        arguments = arguments_of(text)
        piece_body = json.dumps({"tool": "update_document", "delta": arguments})
        call_body = json.dumps({**json.loads(arguments), "action_and_reasoning": WHY})
        pieces, calls = [], []
        for _ in range(rounds):
            thread_id = f"bench-piece-{uuid.uuid4().hex[:8]}"
            pieces.append(timed(server, token, f"/api/workspace/threads/{thread_id}/drafts/c/", piece_body))
            calls.append(timed(server, token, f"/api/workspace/threads/{thread_id}/tools/update_document/", call_body))
        rows[kind] = statistics.median(pieces), statistics.median(calls)
    return rows


def server_part(revision: str, rounds: int) -> None:
    database_url, token = database_and_token("bench-draft-piece")
    environment = {"WORKSPACE_RATE_DRAFTS": "off", "WORKSPACE_RATE_WRITES": "off"}
    trees = {}
    server = Server(database_url=database_url, **environment)
    try:
        trees["this tree"] = server_rows(server, token, rounds)
    finally:
        server.stop()
    if revision:
        with baseline_server(revision, database_url, Server.UVICORN, **environment) as (server, token):
            trees[f"baseline {revision}"] = server_rows(server, token, rounds)
    print(f"\nserver: uvicorn, {database_url.split('://')[0]}, median ms of {rounds}")
    header = f"{'content':>16} | " + " | ".join(f"{name:>19}: piece, call, ratio" for name in trees)
    print(header)
    print("-" * len(header))
    for kind in KINDS:
        cells = []
        for rows in trees.values():
            piece, call = rows[kind]
            cells.append(f"{piece:>26.0f} {call:>5.0f} {piece / call:>6.1f}")
        print(f"{kind:>16} | " + " | ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", default="1300a33", help='a commit to compare with; "" for none')
    parser.add_argument("--parts", default="reader,server")
    arguments = parser.parse_args()
    parts = arguments.parts.split(",")
    if "reader" in parts:
        reader_part(arguments.baseline)
    if "server" in parts:
        if not os.environ.get("DATABASE_URL"):
            sys.exit("Set DATABASE_URL (the server processes share the database).")
        server_part(arguments.baseline, arguments.rounds)


if __name__ == "__main__":
    main()
