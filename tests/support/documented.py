"""The documentation as the tests read it: README.md, the pages of ``docs/``
in ``mkdocs.yml``'s order, and their fenced blocks with the marker before each.

A marker is an HTML comment on the line right before a block's fence
(``<!-- runs -->``, ``<!-- as README.md's "Run it" -->``): invisible on the
page, it tells a test what to do with the block.
"""

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.support.live import REPOSITORY

README = REPOSITORY / "README.md"
DOCS = REPOSITORY / "docs"
FENCE = re.compile(r"^(?:<!-- (.+?) -->\n)?```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    page: str  # its path in the repository, for messages
    language: str
    marker: str | None  # the comment before it, without <!-- -->
    code: str


def nav_pages() -> list[Path]:
    """The pages of ``docs/``, in ``mkdocs.yml``'s nav order."""
    nav = yaml.safe_load((REPOSITORY / "mkdocs.yml").read_text())["nav"]
    return [DOCS / next(iter(item.values())) for item in nav]


def blocks_of(page: Path, language: str) -> list[Block]:
    """The fenced blocks of ``language`` on ``page``, in order."""
    name = page.relative_to(REPOSITORY).as_posix()
    return [
        Block(name, match[2], match[1], match[3]) for match in FENCE.finditer(page.read_text()) if match[2] == language
    ]


def section(page: Path, heading: str) -> str:
    """The text of the section under ``## heading`` on ``page``, up to the next heading of its level."""
    text = page.read_text()
    start = re.search(rf"^## {re.escape(heading)}\n", text, re.MULTILINE)
    assert start, f"{page.name} has no section '## {heading}'"
    end = re.search(r"^## ", text[start.end() :], re.MULTILINE)
    return text[start.end() : start.end() + end.start()] if end else text[start.end() :]


def matches(expected: str, printed: str) -> bool:
    """Whether a printed line is the one the page shows, ``...`` standing for any text."""
    pattern = ".*?".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, printed, re.DOTALL) is not None
