"""A proposal's hunks, property-based, on texts with every kind of line ending:
they are the regions of the line diff of the two whole texts (though only
the lines between what both begin and end with are cut and diffed), and
applying all of them, or none, gives back the proposal's or the base's text."""

from hypothesis import given, settings
from hypothesis import strategies as st

from workspace.documents import hunks as hunks_module
from workspace.documents.hunks import hunks, with_hunks
from workspace.documents.line_diff import matching_blocks
from workspace.documents.merging import lines

PIECES = ["a", "b", "\n", "\r", "\r\n", "\x85", "\u2028", "one line\n", "another\n"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@st.composite
def changed(draw):
    base = draw(texts)
    pieces = list(base)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(pieces)))
        if pieces and draw(st.booleans()):
            del pieces[min(at, len(pieces) - 1)]
        else:
            pieces.insert(at, draw(st.sampled_from(PIECES)))
    return base, "".join(pieces)


def regions_of_the_whole_texts(base: str, content: str) -> list[tuple[int, int, str, str]]:
    before, after = lines(base).written, lines(content).written
    found, base_at, new_at = [], 0, 0
    for base_start, new_start, n in matching_blocks(before, after):
        if base_start > base_at or new_start > new_at:
            found.append((base_at, base_start, "".join(before[base_at:base_start]), "".join(after[new_at:new_start])))
        base_at, new_at = base_start + n, new_start + n
    return found


@settings(max_examples=1000, deadline=None)
@given(changed(), st.sampled_from([1, 3, 4096]))
def test_hunks_are_the_regions_of_the_whole_texts_line_diff(texts, block):
    base, content = texts
    original, hunks_module.BLOCK = hunks_module.BLOCK, block  # small blocks reach every branch of the search
    try:
        found = hunks("update", base, content)
    finally:
        hunks_module.BLOCK = original

    assert [(h.base_start, h.base_end, h.old, h.new) for h in found] == regions_of_the_whole_texts(base, content)
    assert with_hunks(base, content, found, {h.index for h in found}) == content
    assert with_hunks(base, content, found, set()) == base


def test_an_append_is_one_hunk_after_the_last_line():
    (hunk,) = hunks("append", "one\r\ntwo\u2028three", "", "four\n")

    assert (hunk.base_start, hunk.base_end, hunk.old, hunk.new) == (3, 3, "", "four\n")
