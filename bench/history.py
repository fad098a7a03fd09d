"""What history costs: 1,000 edit_document calls of one line each on a 100 KB
document, for this tree and a baseline commit side by side, on PostgreSQL.

For each tree it prints how much the history tables grew (pg_total_relation_size
of the revisions and the snapshots, and the raw text they store) against the
bytes the edits changed, and the time history.revision_with_content takes to
rebuild each of the 1,001 versions (each version's best of --rounds, then the
median, 90th percentile and maximum over the versions).

Each tree runs in a process of its own, on a database of its own (this file
with --measure, its directory first on the path: the baseline is a git
worktree of --baseline, default main before history stored splices). The
rebuild timings run in rounds, the trees alternating and each going first in
turn: this machine's speed drifts from minute to minute.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/history.py \\
    [--edits 1000] [--rounds 3] [--baseline COMMIT]
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

BASELINE = "7c6a04e"  # main before history stored splices
THIS_TREE = Path(__file__).resolve().parent.parent
DOCUMENT_LINES = 1600  # about 100 KB
# Made-up words, so that the text compresses about as well as prose does (lz4: about 2x).
WORDS = ["".join(random.Random(n).choices("etaoinshrdlucmfwypvbgkjqxz", k=3 + n % 7)) for n in range(3000)]


def line(rng: random.Random, number: int, label: str) -> str:
    """A line of about 64 characters, unique by its number at the start."""
    words = []
    while sum(len(word) + 1 for word in words) < 56:
        words.append(rng.choice(WORDS))
    return f"{number:04d} {label} {' '.join(words)}"


def measure(edits: int) -> None:
    """In a tree's own process: write the document and its edits, report the
    history tables' growth as a JSON line, then time rebuilds when asked."""
    import logging

    import django

    django.setup()
    logging.getLogger("workspace").setLevel(logging.WARNING)  # not a line per call
    from django.core.management import call_command
    from django.db import connection

    from workspace.documents.repository import WorkspaceRepository
    from workspace.history import revisions as history
    from workspace.models import WorkingDocument
    from workspace.tools import DocumentTools

    call_command("migrate", verbosity=0)
    rng = random.Random(20)
    lines = [line(rng, number, "first") for number in range(DOCUMENT_LINES)]
    thread_id = f"bench-history-{os.getpid()}"
    WorkspaceRepository.upsert_document(thread_id, "\n".join(lines) + "\n")
    before = _history_size(connection)
    tools, changed = DocumentTools(thread_id), 0
    for edit in range(edits):
        number = rng.randrange(DOCUMENT_LINES)
        new = line(rng, number, f"edit{edit}")
        envelope = tools.edit_document(old_str=lines[number], new_str=new, action_and_reasoning="Measuring history.")
        assert envelope["success"], envelope
        lines[number], changed = new, changed + len(new.encode())
    after = _history_size(connection)
    document = WorkingDocument.objects.get(thread_id=thread_id)
    growth = {name: after[name] - before[name] for name in after}
    print(json.dumps({"length": document.length, "changed": changed, **growth}), flush=True)
    for command in sys.stdin:
        if command.strip() != "time":
            break
        timings = []
        for version in range(1, document.version + 1):
            started = time.perf_counter()
            _, content = history.revision_with_content(document, version)
            timings.append(time.perf_counter() - started)
        assert content == document.content
        print(json.dumps(timings), flush=True)


def _history_size(connection) -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_total_relation_size('workspace_revision') + pg_total_relation_size('workspace_snapshot'), "
            "(SELECT COALESCE(SUM(octet_length(text)), 0) FROM workspace_revision) "
            "+ (SELECT COALESCE(SUM(octet_length(content)), 0) FROM workspace_snapshot)"
        )
        tables, raw = cursor.fetchone()
    return {"tables": tables, "raw": raw}


