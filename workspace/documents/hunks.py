"""A proposal's hunks: the regions of lines where the content it would leave
differs from the content it was made on, and that content with some of them
applied.

Lines are cut after each line ending as the merge cuts them (``merging.lines``)
and compared as written, endings included, so that applying every hunk gives
the proposal's content exactly. The regions are the gaps between the runs of
lines the patience diff (``line_diff``) finds shared, in order, numbered from
0. An append is one hunk at the end, whatever its first line continues.
The lines both texts begin and end with alike are what the diff matches
first (``line_diff``): they are found on the texts themselves, a block of
characters at a time, and only the lines between them are cut and diffed,
so that a change of a few lines of a long document costs little more than
reading it.
"""

from dataclasses import dataclass

from .line_diff import matching_blocks
from .merging import line_count, lines


@dataclass(frozen=True)
class Hunk:
    """Lines ``base_start`` to ``base_end`` (0-based, end exclusive) of the base,
    ``old``, replaced by ``new``, lines ``new_start`` to ``new_end`` of the proposal."""

    index: int
    base_start: int
    base_end: int
    old: str
    new: str
    new_start: int
    new_end: int

    def shown(self) -> dict:
        """As the API shows it."""
        return {
            "index": self.index,
            "base_start": self.base_start,
            "base_end": self.base_end,
            "old": self.old,
            "new": self.new,
        }


def hunks(op: str, base: str, content: str, text: str | None = None) -> list[Hunk]:
    """The hunks of a change ``op`` that makes ``content`` of ``base`` (an append: of ``text``)."""
    if op == "append":
        end = line_count(base)
        return [Hunk(0, end, end, "", text or "", end, end)] if text else []
    head = _shared_head(base, content)
    tail = _shared_tail(base[head:], content[head:])
    skipped = line_count(base[:head])
    before, after = lines(base[head : len(base) - tail]).written, lines(content[head : len(content) - tail]).written
    found: list[Hunk] = []
    base_at = new_at = 0
    for base_start, new_start, n in matching_blocks(before, after):
        if base_start > base_at or new_start > new_at:
            old, new = "".join(before[base_at:base_start]), "".join(after[new_at:new_start])
            found.append(
                Hunk(
                    len(found), skipped + base_at, skipped + base_start, old, new, skipped + new_at, skipped + new_start
                )
            )
        base_at, new_at = base_start + n, new_start + n
    return found


BLOCK = 4096  # characters compared at a time in the search for what two texts share


def _shared_head(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` begin with alike, up to the end of
    the last line among them (just after an LF, which ends a line in both)."""
    most, at = min(len(a), len(b)), 0
    while at + BLOCK <= most and a[at : at + BLOCK] == b[at : at + BLOCK]:
        at += BLOCK
    stop = min(at + BLOCK, most)
    while at < stop and a[at] == b[at]:  # within the block that differs
        at += 1
    return a.rfind("\n", 0, at) + 1


def _shared_tail(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` end with alike, from the start of
    the first line among them (just after an LF they share)."""
    most, at = min(len(a), len(b)), 0
    while at + BLOCK <= most and a[len(a) - at - BLOCK : len(a) - at] == b[len(b) - at - BLOCK : len(b) - at]:
        at += BLOCK
    stop = min(at + BLOCK, most)
    while at < stop and a[len(a) - at - 1] == b[len(b) - at - 1]:
        at += 1
    first_end = a.find("\n", len(a) - at)
    return 0 if first_end == -1 else len(a) - first_end - 1


def with_hunks(base: str, content: str, found: list[Hunk], accepted: set[int]) -> str:
    """``base`` with the hunks of ``found`` (``hunks(op, base, content)``) whose
    index is in ``accepted`` applied, the others left as they were."""
    before, after = lines(base).written, lines(content).written
    kept: list[str] = []
    base_at = 0
    for hunk in found:
        kept.extend(before[base_at : hunk.base_start])
        if hunk.index in accepted:
            kept.extend(after[hunk.new_start : hunk.new_end])
        else:
            kept.extend(before[hunk.base_start : hunk.base_end])
        base_at = hunk.base_end
    kept.extend(before[base_at:])
    return "".join(kept)
