"""The merge a person's edit had before ``workspace.documents.merging`` walked its own
regions: Breezy's ``merge3`` over ``patiencediff``, both GPL-2.0-or-later and
so only a yardstick for the tests and bench/merge.py, never shipped (they are
no requirement of the app). Lines end at "\\n" alone here, as they did then;
compare it on such texts."""

import merge3
from patiencediff import PatienceSequenceMatcher

from workspace.documents.merging import MAX_CONFLICTS

Sides = tuple[str, str, str]  # base, current, yours


class OracleGaveUp(Exception):
    """patiencediff 1.0.2 stops, with a Rust panic (a BaseException), on a diff
    that goes more than ten levels deep, as lines repeated often make it."""


def patience_blocks(a: list[str], b: list[str]) -> list[tuple[int, int, int]]:
    """The matching blocks of ``a`` and ``b``, as ``(i, j, n)``, as git's patience
    diff finds them: the lines both begin and end with alike, then patiencediff's
    blocks of what lies between."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    try:
        middle = PatienceSequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail]).get_matching_blocks()
    except BaseException as error:  # pyo3's PanicException is one
        if "recursion depth" in str(error):
            raise OracleGaveUp from None
        raise
    blocks = [(0, 0, head)] + [(i + head, j + head, n) for i, j, n in middle[:-1]]
    blocks.append((len(a) - tail, len(b) - tail, tail))
    joined: list[tuple[int, int, int]] = []
    for i, j, n in blocks:
        if joined and joined[-1][0] + joined[-1][2] == i and joined[-1][1] + joined[-1][2] == j:
            joined[-1] = (joined[-1][0], joined[-1][1], joined[-1][2] + n)
        elif n:
            joined.append((i, j, n))
    return [*joined, (len(a), len(b), 0)]


class PatienceDiff:
    """patiencediff as merge3's sequence matcher, its give-up as ``OracleGaveUp``."""

    def __init__(self, junk: None, a: list[str], b: list[str]) -> None:
        self.a, self.b = a, b

    def get_matching_blocks(self) -> list[tuple[int, int, int]]:
        return patience_blocks(self.a, self.b)


def merge3_text(base: str, current: str, yours: str) -> tuple[str | None, list[Sides]]:
    """The merged text (None on a conflict) and the conflicts, at most MAX_CONFLICTS."""
    if yours == base or current == yours:
        return current, []
    if current.startswith(base):  # unchanged, or only appended to: the chunks go after the person's text
        return yours + current[len(base) :], []
    base_lines, current_lines, your_lines = cut(base), cut(current), cut(yours)
    merged: list[str] = []
    conflicts: list[Sides] = []
    for kind, *bounds in merge3.Merge3(
        base_lines, current_lines, your_lines, sequence_matcher=PatienceDiff
    ).merge_regions():
        if kind == "unchanged":
            merged.extend(base_lines[bounds[0] : bounds[1]])
        elif kind in ("same", "a"):
            merged.extend(current_lines[bounds[0] : bounds[1]])
        elif kind == "b":
            merged.extend(your_lines[bounds[0] : bounds[1]])
        elif len(conflicts) < MAX_CONFLICTS:
            base_start, base_end, current_start, current_end, your_start, your_end = bounds
            conflicts.append(
                (
                    "".join(base_lines[base_start:base_end]),
                    "".join(current_lines[current_start:current_end]),
                    "".join(your_lines[your_start:your_end]),
                )
            )
        else:
            break
    return (None, conflicts) if conflicts else ("".join(merged), [])


def cut(text: str) -> list[str]:
    """``text`` cut after each "\\n"."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