class Tree:
    """A tree measuring in its own process and database."""

    def __init__(self, name: str, directory: Path, database_url: str, edits: int):
        self.name = name
        database = f"workspace_bench_history_{name.split()[0].replace('-', '_')}"
        import psycopg

        with psycopg.connect(database_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {database}")
            admin.execute(f"CREATE DATABASE {database}")
        environment = {
            **os.environ,
            "DATABASE_URL": urlunsplit(urlsplit(database_url)._replace(path=f"/{database}")),
            "DJANGO_SETTINGS_MODULE": "project.settings",
            "PYTHONPATH": str(directory),
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "bench",
        }
        command = [sys.executable, str(Path(__file__).resolve()), "--measure", "--edits", str(edits)]
        self.process = subprocess.Popen(
            command, cwd=directory, env=environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.growth = json.loads(self.process.stdout.readline())
        self.best: list[float] | None = None

    def time_rebuilds(self) -> None:
        self.process.stdin.write("time\n")
        self.process.stdin.flush()
        timings = json.loads(self.process.stdout.readline())
        self.best = timings if self.best is None else [min(pair) for pair in zip(self.best, timings, strict=True)]

    def stop(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", default=BASELINE, help='a commit to compare with; "" for none')
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.measure:
        return measure(arguments.edits)
    if arguments.rounds < 1 or arguments.edits < 1:
        parser.error("--rounds and --edits must be at least 1")
    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url.startswith("postgres"):
        sys.exit("Set DATABASE_URL to a PostgreSQL database (the sizes are PostgreSQL's).")
    head = subprocess.run(
        ["git", "-C", str(THIS_TREE), "describe", "--always", "--dirty"], capture_output=True, text=True
    )
    with tempfile.TemporaryDirectory() as directory:
        trees = [Tree(f"this tree ({head.stdout.strip()})", THIS_TREE, database_url, arguments.edits)]
        if arguments.baseline:
            workdir = Path(directory) / "baseline"
            subprocess.run(
                ["git", "-C", str(THIS_TREE), "worktree", "add", "--detach", str(workdir), arguments.baseline],
                check=True,
                capture_output=True,
            )
        try:
            if arguments.baseline:
                trees.append(Tree(f"baseline {arguments.baseline}", workdir, database_url, arguments.edits))
            for round_number in range(arguments.rounds):
                for tree in trees[round_number % len(trees) :] + trees[: round_number % len(trees)]:
                    tree.time_rebuilds()
            for tree in trees:
                tree.stop()
        finally:
            if arguments.baseline:
                subprocess.run(
                    ["git", "-C", str(THIS_TREE), "worktree", "remove", "--force", str(workdir)], capture_output=True
                )
    _print_table(trees, arguments)


def _print_table(trees: list[Tree], arguments) -> None:
    first = trees[0].growth
    print(
        f"{arguments.edits:,} edit_document calls of one line each on a {first['length'] / 1000:.0f} KB document, "
        f"PostgreSQL; {first['changed']:,} bytes changed (the new lines); rebuild: each version's best of "
        f"{arguments.rounds} rounds"
    )
    header = (
        f"{'':>26} | {'tables grew':>12} | {'per edit':>8} | {'raw text':>12} | {'(grew - 2 x changed) / edit':>27} | "
        f"{'rebuild median':>14} | {'p90':>7} | {'max':>7}"
    )
    print(header)
    print("-" * len(header))
    for tree in trees:
        growth, best = tree.growth, sorted(tree.best)
        spare = (growth["tables"] - 2 * growth["changed"]) / arguments.edits
        print(
            f"{tree.name:>26} | {growth['tables']:>12,} | {growth['tables'] / arguments.edits:>8,.0f} | "
            f"{growth['raw']:>12,} | {spare:>27,.0f} | {statistics.median(best) * 1000:>11.2f} ms | "
            f"{best[int(0.9 * (len(best) - 1))] * 1000:>4.2f} ms | {best[-1] * 1000:>4.2f} ms"
        )


if __name__ == "__main__":
    main()
