"""Three-way merge, by lines, of a person's edit with what changed since it started.

``base`` is the content at the version the person's edit started from,
``current`` the content now, ``yours`` the person's. Regions only one side
changed take that side; regions both changed alike are taken once; regions
both changed differently are conflicts, each given as its three sides, and
then nothing is merged. When the agents only appended since, their chunks
follow the person's text whatever the person changed: an append never
conflicts.

Lines end at CR LF, LF, CR, U+0085 or U+2028 (``LINE_ENDINGS``, the one
place that says so; not at U+2029, which Chromium's text box shows as a
space) and are compared by their text, without their ending: a
browser's text box turns every line ending into LF, and a person who edited
one line of a CR LF document would have changed every line. A line the
person left as it was keeps its ending in the document; a line the person
added or changed keeps the ending the person gave it, except that a bare LF
becomes the document's own ending (its most common one of CR LF, LF and CR,
the endings a text box turns into LF: ``ending_of``) when that is not LF.
U+0085 and U+2028 end lines but are never given to a person's line: Markdown
does not break at them, and the person's new paragraphs would run together.
The same holds for an edit started at the current version (``apply_edit``):
only the lines the person changed change.

The line diffs under the merge are ``line_diff``'s patience diff; the walk
over the two diffs (base to current, base to yours) is ``_regions``: the
runs of base lines both kept split the three texts, and each stretch
between two such runs is taken from the side that changed it, once when
both changed it alike, or is a conflict.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from .line_diff import Block, matching_blocks

MAX_CONFLICTS = 20  # conflicts given in an answer; the merge refuses on the first either way

LINE_ENDINGS = ("\r\n", "\n", "\r", "\x85", "\u2028")  # CR LF first: it is one ending, not a CR and a LF
LINE_END = re.compile("|".join(LINE_ENDINGS))
TYPED_ENDINGS = ("\r\n", "\n", "\r")  # what a text box sends as LF; a person's bare LF becomes one of them
_BESIDES_LF = sorted({character for ending in LINE_ENDINGS for character in ending} - {"\n"})
# Where str.splitlines also cuts, besides LINE_ENDINGS: it cuts a text of none of these, LF its only ending, as we do.
_SPLITLINES_ALSO = ("\v", "\f", "\x1c", "\x1d", "\x1e", "\u2029")


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


@dataclass(frozen=True)
class Lines:
    """A text cut after each line ending: each line as written (its ending
    included) and as compared (its ending, if it has one, as LF), and the
    text's most common of ``TYPED_ENDINGS`` (LF when it has none)."""

    written: list[str]
    compared: list[str]
    ending: str


def lines(text: str) -> Lines:
    """``text`` cut into lines after each of its ``LINE_ENDINGS``."""
    if _lf_only(text):  # the commonest, and a search is far quicker than a count
        if not any(character in text for character in _SPLITLINES_ALSO):  # then splitlines cuts at LF alone
            written = text.splitlines(keepends=True)
            return Lines(written, written, "\n")
        return _cut_at(text, "\n")
    counts = _endings(text)
    if len(counts) == 1:  # one kind of ending: a split at it
        return _cut_at(text, next(iter(counts)))
    texts, endings = LINE_END.split(text), LINE_END.findall(text)  # texts: one more, what follows the last ending
    last = [texts[-1]] if texts[-1] else []
    written = [line + end for line, end in zip(texts, endings, strict=False)] + last
    compared = [line + "\n" for line in texts[:-1]] + last
    return Lines(written, compared, _most_common(counts))


def line_count(text: str) -> int:
    """How many lines ``lines`` cuts ``text`` into, counted without cutting it."""
    return sum(_endings(text).values()) + (1 if text and not text.endswith(LINE_ENDINGS) else 0)


def _cut_at(text: str, ending: str) -> Lines:
    """``text``, whose every line ending is ``ending``, cut into lines."""
    texts = text.split(ending)
    last = [texts[-1]] if texts[-1] else []
    compared = [line + "\n" for line in texts[:-1]] + last
    written = compared if ending == "\n" else [line + ending for line in texts[:-1]] + last
    return Lines(written, compared, ending if ending in TYPED_ENDINGS else "\n")


