"""Three-way merge, by lines, of a person's edit with what changed since it started.

``base`` is the content at the version the person's edit started from,
``current`` the content now, ``yours`` the person's. Regions only one side
changed take that side; regions both changed alike are taken once; regions
both changed differently are conflicts, each given as its three sides, and
then nothing is merged. When the agents only appended since, their chunks
follow the person's text whatever the person changed: an append never
conflicts. The merge and the line diffs under it are Breezy's (the
``merge3`` and ``patiencediff`` libraries): patience diff anchors on lines
found once on each side, so it stays fast on a megabyte of edits and on
documents built against it (moved, repeated lines), where difflib took 6 s
(bench/merge.py).
"""

from dataclasses import dataclass, field

import merge3
from patiencediff import PatienceSequenceMatcher

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


def merge_text(base: str, current: str, yours: str) -> Merged:
    """``yours`` and ``current``, both changed from ``base``, merged by lines."""
    if yours == base or current == yours:
        return Merged(current)
    if current == base:
        return Merged(yours)
    if current.startswith(base):  # only appended to since: the chunks go after the person's text, as appends do
        return Merged(yours + current[len(base) :])
    base_lines, current_lines, your_lines = lines(base), lines(current), lines(yours)
    regions = merge3.Merge3(base_lines, current_lines, your_lines, sequence_matcher=PatienceSequenceMatcher)  # type: ignore[arg-type]
    merged: list[str] = []
    conflicts: list[Conflict] = []
    for kind, *bounds in regions.merge_regions():
        if kind == "unchanged":
            merged.extend(base_lines[bounds[0] : bounds[1]])
        elif kind in ("same", "a"):
            merged.extend(current_lines[bounds[0] : bounds[1]])
        elif kind == "b":
            merged.extend(your_lines[bounds[0] : bounds[1]])
        elif len(conflicts) < MAX_CONFLICTS:
            base_start, base_end, current_start, current_end, your_start, your_end = bounds
            conflicts.append(
                Conflict(
                    base="".join(base_lines[base_start:base_end]),
                    current="".join(current_lines[current_start:current_end]),
                    yours="".join(your_lines[your_start:your_end]),
                )
            )
        else:
            break
    if conflicts:
        return Merged(None, conflicts)
    return Merged("".join(merged))


def merge_title(base: str, current: str, yours: str) -> Merged:
    """A title is one line: kept from whichever side changed it; a conflict when both did, differently."""
    if yours == base or current == yours:
        return Merged(current)
    if current == base:
        return Merged(yours)
    return Merged(None, [Conflict(base=base, current=current, yours=yours)])


def lines(text: str) -> list[str]:
    """``text`` cut after each "\\n" (only there: a document's lines are what the editor shows)."""
    parts = text.split("\n")
    cut = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        cut.append(parts[-1])
    return cut
