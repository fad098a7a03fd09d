"""Reads one string field of a tool call's JSON arguments while they arrive in pieces.

An agent's runtime forwards a call's arguments as the model writes them, a
delta at a time (``{"content": "# Ti``, then ``tle\\n\\u00``, then
``e9 more", "title": "Pl``...). ``FieldReader`` is a JSON state machine fed
those deltas: each ``feed`` costs time and memory linear in its delta and
gives the new decoded characters of one top-level string field (the live
draft), and the whole value of a few short string fields (``title``) once
each is complete. A string's body is read at once where it can be
(``json_strings``); only what that cannot take (an escape cut by the delta's
end, a fault, to say exactly where it is) goes character by character.
Its ``state()`` is a small dict of JSON values that another process resumes
from; it never holds the streamed field's text, only bounded buffers: a
top-level key (``KEY_LIMIT``), a completing field's value
(``COLLECTED_LIMIT``), a pending escape (12 characters) and the open
brackets (``DEPTH_LIMIT``).

The whole input is checked as JSON (RFC 8259): anything else raises
``ArgumentsNotJSON`` naming the fault and its character offset in the
arguments. Choices where JSON leaves room or streaming cannot follow a
whole-buffer parser:

- a lone surrogate escape (``\\ud83d`` not followed by a low one, or a low
  one alone) is an error, as pydantic_core's parser makes it;
- a key given twice: its first value is the one read; later values of the
  same key are checked as JSON and otherwise ignored (text already shown
  cannot be taken back; a whole-buffer parser keeps the last);
- the streamed field's value not a string (a number, an object...): no text;
- a completing field's value longer than ``COLLECTED_LIMIT``, or not a
  string: never reported;
- a key longer than ``KEY_LIMIT`` characters matches no field;
- the read field is never also reported as completed.

After an ``ArgumentsNotJSON`` the reader's state is undefined: the arguments
are broken, stop reading them.
"""

import json
import re
from dataclasses import dataclass, field

from workspace.exceptions import InvalidArguments

from .json_strings import decode_string_body

STATE_VERSION = 1
KEY_LIMIT = 256  # characters of a top-level key kept to match the fields; longer keys match none
COLLECTED_LIMIT = 1_000  # characters of a completing field (a title) kept until it completes
DEPTH_LIMIT = 200  # brackets open inside the top-level object, as pydantic_core allows

_WHITESPACE = re.compile(r"[ \t\n\r]*")
# A run of a string's characters to take at once: plain characters and whole escapes that stand alone
# (the simple ones, \uXXXX outside the surrogates, and complete surrogate pairs).
_RUN = re.compile(
    r'(?:[^"\\\x00-\x1f]+|\\(?:["\\/bfnrt]|u(?![dD][89a-fA-F])[0-9a-fA-F]{4}'
    r"|u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}))+"
)
_DIGITS = re.compile(r"[0-9]*")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")
_LITERALS = {"t": "rue", "f": "alse", "n": "ull"}
_CLOSERS = {"{": "}", "[": "]"}
# A number's grammar: state -> class of the next character -> next state.
_NUMBER_STEPS: dict[str, dict[str, str]] = {
    "minus": {"0": "zero", "digit": "int"},
    "zero": {".": "dot", "e": "exp"},
    "int": {"0": "int", "digit": "int", ".": "dot", "e": "exp"},
    "dot": {"0": "frac", "digit": "frac"},
    "frac": {"0": "frac", "digit": "frac", "e": "exp"},
    "exp": {"0": "exp_int", "digit": "exp_int", "sign": "exp_sign"},
    "exp_sign": {"0": "exp_int", "digit": "exp_int"},
    "exp_int": {"0": "exp_int", "digit": "exp_int"},
}
_NUMBER_ENDS = frozenset({"zero", "int", "frac", "exp_int"})
_DIGIT_RUNS = frozenset({"int", "frac", "exp_int"})  # states where more digits may follow at once
_NUMBER_CLASSES = {"0": "0", ".": ".", "e": "e", "E": "e", "+": "sign", "-": "sign"}
_NUMBER_CLASSES.update(dict.fromkeys("123456789", "digit"))
# Where the reader is: between tokens, expecting one of a kind, or inside a token.
_MODES = ("object", "first_key", "key", "colon", "first_value", "value", "after_value", "end")
_INSIDE = ("string", "number", "literal")
_ROLES = ("", "key", "nested_key", "target", "collect", "skip")