def ending_of(text: str) -> str:
    """The one of ``TYPED_ENDINGS`` that ``text`` has most often: on a tie, the
    first of them; LF when it has none."""
    return "\n" if _lf_only(text) else _most_common(_endings(text))


def apply_edit(current: str, yours: str) -> str:
    """``yours``, a person's edit started at ``current``, as the document takes
    it: only the lines the person changed change (their endings as above)."""
    applied = merge_text(current, current, yours).text
    assert applied is not None, "only the person changed it: nothing to conflict"
    return applied


def merge_text(base: str, current: str, yours: str) -> Merged:
    """``yours`` and ``current``, both changed from ``base``, merged by lines."""
    if yours == base or current == yours:
        return Merged(current)
    if current.startswith(base):  # unchanged, or only appended to since: the chunks go after the person's text
        appended = current[len(base) :]
        if _lf_only(current) and _lf_only(yours):  # every ending LF (base is in current): nothing to keep
            return Merged(yours + appended)
        return Merged(_edited(base, yours, ending_of(current)) + appended)
    now = lines(current)
    return _walk(lines(base), now, lines(yours), now.ending)


def merge_title(base: str, current: str, yours: str) -> Merged:
    """A title is one line: kept from whichever side changed it; a conflict when both did, differently."""
    if yours == base or current == yours:
        return Merged(current)
    if current == base:
        return Merged(yours)
    return Merged(None, [Conflict(base=base, current=current, yours=yours)])


def _edited(base: str, yours: str, ending: str) -> str:
    """``yours``, the person's edit of ``base``, with the endings of the lines
    it left as they were, and ``ending`` for the bare LF of those it wrote."""
    before = lines(base)
    edited = _walk(before, before, lines(yours), ending)
    assert edited.text is not None, "only one side changed: nothing to conflict"
    return edited.text


def _walk(base: Lines, current: Lines, yours: Lines, ending: str) -> Merged:
    """The merge of the three texts' lines, region by region (``_regions``)."""
    merged: list[str] = []
    conflicts: list[Conflict] = []
    for taken, base_start, base_end, current_start, current_end, your_start, your_end in _regions(
        base.compared, current.compared, yours.compared
    ):
        if taken == "current":
            merged.extend(current.written[current_start:current_end])
        elif taken == "yours":
            merged.extend(_written_by_the_person(yours.written[your_start:your_end], ending))
        elif len(conflicts) < MAX_CONFLICTS:
            conflicts.append(
                Conflict(
                    base="".join(base.written[base_start:base_end]),
                    current="".join(current.written[current_start:current_end]),
                    yours="".join(yours.written[your_start:your_end]),
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


def _written_by_the_person(written: list[str], ending: str) -> list[str]:
    """The person's lines, each with its own ending but a bare LF made ``ending``."""
    if ending == "\n":
        return written
    return [line[:-1] + ending if line.endswith("\n") and not line.endswith("\r\n") else line for line in written]


def _endings(text: str) -> dict[str, int]:
    """How many of each of ``LINE_ENDINGS`` ``text`` has, those it has only: a
    CR LF counts as itself alone, neither as a CR nor as a LF."""
    counts = {ending: text.count(ending) for ending in LINE_ENDINGS if ending in text}  # (a search is quicker)
    pairs = counts.get("\r\n", 0)
    if pairs:
        counts["\n"] -= pairs
        counts["\r"] -= pairs
    return {ending: n for ending, n in counts.items() if n}


def _lf_only(text: str) -> bool:
    """Whether every line ending of ``text`` (if any) is LF."""
    return not any(character in text for character in _BESIDES_LF)


def _most_common(counts: dict[str, int]) -> str:
    """The most common of ``TYPED_ENDINGS`` in ``counts`` (on a tie, the first); LF when none."""
    typed = {ending: counts[ending] for ending in TYPED_ENDINGS if counts.get(ending)}
    return max(typed, key=typed.__getitem__) if typed else "\n"
