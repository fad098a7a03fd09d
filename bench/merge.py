"""What the three-way merge of a person's edit costs, by document size, beside
the merge it replaced (Breezy's merge3 over patiencediff, GPL and so imported
here and by the tests only: tests/merge3_oracle.py).

For each size, a document of numbered lines, and the person edits one line
in ten of it. Meanwhile the agents:
- edited other lines (one in ten);
- edited other lines, and the person's text is built against the diff: every
  line moved (reversed), where difflib's matcher took 7 s at 1 MB;
- only appended;
- edited other lines of a CR LF document, and the person's text came from a
  browser's text box (every ending LF). merge3 saw every line changed there,
  so its column times the same edit of the LF document, as it merged it.

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
from workspace.documents.merging import lines, merge_text  # noqa: E402

ROUNDS = 7


def document(size: int) -> list[str]:
    return [f"line {n:07d} of the working document, some words\n" for n in range(size // 48)]


def cases(size: int) -> list[tuple[str, tuple[str, str, str], tuple[str, str, str]]]:
    """(label, what the new merge merges, what merge3 merges: base, current and
    yours) for a document of about ``size`` characters."""
    base_lines = document(size)
    base = "".join(base_lines)
    yours = "".join(line.upper() if n % 10 == 0 else line for n, line in enumerate(base_lines))
    edited = "".join(line.replace("words", "WORDS") if n % 10 == 5 else line for n, line in enumerate(base_lines))
    moved = "".join(reversed(base_lines))
    appended = base + "an agent's chunk\n"
    crlf = (base.replace("\n", "\r\n"), edited.replace("\n", "\r\n"), yours)
    return [
        ("other lines edited", (base, edited, yours), (base, edited, yours)),
        ("built against the diff", (base, edited, moved), (base, edited, moved)),
        ("appended", (base, appended, yours), (base, appended, yours)),
        ("CR LF, from a text box", crlf, (base, edited, yours)),
    ]


def timed_side_by_side(*calls) -> list[float]:
    """The median milliseconds of each ``(function, args)``, rounds interleaved."""
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(ROUNDS):
        for (function, args), kept in zip(calls, times, strict=True):
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
        for label, sides, merge3_sides in cases(size):
            calls = (merge_text, sides), (merge3_text, merge3_sides), (split_all, sides)
            ours, theirs, split = timed_side_by_side(*calls)
            clean = merge_text(*sides).clean, merge3_text(*merge3_sides)[0] is not None
            print(
                f"{len(sides[0]):>9,} | {label:>22} | {ours:>7.3f} | {theirs:>9.3f} | {ours / theirs:>10.2f} | "
                f"{split:>8.2f} | {clean[0]}, {clean[1]}"
            )


if __name__ == "__main__":
    main()