class ArgumentsNotJSON(InvalidArguments):
    """The arguments are not a JSON object; ``offset``: the character where that shows."""

    def __init__(self, offset: int, fault: str) -> None:
        super().__init__(f"the arguments are not a valid JSON object: {fault} at character {offset}")
        self.offset = offset


@dataclass(frozen=True)
class Progress:
    """What one delta brought: ``text``, the new characters of the read field's value;
    ``completed``, the completing fields whose string value ended in it, by name."""

    text: str = ""
    completed: dict[str, str] = field(default_factory=dict)


class FieldReader:
    """Streams the string value of the top-level key ``field`` of a JSON object fed in pieces,
    and reports each of ``complete_fields`` once its (short) string value is complete.
    ``state``: what ``state()`` gave, to carry on where another reader stopped."""

    def __init__(self, field: str, complete_fields: tuple[str, ...] = ("title",), state: dict | None = None) -> None:
        self.field = field
        self.complete_fields = frozenset(complete_fields) - {field}
        self._offset = 0  # characters read before the current delta
        self._mode = "object"
        self._stack = ""  # the open brackets, outermost first
        self._role = ""  # what the string being read is
        self._escape = ""  # an escape begun and not yet complete, as written
        self._key: str | None = ""  # the top-level key being read, None once too long
        self._member: str | None = None  # the field of interest whose value comes next
        self._collected: str | None = None  # a completing field's value so far, None once too long
        self._number = ""  # the number's grammar state
        self._literal = ""  # what remains of true, false or null
        self._seen: set[str] = set()  # fields of interest met, each read only at its first occurrence
        self._outside = {
            "object": self._on_object,
            "first_key": self._on_first,
            "key": self._on_key,
            "colon": self._on_colon,
            "first_value": self._on_first,
            "value": self._on_value,
            "after_value": self._on_after_value,
            "end": self._on_end,
        }
        if state is not None:
            self._restore(state)

    @property
    def finished(self) -> bool:
        """Whether the top-level object has closed: only whitespace may follow."""
        return self._mode == "end"

    def feed(self, delta: str) -> Progress:
        """Read the next piece of the arguments. Raises ``ArgumentsNotJSON`` where they stop being
        JSON (what the piece brought before the fault is not returned)."""
        parts: list[str] = []
        completed: dict[str, str] = {}
        position, size = 0, len(delta)
        while position < size:
            if self._mode == "string":
                position = self._read_string(delta, position, parts, completed)
            elif self._mode == "number":
                position = self._read_number(delta, position)
            elif self._mode == "literal":
                position = self._read_literal(delta, position)
            else:
                position = _run_end(_WHITESPACE, delta, position)
                if position < size:
                    self._outside[self._mode](delta[position], position)
                    position += 1
        self._offset += size
        return Progress("".join(parts), completed)

    def state(self) -> dict:
        """Where the reader is, as JSON values (at most a few kilobytes): give it to a new reader to go on."""
        return {
            "version": STATE_VERSION,
            "offset": self._offset,
            "mode": self._mode,
            "stack": self._stack,
            "role": self._role,
            "escape": self._escape,
            "key": self._key,
            "member": self._member,
            "collected": self._collected,
            "number": self._number,
            "literal": self._literal,
            "seen": sorted(self._seen),
        }

    def _restore(self, state: dict) -> None:
        if state.get("version") != STATE_VERSION:
            raise ValueError(f"a reader's state of another version: {state.get('version')!r}")
        fits = (
            state["mode"] in _MODES + _INSIDE
            and state["role"] in _ROLES
            and len(state["stack"]) <= DEPTH_LIMIT + 1
            and len(state["escape"]) < 12
            and len(state["key"] or "") <= KEY_LIMIT
            and len(state["collected"] or "") <= COLLECTED_LIMIT
            and len(state["seen"]) <= len(self.complete_fields) + 1
        )
        if not fits:
            raise ValueError("a reader's state out of its bounds")
        self._offset, self._mode, self._stack = state["offset"], state["mode"], state["stack"]
        self._role, self._escape, self._key = state["role"], state["escape"], state["key"]
        self._member, self._collected = state["member"], state["collected"]
        self._number, self._literal, self._seen = state["number"], state["literal"], set(state["seen"])

    def _error(self, position: int, fault: str) -> ArgumentsNotJSON:
        return ArgumentsNotJSON(self._offset + position, fault)

    # Between tokens: each handler takes the one non-whitespace character at ``position``.

    def _on_object(self, char: str, position: int) -> None:
        if char != "{":
            raise self._error(position, f"expected '{{' to open the arguments, found {char!r}")
        self._open(char, position)

    def _on_first(self, char: str, position: int) -> None:
        """Just after a ``{`` or a ``[``: its closer (it is empty), or its first key or value."""
        if char == _CLOSERS[self._stack[-1]]:
            self._close()
        elif self._mode == "first_key":
            self._on_key(char, position)
        else:
            self._on_value(char, position)

    def _on_key(self, char: str, position: int) -> None:
        if char != '"':
            raise self._error(position, f"expected a key in double quotes, found {char!r}")
        if len(self._stack) == 1:
            self._role, self._key, self._member = "key", "", None
        else:
            self._role = "nested_key"
        self._mode = "string"

    def _on_colon(self, char: str, position: int) -> None:
        if char != ":":
            raise self._error(position, f"expected ':' after a key, found {char!r}")
        self._mode = "value"
        key, self._key = self._key, ""
        wanted = key == self.field or key in self.complete_fields
        if key is not None and wanted and len(self._stack) == 1 and key not in self._seen:
            self._member = key
            self._seen.add(key)

    def _on_value(self, char: str, position: int) -> None:
        if char == '"':
            self._mode, self._role = "string", "skip"
            if len(self._stack) == 1 and self._member is not None:
                self._role = "target" if self._member == self.field else "collect"
                self._collected = "" if self._role == "collect" else None
        elif char in _CLOSERS:
            self._open(char, position)
        elif char == "-" or "0" <= char <= "9":
            self._mode = "number"
            self._number = "minus" if char == "-" else "zero" if char == "0" else "int"
        elif char in _LITERALS:
            self._mode, self._literal = "literal", _LITERALS[char]
        else:
            raise self._error(position, f"expected a value, found {char!r}")

    def _on_after_value(self, char: str, position: int) -> None:
        closer = _CLOSERS[self._stack[-1]]
        if char == ",":
            self._mode = "key" if closer == "}" else "value"
        elif char == closer:
            self._close()
        else:
            raise self._error(position, f"expected ',' or {closer!r}, found {char!r}")

    def _on_end(self, char: str, position: int) -> None:
        raise self._error(position, f"{char!r} after the arguments' closing '}}'")

    def _open(self, bracket: str, position: int) -> None:
        if len(self._stack) > DEPTH_LIMIT:
            raise self._error(position, f"brackets nested deeper than {DEPTH_LIMIT}")
        self._stack += bracket
        self._mode = "first_key" if bracket == "{" else "first_value"

    def _close(self) -> None:
        self._stack = self._stack[:-1]
        self._mode = "after_value" if self._stack else "end"

    # Inside a token.

    def _read_string(self, delta: str, position: int, parts: list[str], completed: dict[str, str]) -> int:
        if self._escape:
            return self._read_escape(delta, position, parts)
        taken, text = decode_string_body(delta, position)
        if taken > position:
            if self._role not in ("skip", "nested_key"):
                self._keep(text, parts)
            return taken
        # What the fast way did not take, character by character: an escape cut by the delta's end,
        # a high surrogate whose low half may come next, the closing quote, or a fault, found exactly.
        if run := _RUN.match(delta, position):
            if self._role not in ("skip", "nested_key"):
                chunk = run.group()
                self._keep(json.loads(f'"{chunk}"') if "\\" in chunk else chunk, parts)
            return run.end()
        char = delta[position]
        if char == "\\":
            self._escape = char
        elif char == '"':
            self._end_string(completed)
        else:
            raise self._error(position, f"control character U+{ord(char):04X} unescaped in a string")
        return position + 1

    def _read_escape(self, delta: str, position: int, parts: list[str]) -> int:
        """One more character of an escape begun in an earlier delta, or not one ``_RUN`` takes."""
        char = delta[position]
        escape = self._escape + char
        size = len(escape)
        if size == 2 and char != "u":
            if char not in _SIMPLE_ESCAPES:
                raise self._error(position - 1, f"invalid escape {escape!r}")
            self._keep(_SIMPLE_ESCAPES[char], parts)
            escape = ""
        elif size in (7, 8) and char != "\\u"[size - 7]:
            raise self._error(position - size + 1, f"lone surrogate escape {escape[:6]!r}")
        elif size not in (2, 7, 8) and char not in _HEX:
            raise self._error(position - size + 1, f"invalid escape {escape!r}")
        elif size == 6:
            code = int(escape[2:], 16)
            if 0xDC00 <= code < 0xE000:
                raise self._error(position - 5, f"lone surrogate escape {escape!r}")
            if not 0xD800 <= code < 0xDC00:  # else a high surrogate: its low one must follow
                self._keep(chr(code), parts)
                escape = ""
        elif size == 12:
            high, low = int(escape[2:6], 16), int(escape[8:], 16)
            if not 0xDC00 <= low < 0xE000:
                raise self._error(position - 11, f"lone surrogate escape {escape[:6]!r}")
            self._keep(chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)), parts)
            escape = ""
        self._escape = escape
        return position + 1

    def _keep(self, text: str, parts: list[str]) -> None:
        if self._role == "target":
            parts.append(text)
        elif self._role == "collect":
            self._collected = _capped(self._collected, text, COLLECTED_LIMIT)
        elif self._role == "key":
            self._key = _capped(self._key, text, KEY_LIMIT)

    def _end_string(self, completed: dict[str, str]) -> None:
        if self._role == "collect" and self._collected is not None and self._member is not None:
            completed[self._member] = self._collected
        if self._role in ("collect", "target"):
            self._member = self._collected = None
        self._mode = "colon" if self._role in ("key", "nested_key") else "after_value"
        self._role = ""

    def _read_number(self, delta: str, position: int) -> int:
        char = delta[position]
        step = _NUMBER_STEPS[self._number].get(_NUMBER_CLASSES.get(char, ""))
        if step is None:
            if char in _NUMBER_CLASSES or self._number not in _NUMBER_ENDS:
                raise self._error(position, f"invalid number: {char!r} where it cannot be")
            self._mode, self._number = "after_value", ""
            return position  # the character after the number is read again, as what follows a value
        self._number = step
        return _run_end(_DIGITS, delta, position + 1) if step in _DIGIT_RUNS else position + 1

    def _read_literal(self, delta: str, position: int) -> int:
        char = delta[position]
        if char != self._literal[0]:
            raise self._error(position, f"expected true, false or null, found {char!r}")
        self._literal = self._literal[1:]
        if not self._literal:
            self._mode = "after_value"
        return position + 1


def _run_end(pattern: re.Pattern[str], text: str, position: int) -> int:
    """Where the run of ``pattern`` starting at ``position`` ends."""
    run = pattern.match(text, position)
    return run.end() if run else position


def _capped(kept: str | None, more: str, limit: int) -> str | None:
    """``kept`` and ``more``, or None once that is longer than ``limit`` (and ever after)."""
    if kept is None or len(kept) + len(more) > limit:
        return None
    return kept + more
