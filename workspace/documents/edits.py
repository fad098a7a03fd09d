"""Where an edit's ``old_str`` stands in a document, and what the agent is told
when it does not stand exactly once."""

from ..exceptions import InvalidArguments

# At most this many line numbers are listed when ``old_str`` appears more than once.
LISTED_LINES = 10


def replacements(content: str, old: str, *, replace_all: bool, version: int) -> int:
    """How many occurrences of ``old`` an edit of ``content`` (at ``version``)
    replaces: every one with ``replace_all``, else the only one. Refused when
    there is none, or more than one without ``replace_all``."""
    count = content.count(old)
    if count == 0:
        raise InvalidArguments(
            f"old_str did not appear verbatim in the document (version {version}); "
            "read the document again and copy the text exactly, white space included"
        )
    if count > 1 and not replace_all:
        lines = line_numbers_of(content, old, limit=LISTED_LINES)
        listed = ", ".join(map(str, lines)) + (", ..." if count > len(lines) else "")
        raise InvalidArguments(
            f"old_str appears {count} times (lines {listed}); add surrounding context to make it "
            "unique, or set replace_all to replace every one"
        )
    return count if replace_all else 1


def line_numbers_of(content: str, text: str, limit: int) -> list[int]:
    """The 1-based line numbers where the first ``limit`` occurrences of ``text`` start."""
    lines: list[int] = []
    start, line, position = 0, 1, content.find(text)
    while position != -1 and len(lines) < limit:
        line += content.count("\n", start, position)
        lines.append(line)
        start, position = position, content.find(text, position + len(text))
    return lines
