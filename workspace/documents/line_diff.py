"""Patience diff of two lists of lines: the runs of lines they share.

The lines both lists begin with alike, and those they end with alike, are
matched first, as git's patience diff does: found by comparisons alone, run
in C, they spare the counting below for the whole of a long document of
which a change touched a few lines. Within the range between them, the lines found exactly once on each side
are the anchors, as many as keep their order on both sides (the longest
increasing run, by patience sorting); the gaps between anchors are diffed
the same way, ten levels deep at most. A range with no anchor matches the
lines it begins with alike, or else those it ends with alike, and goes on
with the rest. Lines repeated on a side are never anchors, so
moved, repeated or reordered lines cost no more than any others: the work is
about linear in the lines on each level (``n log n`` for the ordering), never
the product of both sides' lengths, as in difflib's matcher or Myers' diff on
texts built against them (bench/merge.py). The hot loops run in the
interpreter's C parts (``dict``, ``map``, ``itertools.compress``, ``sorted``).
"""

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import compress, count, groupby
from operator import ne, sub

MAX_DEPTH = 10  # levels of gaps within gaps; what lies deeper stays unmatched (a change), bounding the work

Block = tuple[int, int, int]  # (i, j, n): a[i : i + n] == b[j : j + n]


def matching_blocks(a: Sequence[str], b: Sequence[str]) -> list[Block]:
    """The runs ``(i, j, n)`` of lines ``a`` and ``b`` share, in increasing order
    on both sides, adjacent runs joined, ending with ``(len(a), len(b), 0)``."""
    if a == b:
        return [(0, 0, len(a)), (len(a), len(b), 0)] if a else [(0, 0, 0)]
    head = _begin_alike(a, b)
    tail = _end_alike(a, b, head)
    blocks: list[Block] = [block for block in ((0, 0, head), (len(a) - tail, len(b) - tail, tail)) if block[2]]
    ranges = [(head, len(a) - tail, head, len(b) - tail, 0)]
    while ranges:
        a_start, a_end, b_start, b_end, depth = ranges.pop()
        if a_start == a_end or b_start == b_end or depth > MAX_DEPTH:
            continue
        if a_end - a_start == 1 == b_end - b_start and a[a_start] != b[b_start]:
            continue  # a line replaced by another, the commonest gap: nothing to match
        in_a, in_b = _anchors(a[a_start:a_end], b[b_start:b_end])
        if in_a:
            for i, j, n in _runs(in_a, in_b, a_start, b_start):
                ranges.append((a_start, i, b_start, j, depth + 1))  # the gap before the run
                blocks.append((i, j, n))
                a_start, b_start = i + n, j + n
            ranges.append((a_start, a_end, b_start, b_end, depth + 1))
        elif a[a_start] == b[b_start]:  # no anchor: the lines the range begins with alike, then the rest
            n = _alike(a, b, a_start, b_start, min(a_end - a_start, b_end - b_start), 1)
            blocks.append((a_start, b_start, n))
            ranges.append((a_start + n, a_end, b_start + n, b_end, depth + 1))
        elif a[a_end - 1] == b[b_end - 1]:  # or those it ends with alike
            n = _alike(a, b, a_end - 1, b_end - 1, min(a_end - a_start, b_end - b_start), -1)
            blocks.append((a_end - n, b_end - n, n))
            ranges.append((a_start, a_end - n, b_start, b_end - n, depth + 1))
    return _joined(sorted(blocks)) + [(len(a), len(b), 0)]


def _runs(in_a: list[int], in_b: list[int], a_start: int, b_start: int) -> Iterator[Block]:
    """The anchors ``in_a[k], in_b[k]`` (places in a range that starts at
    ``a_start``, ``b_start``) as runs of adjacent lines ``(i, j, n)``. Along a
    run, a place minus its index stays the same on both sides; the grouping
    runs in C, so the loop is over runs, not lines."""
    at = 0
    for (a_offset, b_offset), run in groupby(zip(map(sub, in_a, count()), map(sub, in_b, count()), strict=True)):
        n = len(list(run))
        yield a_start + a_offset + at, b_start + b_offset + at, n
        at += n


def _begin_alike(a: Sequence[str], b: Sequence[str]) -> int:
    """How many lines ``a`` and ``b`` begin with alike (compared in C)."""
    return next(compress(count(), map(ne, a, b)), min(len(a), len(b)))


def _end_alike(a: Sequence[str], b: Sequence[str], head: int) -> int:
    """How many lines ``a`` and ``b`` end with alike, none of their first ``head``."""
    most = min(len(a), len(b)) - head
    return min(next(compress(count(), map(ne, reversed(a), reversed(b))), most), most)


def _alike(a: Sequence[str], b: Sequence[str], i: int, j: int, most: int, step: int) -> int:
    """How many lines from ``a[i]`` and ``b[j]`` on (``step`` 1) or back (-1) are alike, ``most`` at most."""
    n = 0
    while n < most and a[i] == b[j]:
        n, i, j = n + 1, i + step, j + step
    return n


def _anchors(a: Sequence[str], b: Sequence[str]) -> tuple[list[int], list[int]]:
    """The lines found once in ``a`` and once in ``b``, as ``(i, j)``: the most of
    them that keep their order on both sides."""
    if len(a) == 1 or len(b) == 1:  # a gap of one line on a side, the commonest: no counting
        if len(a) == 1:
            return ([0], [b.index(a[0])]) if b.count(a[0]) == 1 else ([], [])
        return ([a.index(b[0])], [0]) if a.count(b[0]) == 1 else ([], [])
    at = dict(zip(a, range(len(a)), strict=True))  # a line's last place in a
    if len(at) < len(a):
        for line in [line for line, count in Counter(a).items() if count > 1]:
            del at[line]
    if len(set(b)) < len(b):
        for line in [line for line, count in Counter(b).items() if count > 1]:
            at.pop(line, None)
    found = list(map(at.__contains__, b))
    in_b = list(compress(range(len(b)), found))
    in_a = list(map(at.__getitem__, compress(b, found)))
    run = _longest_increasing(in_a)
    if len(run) < len(in_a):
        in_a, in_b = [in_a[n] for n in run], [in_b[n] for n in run]
    return in_a, in_b


def _longest_increasing(values: list[int]) -> Sequence[int]:
    """The places in ``values`` (distinct numbers) of a longest increasing run of them."""
    if values == sorted(values):  # lines in the same order on both sides, the commonest
        return range(len(values))
    pile_tops: list[int] = []  # patience sorting: the smallest last value of a run of each length...
    pile_places: list[int] = []  # ...and where in values it is
    before = [-1] * len(values)  # the place of the value before each one in its run
    for place, value in enumerate(values):
        pile = bisect_left(pile_tops, value)
        if pile:
            before[place] = pile_places[pile - 1]
        if pile == len(pile_tops):
            pile_tops.append(value)
            pile_places.append(place)
        else:
            pile_tops[pile], pile_places[pile] = value, place
    run = []
    place = pile_places[-1] if pile_places else -1
    while place != -1:
        run.append(place)
        place = before[place]
    return run[::-1]


def _joined(blocks: list[Block]) -> list[Block]:
    """``blocks`` in order, each run that continues the one before joined to it."""
    joined: list[Block] = []
    for i, j, n in blocks:
        if joined and joined[-1][0] + joined[-1][2] == i and joined[-1][1] + joined[-1][2] == j:
            joined[-1] = (joined[-1][0], joined[-1][1], joined[-1][2] + n)
        else:
            joined.append((i, j, n))
    return joined
