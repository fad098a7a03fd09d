"""Reading a live draft's field out of a tool call's JSON arguments as they arrive in pieces."""

import json
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import from_json

from workspace.drafts.partial_json import (
    COLLECTED_LIMIT,
    DEPTH_LIMIT,
    KEY_LIMIT,
    ArgumentsNotJSON,
    FieldReader,
    Progress,
)
from workspace.exceptions import InvalidArguments


def read_in_pieces(arguments: str, cuts: list[int], resume_at: frozenset[int] = frozenset()):
    """Feed ``arguments`` cut at ``cuts``; before the deltas numbered in ``resume_at``, carry on
    through a new reader made from the state (as another process would). Yields each delta's
    buffer so far, the text so far and its completed fields."""
    reader = FieldReader("content")
    text = ""
    bounds = [0, *cuts, len(arguments)]
    for number, (start, end) in enumerate(zip(bounds, bounds[1:], strict=False)):
        if number in resume_at:
            reader = FieldReader("content", state=json.loads(json.dumps(reader.state())))
        progress = reader.feed(arguments[start:end])
        text += progress.text
        yield arguments[:end], text, progress.completed


def read_whole(arguments: str, field: str = "content") -> tuple[str, dict[str, str]]:
    reader = FieldReader(field)
    progress = reader.feed(arguments)
    assert reader.finished
    return progress.text, progress.completed


# The property: after every delta, the text so far is what pydantic_core makes of the buffer so far.

tricky = st.sampled_from(['"', "\\", "/", "}", "]", "{", "[", "\n", "\t", "\x00", "\x1f", "é", "\u2028", "😀", "𝄞"])
text = st.text(alphabet=st.one_of(st.characters(exclude_categories=["Cs"]), tricky), max_size=40)
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(text, children, max_size=3),
    max_leaves=8,
)
others = st.dictionaries(text.filter(lambda key: key not in ("content", "title")), values, max_size=3)


@st.composite
def arguments_in_pieces(draw):
    members = dict(draw(others))
    content = draw(st.one_of(text, st.text(max_size=300), values, st.just(None)))
    if content is not None:
        members["content"] = content
    members.update(draw(others))
    if draw(st.booleans()):
        members["title"] = draw(text)
    members.update(draw(others))
    keys = list(members)
    order = draw(st.permutations(keys)) if draw(st.booleans()) else keys
    arguments = json.dumps(
        {key: members[key] for key in order},
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, 1, "\t"])),
    )
    arguments = draw(st.sampled_from(["", " ", "\r\n"])) + arguments + draw(st.sampled_from(["", "\n", " \t "]))
    if draw(st.booleans()):
        cuts = list(range(1, len(arguments)))
    else:
        cuts = sorted(set(draw(st.lists(st.integers(1, len(arguments) - 1), max_size=40))))
    resume_at = frozenset(draw(st.lists(st.integers(0, len(cuts)), max_size=5)))
    return arguments, cuts, resume_at


def field_so_far(buffer: str) -> str:
    if not buffer.strip():
        return ""  # pydantic_core finds no value in whitespace alone
    value = from_json(buffer, allow_partial="trailing-strings").get("content")
    return value if isinstance(value, str) else ""


@settings(max_examples=400, deadline=None)
@given(arguments_in_pieces())
def test_the_text_so_far_is_what_a_whole_parse_of_the_buffer_so_far_gives(case):
    arguments, cuts, resume_at = case
    whole = json.loads(arguments)
    reported: dict[str, str] = {}

    for buffer, text, completed in read_in_pieces(arguments, cuts, resume_at):
        assert text == field_so_far(buffer)
        assert not completed.keys() & reported.keys()
        reported |= completed

    assert text == (whole["content"] if isinstance(whole.get("content"), str) else "")
    title = whole.get("title")
    assert reported == ({"title": title} if isinstance(title, str) else {})


# The pieces a runtime may cut anywhere.


def test_an_escape_cut_after_its_first_hex_digits_gives_its_character_once_complete():
    reader = FieldReader("content")

    assert reader.feed('{"content": "caf\\u00').text == "caf"
    assert reader.feed("e9!").text == "é!"


@pytest.mark.parametrize("cut", range(1, 12))
def test_a_surrogate_pair_cut_anywhere_gives_one_character(cut):
    pair = "\\ud83d\\ude00"
    reader = FieldReader("content")
    reader.feed('{"content": "a')

    before = reader.feed(pair[:cut]).text
    after = FieldReader("content", state=reader.state()).feed(pair[cut:] + 'b"}').text

    assert (before, after) == ("", "😀b")


def test_a_key_cut_in_its_escape_still_names_the_field():
    reader = FieldReader("content")

    assert reader.feed('{"con\\u00').text == ""
    assert reader.feed('74ent": "x').text == "x"


def test_brackets_and_quotes_inside_strings_of_earlier_values_do_not_end_them():
    arguments = '{"meta": {"note": "}\\"]}", "list": [1, -2.5e+3, true, null, "]"]}, "content": "body"}'

    assert read_whole(arguments) == ("body", {})


def test_only_top_level_keys_count():
    arguments = '{"meta": {"content": "nested", "title": "nested"}, "content": "top"}'

    assert read_whole(arguments) == ("top", {})


def test_a_field_whose_value_is_not_a_string_gives_no_text():
    assert read_whole('{"content": {"text": "x"}, "title": "Plan"}') == ("", {"title": "Plan"})
    assert read_whole('{"content": 12, "title": null}') == ("", {})


def test_the_first_value_of_a_key_given_twice_is_the_one_read():
    assert read_whole('{"content": "first", "title": "A", "content": "second", "title": "B"}') == (
        "first",
        {"title": "A"},
    )


