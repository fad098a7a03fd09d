"""Three-way merge, by lines, of a person's edit with what changed since it started.

``base`` is the content at the version the person's edit started from,
``current`` the content now, ``yours`` the person's. Regions only one side
changed take that side; regions both changed alike are taken once; regions
both changed differently are conflicts, each given as its three sides, and
then nothing is merged. When the agents only appended since, their chunks
follow the person's text whatever the person changed: an append never
conflicts.

A line ends after each "\n" (only there: a document's lines are what the
editor shows). The line diffs under the merge are ``line_diff``'s patience
diff; the walk over the two diffs (base to current, base to yours) is
``_regions``: the runs of base lines both kept split the three texts, and
each stretch between two such runs is taken from the side that changed it,
once when both changed it alike, or is a conflict.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field

from .line_diff import Block, matching_blocks

MAX_CONFLICTS = 20  # conflicts given in an answer; the merge refuses on the first either way


@dataclass(frozen=True)
class Conflict:
    """One region both sides changed differently: its text in each of them."""

    base: str
    current: str
    yours: str


@dataclass(frozen=True)
class Merged:
    """The merged text, or None and the conflicts that kept it from merging."""

    text: str | None
    conflicts: list[Conflict] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return self.text is not None


def lines(text: str) -> list[str]:
    """``text`` cut after each "\\n"."""
    parts = text.split("\n")
    cut = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        cut.append(parts[-1])
    return cut


def merge_text(base: str, current: str, yours: str) -> Merged:
    """``yours`` and ``current``, both changed from ``base``, merged by lines."""
    if yours == base or current == yours:
        return Merged(current)
    if current.startswith(base):  # unchanged, or only appended to since: the chunks go after the person's text
        return Merged(yours + current[len(base) :])
    return _walk(lines(base), lines(current), lines(yours))


def merge_title(base: str, current: str, yours: str) -> Merged:
    """A title is one line: kept from whichever side changed it; a conflict when both did, differently."""
    if yours == base or current == yours:
        return Merged(current)
    if current == base:
        return Merged(yours)
    return Merged(None, [Conflict(base=base, current=current, yours=yours)])


def _walk(base: list[str], current: list[str], yours: list[str]) -> Merged:
    """The merge of the three texts' lines, region by region (``_regions``)."""
    merged: list[str] = []
    conflicts: list[Conflict] = []
    for taken, base_start, base_end, current_start, current_end, your_start, your_end in _regions(base, current, yours):
        if taken == "current":
            merged.extend(current[current_start:current_end])
        elif taken == "yours":
            merged.extend(yours[your_start:your_end])
        elif len(conflicts) < MAX_CONFLICTS:
            conflicts.append(
                Conflict(
                    base="".join(base[base_start:base_end]),
                    current="".join(current[current_start:current_end]),
                    yours="".join(yours[your_start:your_end]),
                )
            )
        else:
            break
    if conflicts:
        return Merged(None, conflicts)
    return Merged("".join(merged))


Region = tuple[str, int, int, int, int, int, int]  # what to take; its start and end in base, current and yours


def _regions(base: list[str], current: list[str], yours: list[str]) -> Iterator[Region]:
    """The three texts split by the runs of base lines both sides kept: each run,
    and each stretch between two of them that either side changed, with what it
    takes: "current" (kept by both, changed by the agents alone or by both
    alike), "yours" (changed by the person alone) or "conflict"."""
    base_at = current_at = your_at = 0
    for base_start, current_start, your_start, n in _kept_by_both(
        matching_blocks(base, current), matching_blocks(base, yours)
    ):
        if current_start > current_at or your_start > your_at:  # what both deleted alike leaves nothing
            was = base[base_at:base_start]
            now, theirs = current[current_at:current_start], yours[your_at:your_start]
            taken = "current" if now == theirs or theirs == was else "yours" if now == was else "conflict"
            yield taken, base_at, base_start, current_at, current_start, your_at, your_start
        if n:
            yield "current", base_start, base_start + n, current_start, current_start + n, your_start, your_start + n
        base_at, current_at, your_at = base_start + n, current_start + n, your_start + n


def _kept_by_both(to_current: list[Block], to_yours: list[Block]) -> Iterator[tuple[int, int, int, int]]:
    """Where the runs of base lines matched by both diffs overlap: ``(base,
    current, yours, n)``, the places of each overlap on the three sides and its
    length, in order, then the three ends (n 0)."""
    i = j = 0
    while i < len(to_current) and j < len(to_yours):
        base_current, current_start, current_n = to_current[i]
        base_yours, your_start, your_n = to_yours[j]
        start, end = max(base_current, base_yours), min(base_current + current_n, base_yours + your_n)
        if start < end:
            yield start, current_start + start - base_current, your_start + start - base_yours, end - start
        if base_current + current_n < base_yours + your_n:
            i += 1
        else:
            j += 1
    yield to_current[-1][0], to_current[-1][1], to_yours[-1][1], 0
