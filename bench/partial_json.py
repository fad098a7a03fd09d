"""What reading a live draft's field costs per delta as the arguments grow.

200 KB of content, streamed as a tool call's arguments in 20-character
deltas: the median time per delta of the first tenth of the deltas against the last
tenth, for ``workspace.drafts.partial_json.FieldReader`` (which keeps its state
between deltas) beside re-parsing the whole buffer per delta with
pydantic_core's partial parse (the quadratic way). A ratio near 1 is linear.
Rows: plain text written as is, and accented text written with \\u escapes
(``ensure_ascii``). The last line: one 1 MB delta.

Usage: python bench/partial_json.py
"""

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository, for python bench/partial_json.py

from pydantic_core import from_json  # noqa: E402

from workspace.drafts.partial_json import FieldReader  # noqa: E402

CONTENT_SIZE = 200_000
DELTA_SIZE = 20


def deltas_of(arguments: str) -> list[str]:
    return [arguments[start : start + DELTA_SIZE] for start in range(0, len(arguments), DELTA_SIZE)]


def per_delta_times(deltas: list[str], read) -> list[float]:
    times = []
    for delta in deltas:
        started = time.perf_counter()
        read(delta)
        times.append(time.perf_counter() - started)
    return times


def with_reader(deltas: list[str]) -> list[float]:
    reader = FieldReader("content")
    return per_delta_times(deltas, reader.feed)


def with_reparse(deltas: list[str]) -> list[float]:
    buffer: list[str] = []

    def reparse(delta: str) -> None:
        buffer.append(delta)
        from_json("".join(buffer), allow_partial="trailing-strings").get("content")

    return per_delta_times(deltas, reparse)


def tenths(times: list[float]) -> tuple[float, float]:
    tenth = len(times) // 10
    return statistics.median(times[:tenth]) * 1e6, statistics.median(times[-tenth:]) * 1e6


def main() -> None:
    rows = {
        "plain": json.dumps(
            {"title": "Plan", "content": ("# Notes\nsome words, more words. " * 10_000)[:CONTENT_SIZE]}
        ),
        "escaped": json.dumps({"title": "Plan", "content": ("Été: café, crème brûlée 😀\n" * 10_000)[:CONTENT_SIZE]}),
    }
    print(
        f"{'content':>8} | {'deltas':>6} | {'reader µs, first/last tenth':>27} | {'ratio':>5} | "
        f"{'re-parse µs, first/last tenth':>29} | {'ratio':>6}"
    )
    for name, arguments in rows.items():
        deltas = deltas_of(arguments)
        ours_first, ours_last = tenths(with_reader(deltas))
        theirs_first, theirs_last = tenths(with_reparse(deltas))
        print(
            f"{name:>8} | {len(deltas):>6} | {ours_first:>12.1f} / {ours_last:>12.1f} | "
            f"{ours_last / ours_first:>5.2f} | "
            f"{theirs_first:>13.1f} / {theirs_last:>13.1f} | {theirs_last / theirs_first:>6.1f}"
        )
    for name, text in (("plain", "some words, more words.\n"), ("escaped", "Été: café, crème brûlée 😀\n")):
        arguments = json.dumps({"content": (text * 50_000)[:1_000_000]})
        started = time.perf_counter()
        FieldReader("content").feed(arguments)
        print(f"one delta of {len(arguments) / 1e6:.1f} MB ({name}): {(time.perf_counter() - started) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
