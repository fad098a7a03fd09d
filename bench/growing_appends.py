"""What a 1 KB append costs as the document grows, and what reading it costs.

For each database (PostgreSQL, on a fresh database beside DATABASE_URL's,
and SQLite, in a file of its own), side by side in one run:
- appends: --appends consecutive 1 KB appends to a document that starts
  empty, beside as many to one that starts at 990 KB, the same way each
  time: in-process (``DocumentTools.append_to_document``, as an agent's
  Python calls it) and over HTTP (Django's test client through the API's
  view, token authentication). The mean per append, so that the appends
  that fold the ones before into the row's content count (they come once
  per run of appends: ``history.snapshot_policy``), and their ratio;
- WAL (PostgreSQL): the bytes ``pg_current_wal_lsn()`` moved per in-process
  append, at 990 KB and empty;
- reads of a 1 MB document (``GET document/``): just after a fold (its row
  holds it whole, one row read, as every read did before appends were held
  apart) beside with the most appends held apart a read joins on.

With --baseline COMMIT, a checkout of that commit is measured the same way,
on databases of its own, in the same run (before appends were held apart,
its "held" read is a document grown by as many appends, read whole).

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/growing_appends.py \\
    [--appends 600] [--baseline COMMIT]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHUNK = ("the agent drafts a plan for the user and revises each step as new facts arrive " * 13)[:1000] + "\n"
LARGE = 990_000
READS = 200


def measure(appends: int) -> dict:
    """In a process set up on the database of DATABASE_URL: the measures, by name."""
    sys.path.insert(0, os.environ.get("BENCH_TREE", str(HERE.parent)))  # this tree, or --baseline's checkout
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    os.environ.setdefault("DJANGO_DEBUG", "0")  # as in production: DEBUG would record every query
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
    import logging

    import django

    django.setup()
    logging.getLogger("workspace").setLevel(logging.WARNING)
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from workspace.history import snapshot_policy
    from workspace.tools import DocumentTools

    call_command("migrate", verbosity=0)
    settings.WORKSPACE_MAX_DOCUMENT_CHARS = 2_000_000  # room to append onto 990 KB
    user, _ = get_user_model().objects.get_or_create(username="bench-appends")
    token = Token.objects.get_or_create(user=user)[0].key
    client = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token}")
    postgres = connection.vendor == "postgresql"

    def wal() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")
            return int(cursor.fetchone()[0])

    def in_process(thread_id: str) -> None:
        assert DocumentTools(thread_id).append_to_document(text=CHUNK, action_and_reasoning="bench")["success"]

    def over_http(thread_id: str) -> None:
        response = client.post(
            f"/api/workspace/threads/{thread_id}/tools/append_to_document/",
            json.dumps({"text": CHUNK, "action_and_reasoning": "bench"}),
            content_type="application/json",
        )
        assert response.status_code == 200, response.content[:200]

    def start(thread_id: str, size: int) -> None:
        body = (CHUNK * (size // len(CHUNK) + 1))[:size]
        DocumentTools(thread_id).update_document(content=body, action_and_reasoning="bench")

    results: dict[str, float] = {}
    for way, append in (("in-process", in_process), ("HTTP", over_http)):
        times: dict[str, list[float]] = {"empty": [], "990 KB": []}
        bytes_written = {"empty": 0, "990 KB": 0}
        threads = {name: f"bench-grow-{way}-{name.replace(' ', '')}-{os.getpid()}" for name in times}
        start(threads["empty"], 0)
        start(threads["990 KB"], LARGE)
        for _ in range(appends):
            for name in times:  # side by side, append by append
                before = wal() if postgres else 0
                started = time.perf_counter()
                append(threads[name])
                times[name].append(time.perf_counter() - started)
                bytes_written[name] += (wal() - before) if postgres else 0
        for name in times:
            results[f"{way} {name} ms"] = statistics.mean(times[name]) * 1000
            if postgres and way == "in-process":
                results[f"WAL {name} bytes"] = bytes_written[name] / appends

    # Reads of a 1 MB document: none held apart, beside the most a read joins on.
    folded, holding = f"bench-read-folded-{os.getpid()}", f"bench-read-held-{os.getpid()}"
    most = getattr(snapshot_policy, "FOLD_MAX_APPENDS", 256) - 1  # a baseline without it: as many appends
    start(folded, 1_000_000)
    start(holding, 1_000_000 - most * len(CHUNK))
    for _ in range(most):
        in_process(holding)
    reads: dict[str, list[float]] = {folded: [], holding: []}
    for _ in range(READS):
        for thread_id in reads:
            started = time.perf_counter()
            response = client.get(f"/api/workspace/threads/{thread_id}/document/")
            reads[thread_id].append(time.perf_counter() - started)
            assert response.status_code == 200 and len(response.json()["content"]) >= 990_000
    results["read whole ms"] = statistics.median(reads[folded]) * 1000
    results["read held ms"] = statistics.median(reads[holding]) * 1000
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--appends", type=int, default=600, help="consecutive appends per document (default 600)")
    parser.add_argument("--baseline", help="a commit measured the same way beside this tree")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # a child: print the measures
    arguments = parser.parse_args()
    if arguments.measure:
        print(json.dumps(measure(arguments.appends)))
        return
    database_url = os.environ.get("DATABASE_URL")
    if not database_url or not database_url.startswith("postgres"):
        sys.exit("Set DATABASE_URL to a PostgreSQL database (a fresh one is made beside it; SQLite runs too).")
    sys.path.insert(0, str(HERE))
    from databases import fresh_database

    with tempfile.TemporaryDirectory() as directory:
        trees = {"this tree": str(HERE.parent)}
        if arguments.baseline:
            trees[arguments.baseline] = f"{directory}/baseline"
            subprocess.run(
                ["git", "worktree", "add", "--detach", trees[arguments.baseline], arguments.baseline],
                cwd=HERE.parent,
                check=True,
                capture_output=True,
            )
        measured: dict[tuple[str, str], dict] = {}
        try:
            for tree_name, tree in trees.items():
                suffix = "growing_appends" + ("_baseline" if tree_name != "this tree" else "")
                databases = {
                    "PostgreSQL": fresh_database(database_url, suffix),
                    "SQLite": f"sqlite:///{directory}/{suffix}.sqlite3",
                }
                for name, url in databases.items():
                    environment = {
                        "DATABASE_URL": url,
                        "BENCH_TREE": tree,
                        "WORKSPACE_RATE_WRITES": "off",
                        "WORKSPACE_RATE_READS": "off",
                    }
                    child = subprocess.run(
                        [sys.executable, __file__, "--measure", "--appends", str(arguments.appends)],
                        env={**os.environ, **environment},
                        capture_output=True,
                        text=True,
                    )
                    if child.returncode:
                        sys.exit(f"{tree_name}, {name}: {child.stderr[-2000:]}")
                    measured[tree_name, name] = json.loads(child.stdout.strip().splitlines()[-1])
        finally:
            if arguments.baseline:
                subprocess.run(["git", "worktree", "remove", "--force", trees[arguments.baseline]], cwd=HERE.parent)

    print(f"Mean ms per 1 KB append over {arguments.appends} consecutive appends, side by side")
    print(f"{'tree':>10} | {'database':>10} | {'way':>10} | {'empty':>7} | {'990 KB':>7} | ratio")
    for (tree_name, name), results in measured.items():
        for way in ("in-process", "HTTP"):
            empty, large = results[f"{way} empty ms"], results[f"{way} 990 KB ms"]
            print(f"{tree_name:>10} | {name:>10} | {way:>10} | {empty:>7.2f} | {large:>7.2f} | {large / empty:.2f}x")
    print()
    print(f"WAL per in-process append (PostgreSQL), bytes; the chunk is {len(CHUNK):,} characters")
    for (tree_name, name), results in measured.items():
        if name == "PostgreSQL":
            print(
                f"{tree_name:>10} | empty {results['WAL empty bytes']:>9,.0f} "
                f"| 990 KB {results['WAL 990 KB bytes']:>9,.0f}"
            )
    print()
    print(f"Median ms per GET document/ of a 1 MB document, {READS} reads each: its row whole, or the most held apart")
    print(f"{'tree':>10} | {'database':>10} | {'whole':>7} | {'held':>7} | held/whole")
    for (tree_name, name), results in measured.items():
        whole, held = results["read whole ms"], results["read held ms"]
        print(f"{tree_name:>10} | {name:>10} | {whole:>7.2f} | {held:>7.2f} | {held / whole:.2f}x")


if __name__ == "__main__":
    main()
