"""Median time of one 1 KB append at several document sizes, on PostgreSQL.
(The mean over runs of consecutive appends, folds included, and on SQLite
too: ``bench/growing_appends.py``.)

Side by side in one run, each append on a document reset to the same size:
- raw SQL: one ``UPDATE ... SET content = content || %s`` in autocommit,
  the least work the database can do for an append (lz4 column, as migrated);
- raw SQL, pglz: the same on a copy of the table left at PostgreSQL's default
  compression, to show what the migration's lz4 buys;
- raw SQL + revision: that UPDATE and the insert of its revision in one
  autocommit statement, the least the database can do to keep history;
- repository: ``WorkspaceRepository.append_document`` (one transaction: the
  locking ``UPDATE ... RETURNING`` of the row's length and version, and the
  insert of the revision, which holds the chunk and is also the live event;
  the row's content is left as it was, ``docs/architecture.md``);
- tool call: ``DocumentTools.append_to_document`` as an agent calls it, with
  argument validation, the revision, the envelope and the announcement of
  the event after commit.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/append.py [--rounds 200]
"""

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
# As in production: DEBUG would record every query and slow the app's side.
os.environ.setdefault("DJANGO_DEBUG", "0")
os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")

import logging  # noqa: E402

import django  # noqa: E402

django.setup()
logging.getLogger("workspace").setLevel(logging.WARNING)  # not a line per tool call

import psycopg  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import override_settings  # noqa: E402

from workspace.documents.repository import WorkspaceRepository  # noqa: E402
from workspace.models import WorkingDocument  # noqa: E402
from workspace.tools import DocumentTools  # noqa: E402

SIZES = {"0": 0, "100 KB": 100_000, "1 MB": 1_000_000}
TABLE = "workspace_workingdocument"
PGLZ_TABLE = "bench_pglz_document"
WORDS = [
    "the",
    "agent",
    "drafts",
    "a",
    "plan",
    "for",
    "the",
    "user",
    "and",
    "revises",
    "each",
    "step",
    "as",
    "new",
    "facts",
    "arrive",
    "from",
    "tools",
]


def thread_of(method: str) -> str:
    """The thread each method appends to (thread ids allow no spaces)."""
    return "bench-" + "".join(c if c.isalnum() else "-" for c in method)