def test_a_title_is_reported_once_in_the_delta_that_completes_it():
    reader = FieldReader("content")

    assert reader.feed('{"title": "Pl').completed == {}
    assert reader.feed('an \\"B\\"", "cont').completed == {"title": 'Plan "B"'}
    assert reader.feed('ent": "x"}') == Progress(text="x", completed={})


def test_a_title_longer_than_the_limit_is_not_reported():
    arguments = json.dumps({"title": "t" * (COLLECTED_LIMIT + 1), "content": "x"})

    assert read_whole(arguments) == ("x", {})


def test_a_key_longer_than_the_limit_matches_no_field_and_is_not_kept():
    reader = FieldReader("content")
    reader.feed('{"' + "k" * (KEY_LIMIT * 10))

    assert len(json.dumps(reader.state())) < 500
    assert reader.feed('": "x", "content": "y"}').text == "y"


def test_the_state_stays_small_however_long_the_field():
    reader = FieldReader("content")
    reader.feed('{"content": "' + "lorem ipsum\\n" * 10_000)

    assert len(json.dumps(reader.state())) < 500


def test_a_reader_carries_on_from_the_state_of_another_only_of_its_version():
    reader = FieldReader("content")
    reader.feed('{"content": "a')
    state = json.loads(json.dumps(reader.state()))

    assert FieldReader("content", state=state).feed('b"}').text == "b"
    with pytest.raises(ValueError, match="another version"):
        FieldReader("content", state=state | {"version": 0})


def test_a_megabyte_delta_comes_out_whole():
    content = ('Ligne é\n\t"quoted" 😀 \\ ' * 40_000)[:1_000_000]

    assert read_whole(json.dumps({"content": content}))[0] == content
    assert read_whole(json.dumps({"content": content}, ensure_ascii=False))[0] == content


@pytest.mark.parametrize("content", ["\u00e9" * 200_000, "a\n" * 100_000, '"q" \\ ' * 30_000, "\U0001f600" * 50_000])
def test_a_long_escaped_delta_is_read_in_memory_linear_in_its_length(content):
    """A piece of 13 MB (a document of a million characters, escaped) is read
    without the worker's memory growing by many times its size."""
    arguments = json.dumps({"content": content})
    reader = FieldReader("content")
    tracemalloc.start()
    try:
        progress = reader.feed(arguments)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert progress.text == content
    assert peak < 4 * len(arguments), (peak, len(arguments))


@pytest.mark.parametrize(
    ("fault", "what"), [("\\x", "invalid escape"), ("\\udc00", "lone surrogate"), ("\t", r"U\+0009")]
)
def test_a_fault_after_a_long_valid_run_is_found_where_it_is(fault, what):
    arguments = '{"content": "' + "caf\\u00e9 \\n" * 10_000 + fault + '"}'
    with pytest.raises(ArgumentsNotJSON, match=what) as raised:
        FieldReader("content").feed(arguments)
    assert raised.value.offset == arguments.index(fault)


# What is not JSON fails with the fault and where it shows, counted from the start of the arguments.


@pytest.mark.parametrize(
    ("arguments", "offset", "fault"),
    [
        ("{]", 1, "expected a key"),
        ('{"a": 1} x', 9, "after the arguments' closing"),
        ('{"a": 1}{', 8, "after the arguments' closing"),
        ('{"a" 1}', 5, "expected ':'"),
        ('{"a": 1 "b": 2}', 8, "expected ',' or '}'"),
        ('{"a": [1}', 8, "expected ',' or ']'"),
        ('{"a": "\\x"}', 7, "invalid escape"),
        ('{"a": "\\u12g4"}', 7, "invalid escape"),
        ('{"a": "\\ud83d"}', 7, "lone surrogate"),
        ('{"a": "\\ud83d\\u0041"}', 7, "lone surrogate"),
        ('{"a": "\\ude00"}', 7, "lone surrogate"),
        ('{"a": "line\nbreak"}', 11, "control character U+000A"),
        ('{"a": 01}', 7, "invalid number"),
        ('{"a": -}', 7, "invalid number"),
        ('{"a": 1.e5}', 8, "invalid number"),
        ('{"a": tru}', 9, "expected true, false or null"),
        ('{"a": }', 6, "expected a value"),
        ('{"a": 1,}', 8, "expected a key"),
        ('{"a": [1,]}', 9, "expected a value"),
    ],
)
def test_invalid_arguments_say_what_is_wrong_and_where(arguments, offset, fault):
    with pytest.raises(InvalidArguments) as raised:
        for _ in read_in_pieces(arguments, list(range(1, len(arguments)))):
            pass

    assert raised.value.offset == offset  # type: ignore[attr-defined]
    assert fault in str(raised.value)
    assert f"at character {offset}" in str(raised.value)
    with pytest.raises(ValueError):
        from_json(arguments)


def test_arguments_that_are_not_an_object_fail_at_their_first_character():
    with pytest.raises(ArgumentsNotJSON, match="expected '{' to open the arguments, found '\\[' at character 2"):
        FieldReader("content").feed('  ["content"]')


def test_brackets_nested_deeper_than_the_limit_fail_as_pydantic_core_does():
    deep = '{"a": ' + "[" * DEPTH_LIMIT + "]" * DEPTH_LIMIT + ', "content": "x"}'
    too_deep = '{"a": ' + "[" * (DEPTH_LIMIT + 1)

    assert read_whole(deep) == ("x", {})
    with pytest.raises(ArgumentsNotJSON, match="nested deeper"):
        FieldReader("content").feed(too_deep)
    with pytest.raises(ValueError):
        from_json(too_deep + "]" * (DEPTH_LIMIT + 1) + "}")
