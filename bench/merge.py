"""What the three-way merge of a person's edit costs, by document size.

For each size: a document of numbered lines; the person edits one line in
ten from it, the agents meanwhile edit other lines (and, on the second row,
only append); and a document built against the diff (every line moved).
Prints the median of 5 merges with patience diff (what workspace.merging
uses) beside the same merge on difflib's SequenceMatcher (1 round), and the
time to split the three texts into lines (the least any line merge does).

Usage: python bench/merge.py
"""

import difflib
import statistics
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository, for python bench/merge.py

import merge3  # noqa: E402

from workspace.merging import lines, merge_text  # noqa: E402


def document(size: int) -> list[str]:
    return [f"line {n:07d} of the working document, some words\n" for n in range(size // 48)]


def timed(function, *args, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        function(*args)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def split_all(*texts: str) -> None:
    for text in texts:
        lines(text)


def with_difflib(base: str, current: str, yours: str) -> None:
    def matcher(isjunk, a, b):
        return difflib.SequenceMatcher(isjunk, a, b, autojunk=False)

    with mock.patch.object(merge3, "Merge3", lambda *sides, **_: real_merge3(*sides, sequence_matcher=matcher)):
        merge_text(base, current, yours)


real_merge3 = merge3.Merge3


def main() -> None:
    print(
        f"{'document':>9} | {'agents since':>22} | {'patience ms':>11} | {'difflib ms':>10} | {'split ms':>8} | clean"
    )
    for size in (10_000, 100_000, 1_000_000):
        base_lines = document(size)
        base = "".join(base_lines)
        yours = "".join(line.upper() if n % 10 == 0 else line for n, line in enumerate(base_lines))
        edited = "".join(line.replace("words", "WORDS") if n % 10 == 5 else line for n, line in enumerate(base_lines))
        moved = "".join(reversed(base_lines))
        for label, current, person in (
            ("edited other lines", edited, yours),
            ("appended", base + "an agent's chunk\n", yours),
            ("built against the diff", edited, moved),
        ):
            print(
                f"{len(base):>9,} | {label:>22} | {timed(merge_text, base, current, person):>11.1f} | "
                f"{timed(with_difflib, base, current, person, rounds=1):>10.1f} | "
                f"{timed(split_all, base, current, person):>8.2f} | {merge_text(base, current, person).clean}"
            )


if __name__ == "__main__":
    main()
