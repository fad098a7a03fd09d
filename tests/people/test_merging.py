"""The three-way merge of a person's edit with the agents' changes since it started."""

import time

from hypothesis import given, reject, settings
from hypothesis import strategies as st

from tests.merge3_oracle import OracleGaveUp, merge3_text, patience_blocks
from workspace.documents.line_diff import matching_blocks
from workspace.documents.merging import MAX_CONFLICTS, apply_edit, lines, merge_text, merge_title


def test_an_append_while_a_person_edits_another_line_merges():
    base = "# Trip\n- flights\n- hotel\n"
    current = base + "- museums\n"  # an agent appended
    yours = "# Lisbon trip\n- flights\n- hotel\n"  # the person renamed the heading

    merged = merge_text(base, current, yours)

    assert merged.text == "# Lisbon trip\n- flights\n- hotel\n- museums\n"
    assert merged.conflicts == []


def test_an_append_to_a_last_line_without_newline_merges_with_an_edit_above():
    merged = merge_text("a\nb", "a\nb and more", "A\nb")

    assert merged.text == "A\nb and more"


def test_both_sides_changing_one_line_differently_is_a_conflict_with_its_three_sides():
    base = "# Trip\n- flights\n- hotel\n"
    current = "# Trip\n- flights on Monday\n- hotel\n"
    yours = "# Trip\n- flights on Tuesday\n- hotel\n"

    merged = merge_text(base, current, yours)

    assert merged.text is None
    assert [(c.base, c.current, c.yours) for c in merged.conflicts] == [
        ("- flights\n", "- flights on Monday\n", "- flights on Tuesday\n")
    ]


def test_both_sides_making_the_same_change_merge_once():
    merged = merge_text("a\nb\n", "a\nB\nc\n", "a\nB\nc\n")

    assert merged.text == "a\nB\nc\n"


def test_conflicts_are_given_twenty_at_most():
    base = "".join(f"{n}\n" for n in range(100))
    current = "".join(f"{n} current\n" if n % 2 == 0 else f"{n}\n" for n in range(100))
    yours = "".join(f"{n} yours\n" if n % 2 == 0 else f"{n}\n" for n in range(100))

    merged = merge_text(base, current, yours)

    assert merged.text is None
    assert len(merged.conflicts) == MAX_CONFLICTS
    assert merged.conflicts[0].current == "0 current\n"


def test_a_title_changed_on_one_side_keeps_that_change_and_on_both_conflicts():
    assert merge_title("Trip", "Trip", "Lisbon").text == "Lisbon"
    assert merge_title("Trip", "Plan", "Trip").text == "Plan"
    assert merge_title("Trip", "Plan", "Lisbon").conflicts[0].yours == "Lisbon"


def test_a_document_built_to_slow_the_diff_merges_within_the_deadline():
    base = "".join(f"line {n}\n" for n in range(100_000))  # about 1 MB
    current = base.replace("line 50000\n", "line 50000, edited\n")  # not an append: both sides are diffed
    yours = "".join(reversed(lines_of(base)))  # every line moved: no long common run

    started = time.monotonic()
    merged = merge_text(base, current, yours)

    assert time.monotonic() - started < 5  # patience diff: tens of ms here; difflib took 7 s (bench/merge.py)
    assert merged.text is None and merged.conflicts


def lines_of(text: str) -> list[str]:
    return text.splitlines(keepends=True)


# The property: a base of distinct lines; since it, the agents (current) and
# the person (yours) each replaced, inserted or deleted lines.

Repeated = st.sampled_from(["\n", "---\n", "- [ ] todo\n", "text\n", "more text\n"])


@st.composite
def lines_of_a_document(draw, side: str = "base", most: int = 30, repeats: bool = True) -> list[str]:
    """Lines found once (unique to ``side``) and, with ``repeats``, lines drawn
    from a few that repeat, as a document's blank lines, rules and list items do."""
    unique = [f"{side}-{k}\n" for k in range(draw(st.integers(0, most)))]
    return [draw(st.one_of(Repeated, st.just(line))) for line in unique] if repeats else unique


@st.composite
def edited(draw, base: list[str], side: str, repeats: bool = False) -> list[str]:
    """``base`` with some runs of lines replaced, deleted or inserted before, then
    maybe an agent's append; the new lines as ``lines_of_a_document`` draws them,
    and with ``repeats`` maybe a last line without its newline."""
    out = list(base)
    for n in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(out)))
        removed = draw(st.integers(0, min(3, len(out) - at)))
        out[at : at + removed] = draw(lines_of_a_document(f"{side}-{n}", most=3, repeats=repeats))
    if draw(st.booleans()):  # an agent's append
        out.append(f"{side}-appended\n")
    if repeats and out and draw(st.booleans()):
        out[-1] = out[-1].rstrip("\n") or "end"
    return out


