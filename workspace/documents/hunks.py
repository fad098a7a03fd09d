"""A proposal's hunks: the regions of lines where the content it would leave
differs from the content it was made on, and that content with some of them
applied.

Lines are cut after each line ending as the merge cuts them (``merging.lines``)
and compared as written, endings included, so that applying every hunk gives
the proposal's content exactly. The regions are the gaps between the runs of
lines the patience diff (``line_diff``) finds shared, in order, numbered from
0. An append is one hunk at the end, whatever its first line continues.
"""

from dataclasses import dataclass

from .line_diff import matching_blocks
from .merging import lines


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
    before = lines(base).written
    if op == "append":
        return [Hunk(0, len(before), len(before), "", text or "", len(before), len(before))] if text else []
    after = lines(content).written
    found: list[Hunk] = []
    base_at = new_at = 0
    for base_start, new_start, n in matching_blocks(before, after):
        if base_start > base_at or new_start > new_at:
            old, new = "".join(before[base_at:base_start]), "".join(after[new_at:new_start])
            found.append(Hunk(len(found), base_at, base_start, old, new, new_at, new_start))
        base_at, new_at = base_start + n, new_start + n
    return found


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
