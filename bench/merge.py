"""What the three-way merge of a person's edit costs, by document size, beside
the merge it replaced (Breezy's merge3 over patiencediff, GPL and so imported
here and by the tests only: tests/merge3_oracle.py).

For each size, a document of numbered lines, and the person edits one line
in ten of it. Meanwhile the agents:
- edited other lines (one in ten);
- edited other lines, and the person's text is built against the diff: every
  line moved (reversed), where difflib's matcher took 7 s at 1 MB;
- only appended.

Prints the median of 7 merges of each (interleaved, so a drift of the
machine's speed hits both alike), their ratio, whether each merged cleanly,
and the time to cut the three texts into lines (the least a line merge does).

Usage: python bench/merge.py
"""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.merge3_oracle import merge3_text  # noqa: E402
from workspace.merging import lines, merge_text  # noqa: E402

ROUNDS = 7


def document(size: int) -> list[str]:
    return [f"line {n:07d} of the working document, some words\n" for n in range(size // 48)]


def cases(size: int) -> list[tuple[str, str, str, str]]:
    """(label, base, current, yours) for a document of about ``size`` characters."""
    base_lines = document(size)
    base = "".join(base_lines)
    yours = "".join(line.upper() if n % 10 == 0 else line for n, line in enumerate(base_lines))
    edited = "".join(line.replace("words", "WORDS") if n % 10 == 5 else line for n, line in enumerate(base_lines))
    return [
        ("other lines edited", base, edited, yours),
        ("built against the diff", base, edited, "".join(reversed(base_lines))),
        ("appended", base, base + "an agent's chunk\n", yours),
    ]


def timed_side_by_side(*functions, args) -> list[float]:
    """The median milliseconds of each function on ``args``, rounds interleaved."""
    times: list[list[float]] = [[] for _ in functions]
    for _ in range(ROUNDS):
        for function, kept in zip(functions, times, strict=True):
            started = time.perf_counter()
            function(*args)
            kept.append(time.perf_counter() - started)
    return [statistics.median(kept) * 1000 for kept in times]


def split_all(*texts: str) -> None:
    for text in texts:
        lines(text)


def main() -> None:
    print(
        f"{'document':>9} | {'agents since':>22} | {'new ms':>7} | {'merge3 ms':>9} | {'new/merge3':>10} | "
        f"{'split ms':>8} | clean: new, merge3"
    )
    for size in (10_000, 100_000, 1_000_000):
        for label, base, current, yours in cases(size):
            ours, theirs, split = timed_side_by_side(merge_text, merge3_text, split_all, args=(base, current, yours))
            clean = merge_text(base, current, yours).clean, merge3_text(base, current, yours)[0] is not None
            print(
                f"{len(base):>9,} | {label:>22} | {ours:>7.1f} | {theirs:>9.1f} | {ours / theirs:>10.2f} | "
                f"{split:>8.2f} | {clean[0]}, {clean[1]}"
            )


if __name__ == "__main__":
    main()