def prose(length: int, rng: random.Random) -> str:
    """Text that compresses like a real document does (repeated words, not noise)."""
    text = " ".join(rng.choice(WORDS) for _ in range(length // 3 + 1))
    return text[:length]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=200, help="appends per method and size (default 200)")
    rounds = parser.parse_args().rounds
    if connection.vendor != "postgresql":
        sys.exit("Set DATABASE_URL to a PostgreSQL database: this compares against raw PostgreSQL SQL.")
    call_command("migrate", verbosity=0)

    rng = random.Random(7)
    chunk = prose(1000, rng)
    base = prose(max(SIZES.values()), rng)
    raw = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True)
    # Set-up and resets go through a connection of their own, so that no
    # measured method gains from having just written the row itself.
    setup = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True)
    setup.execute(f"DROP TABLE IF EXISTS {PGLZ_TABLE}")
    setup.execute(f"CREATE TABLE {PGLZ_TABLE} (LIKE {TABLE} INCLUDING ALL)")
    setup.execute(f"ALTER TABLE {PGLZ_TABLE} ALTER COLUMN content SET COMPRESSION pglz")

    def raw_append(table: str):
        def append(thread_id: str) -> None:
            raw.execute(
                f"UPDATE {table} SET content = content || %s, length = length + %s, "
                "version = version + 1, updated_at = now() WHERE thread_id = %s",
                (chunk, len(chunk), thread_id),
            )

        return append

    def raw_append_with_revision(thread_id: str) -> None:
        raw.execute(
            f"WITH appended AS (UPDATE {TABLE} SET content = content || %s, length = length + %s, "
            "version = version + 1, updated_at = now() WHERE thread_id = %s "
            "RETURNING id, version, length, title, base_version) "
            "INSERT INTO workspace_revision (document_id, version, op, title, length, text, action_and_reasoning, "
            "actor, tool, base_version, created_at) "
            "SELECT id, version, 'append', title, length, %s, 'benchmark', NULL, NULL, base_version, now() "
            "FROM appended",
            (chunk, len(chunk), thread_id, chunk),
        )

    def tool_append(thread_id: str) -> None:
        envelope = DocumentTools(thread_id).append_to_document(text=chunk, action_and_reasoning="benchmark")
        assert envelope["success"], envelope

    methods = {
        "raw SQL": (TABLE, raw_append(TABLE)),
        "raw SQL, pglz": (PGLZ_TABLE, raw_append(PGLZ_TABLE)),
        "raw + revision": (TABLE, raw_append_with_revision),
        "repository": (TABLE, lambda thread_id: WorkspaceRepository.append_document(thread_id, chunk)),
        "tool call": (TABLE, tool_append),
    }
    WorkingDocument.objects.filter(thread_id__in=[thread_of(name) for name in methods]).delete()  # and history
    for name, (table, _) in methods.items():
        setup.execute(f"DELETE FROM {table} WHERE thread_id = %s", (thread_of(name),))
        setup.execute(
            f"INSERT INTO {table} (thread_id, title, content, length, version, base_version, base_length, "
            "created_at, updated_at) VALUES (%s, '', '', 0, 1, 1, 0, now(), now())",
            (thread_of(name),),
        )

    # Each round rewrites up to 1 MB per method: without vacuuming, earlier
    # runs' dead versions (gigabytes) slow every later one.
    setup.execute(f"VACUUM ANALYZE {TABLE}")
    results: dict[str, dict[str, float]] = {}
    for size_name, size in SIZES.items():
        timings: dict[str, list[float]] = {name: [] for name in methods}
        for _ in range(rounds):
            order = list(methods)
            rng.shuffle(order)  # no method always goes first (warm caches) or last
            for name in order:
                table, append = methods[name]
                thread_id = thread_of(name)
                # As an update_document would leave it: the whole content is
                # history's newest copy, so the append takes no snapshot.
                setup.execute(
                    f"UPDATE {table} SET content = %s, length = %s, base_version = version, base_length = %s, "
                    "content_version = version WHERE thread_id = %s",
                    (base[:size], size, size, thread_id),
                )
                started = time.perf_counter()
                append(thread_id)
                timings[name].append(time.perf_counter() - started)
        results[size_name] = {name: statistics.median(values) * 1000 for name, values in timings.items()}

    WorkingDocument.objects.filter(thread_id__in=[thread_of(name) for name in methods]).delete()  # and history
    setup.execute(f"DROP TABLE {PGLZ_TABLE}")
    setup.execute(f"VACUUM {TABLE}")

    print(f"Median ms per 1 KB append, {rounds} rounds, PostgreSQL {connection.pg_version // 10000}")
    header = f"{'document':>9} | " + " | ".join(f"{name:>13}" for name in methods)
    header += " | repo/raw | tool/raw | tool-raw ms | pglz/raw"
    print(header)
    print("-" * len(header))
    for size_name, medians in results.items():
        row = f"{size_name:>9} | " + " | ".join(f"{medians[name]:>13.3f}" for name in methods)
        repository = medians["repository"] / medians["raw SQL"]
        tool = medians["tool call"] / medians["raw SQL"]
        difference = medians["tool call"] - medians["raw SQL"]
        pglz = medians["raw SQL, pglz"] / medians["raw SQL"]
        row += f" | {repository:>8.2f} | {tool:>8.2f} | {difference:>11.3f} | {pglz:>8.2f}"
        print(row)


if __name__ == "__main__":
    with override_settings(WORKSPACE_MAX_DOCUMENT_CHARS=2 * max(SIZES.values())):  # room to append onto 1 MB
        main()
