"""A run of a JSON string's body decoded at once, however long: the fast way
of ``partial_json``'s reader.

The body up to its closing quote (or the piece's end) is found by one regex
as whole tokens: runs of characters other than quotes and backslashes,
``\\uXXXX``, and a backslash with any other character. Its quantifiers are
possessive, so the regex engine keeps no backtracking state per token (one
that validated each escape as it went held state per escape: 237 MB to read
a 6 MB piece of ``\\u00e9``); ``json.loads`` then checks and decodes the run
in one call. Time and memory are linear in the run, with no Python step per
character.
"""

import json
import re

_STRING_BODY = re.compile(r'[^"\\]*+(?:\\(?:u[0-9a-fA-F]{4}|[^u])[^"\\]*+)*+', re.DOTALL)
_HIGH_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}")
_CONTROL = re.compile("[\x00-\x1f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def decode_string_body(delta: str, position: int) -> tuple[int, str]:
    """Where the string body from ``position`` on ends (its closing quote, or
    the delta's end), and its text, decoded; ``(position, "")`` when that run
    is not all valid or has nothing whole (an escape cut by the delta's end,
    a high surrogate whose low half may come next): then read it otherwise."""
    run = _STRING_BODY.match(delta, position)
    end = run.end() if run else position
    if end == len(delta) and _ends_with_high_surrogate(delta, position, end):
        end -= 6  # its low half may come in the next delta
    span = delta[position:end]
    if "\\" not in span:
        return (position, "") if _CONTROL.search(span) else (end, span)
    try:
        text = json.loads(f'"{span}"')
    except ValueError:  # an invalid escape or a control character
        return position, ""
    if _SURROGATE.search(text):  # a lone surrogate escape
        return position, ""
    return end, text


def _ends_with_high_surrogate(delta: str, start: int, end: int) -> bool:
    """Whether ``delta[start:end]`` ends with the escape of a high surrogate (not a "\\\\" and "uD83D")."""
    backslash = end - 6
    if backslash < start or _HIGH_SURROGATE_ESCAPE.fullmatch(delta, backslash, end) is None:
        return False
    before = backslash
    while before > start and delta[before - 1] == "\\":
        before -= 1
    return (backslash - before) % 2 == 0