@st.composite
def three_versions(draw):
    base = draw(lines_of_a_document(repeats=False))
    return base, draw(edited(base, "current")), draw(edited(base, "yours"))


@settings(max_examples=400, deadline=None)
@given(three_versions())
def test_a_clean_merge_keeps_every_change_of_both_sides_and_a_conflict_names_its_regions(versions):
    base, current, yours = versions

    merged = merge_text("".join(base), "".join(current), "".join(yours))

    if merged.clean:
        result = lines_of(merged.text)
        assert len(result) == len(set(result)), "a line taken twice"
        removed = (set(base) - set(current)) | (set(base) - set(yours))
        assert set(result) == (set(base) - removed) | set(current) - set(base) | set(yours) - set(base)
        for side in (current, yours):  # each side's lines keep their order
            kept = [line for line in result if line in side]
            assert kept == [line for line in side if line in kept]
    else:
        assert merged.conflicts
        for conflict in merged.conflicts:
            assert conflict.current != conflict.yours
            assert conflict.base != conflict.current and conflict.base != conflict.yours
            for region, side in ((conflict.base, base), (conflict.current, current), (conflict.yours, yours)):
                assert region in "".join(side)
                assert region == "" or region.endswith("\n")


# The oracle: the merge as it was, Breezy's merge3 over patiencediff (GPL:
# test-only, tests/merge3_oracle.py), on texts whose lines repeat.


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_the_line_diff_matches_the_lines_patiencediff_matches(data):
    a = data.draw(lines_of_a_document())
    b = data.draw(edited(a, "b", repeats=True))
    try:
        expected = patience_blocks(a, b)
    except OracleGaveUp:
        reject()

    assert matching_blocks(a, b) == expected


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_the_merge_gives_what_merge3_over_patiencediff_gave(data):
    base = data.draw(lines_of_a_document())
    current = data.draw(st.one_of(edited(base, "current", repeats=True), st.just([*base, "an agent's append\n"])))
    yours = data.draw(edited(base, "yours", repeats=True))
    texts = "".join(base), "".join(current), "".join(yours)
    try:
        expected_text, expected_conflicts = merge3_text(*texts)
    except OracleGaveUp:
        reject()

    merged = merge_text(*texts)

    assert merged.text == expected_text
    assert [(c.base, c.current, c.yours) for c in merged.conflicts] == expected_conflicts


# A CR LF document edited in a browser's text box, which sends every ending
# as LF: merged as the same edit of an LF document is, and still CR LF.


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


@settings(max_examples=300, deadline=None)
@given(three_versions())
def test_a_crlf_document_edited_as_lf_text_merges_as_an_lf_one_and_stays_crlf(versions):
    base, current, yours = ("".join(side) for side in versions)
    if "\n" not in current:
        reject()  # a document of one line has no ending of its own to keep

    as_lf = merge_text(base, current, yours)
    as_crlf = merge_text(crlf(base), crlf(current), yours)

    assert as_crlf.text == (None if as_lf.text is None else crlf(as_lf.text))
    assert [(c.base, c.current, c.yours) for c in as_crlf.conflicts] == [
        (crlf(c.base), crlf(c.current), c.yours) for c in as_lf.conflicts
    ]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_an_lf_edit_applied_to_a_crlf_document_changes_only_the_lines_edited(data):
    document = data.draw(lines_of_a_document())
    edit = data.draw(edited(document, "yours", repeats=True))
    if "\n" not in "".join(document):
        reject()

    assert apply_edit(crlf("".join(document)), "".join(edit)) == crlf("".join(edit))


def test_lines_end_at_crlf_lf_cr_u0085_and_u2028_and_nowhere_else():
    cut = lines("a\r\nb\nc\rd\x85e\u2028f\u2029g\x0bh\x0ci")

    assert cut.written == ["a\r\n", "b\n", "c\r", "d\x85", "e\u2028", "f\u2029g\x0bh\x0ci"]
    assert cut.compared == ["a\n", "b\n", "c\n", "d\n", "e\n", "f\u2029g\x0bh\x0ci"]


@given(st.lists(st.sampled_from(["a", "\n", "\u2029", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"])))
def test_a_text_whose_only_ending_is_lf_is_cut_after_each_lf_and_nowhere_else(characters):
    text = "".join(characters)
    *ended, last = text.split("\n")

    cut = lines(text)

    assert cut.written == cut.compared == [part + "\n" for part in ended] + ([last] if last else [])


def test_the_documents_ending_is_its_most_common_one():
    assert lines("a\r\nb\r\nc\n").ending == "\r\n"
    assert lines("a\rb\nc\r").ending == "\r"
    assert lines("no ending").ending == "\n"
