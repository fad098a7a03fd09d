"""The tools that read and write a thread's shared working document (the center panel)."""

from typing import Annotated

from pydantic import Field

from ..deprecation import moved_names
from ..documents.calls import current_call
from ..documents.repository import WorkspaceRepository
from ..exceptions import DocumentNotFound, InvalidArguments
from ..signals import DocumentChange
from ..validation import TITLE_MAX_LENGTH
from .arguments import shorten
from .collection import ToolCollection
from .decorator import workspace_tool

LINE_NUMBER_SCHEMA = {"minimum": 1}  # a line number, in the schema


class DocumentTools(ToolCollection):
    """The document tools of one conversation thread (the keywords: ``ToolCollection``)."""

    @workspace_tool
    def update_document(
        self,
        content: Annotated[str, Field(description="The whole new content of the document.")],
        title: Annotated[
            str | None,
            Field(
                max_length=TITLE_MAX_LENGTH,
                description="A new title; omit it or pass null to keep the current one.",
            ),
        ] = None,
    ) -> tuple[str, None]:
        """Replace the full content of the shared working document."""
        change = WorkspaceRepository.upsert_document(self.thread_id, content=content, title=title)
        if change.proposal is not None:
            return proposed(f"{change.length} chars", change), None
        return f"document updated ({change.length} chars)", None

    @workspace_tool(destructive=False)
    def append_to_document(
        self,
        text: Annotated[str, Field(description="The chunk of text to add at the end of the document.")],
    ) -> tuple[str, None]:
        """Append a chunk of text to the shared working document."""
        change = WorkspaceRepository.append_document(self.thread_id, text)
        if change.proposal is not None:
            return proposed(f"{change.length} chars total", change), None
        return f"appended ({change.length} chars total)", None

    @workspace_tool(read_only=True)
    def read_document(
        self,
        # "minimum" declared, not validated: the tool's own message names the valid range.
        start_line: Annotated[
            int | None,
            Field(description="First line to read (1-based); omit for 1.", json_schema_extra=LINE_NUMBER_SCHEMA),
        ] = None,
        end_line: Annotated[
            int | None,
            Field(
                description="Last line to read, inclusive; omit for the last line.",
                json_schema_extra=LINE_NUMBER_SCHEMA,
            ),
        ] = None,
    ) -> tuple[str, None]:
        """Read the shared working document, or a range of its lines."""
        try:
            document = WorkspaceRepository.get_document(self.thread_id)
        except DocumentNotFound:
            return "\n".join(["the document does not exist yet (version 0)", *self._waiting()]), None
        lines = lines_of(document.content)
        total = len(lines)
        valid = f"the lines are 1-{total}"
        first, last = 1 if start_line is None else start_line, total if end_line is None else end_line
        if total == 0 and start_line is None and end_line is None:
            first, last = 0, 0
        elif total == 0:
            raise InvalidArguments("the document has no lines yet: read it without start_line and end_line")
        elif min(first, last) < 1:
            raise InvalidArguments(f"line {shorten(str(min(first, last)))} is before the first line; {valid}")
        elif max(first, last) > total:
            raise InvalidArguments(f"line {shorten(str(max(first, last)))} is past the last line; {valid}")
        elif first > last:
            raise InvalidArguments(f"start_line {first} is after end_line {last}; {valid}")
        header = f"version {document.version}, {document.length} chars, lines {first}-{last} of {total}"
        return "\n".join([header, *self._waiting(), *numbered(lines, first, last)]), None

    def _waiting(self) -> list[str]:
        """The line saying which proposals wait for review (none when none do)."""
        waiting = WorkspaceRepository.open_proposals(self.thread_id)
        if not waiting:
            return []
        ids = ", ".join(str(number) for number, _ in waiting)
        call = current_call()
        caller = call.actor if call is not None else None
        yours = [str(number) for number, actor in waiting if caller is not None and actor == caller]
        whose = f"; yours: {', '.join(yours)}" if yours else "; none of them yours"
        return [f"{len(waiting)} proposal(s) wait for review: {ids}{whose}"]

    @workspace_tool
    def edit_document(
        self,
        old_str: Annotated[
            str,
            Field(
                description="The exact text to replace, as it appears in the document.",
                json_schema_extra={"minLength": 1},  # checked by the repository, whose message says what to use
            ),
        ],
        new_str: Annotated[str, Field(description="The text to put in its place.")],
        replace_all: Annotated[bool, Field(description="Replace every occurrence, not just a unique one.")] = False,
        expected_version: Annotated[
            int | None, Field(ge=0, description="Apply only if the document is at this version.")
        ] = None,
    ) -> tuple[str, None]:
        """Replace an exact piece of text in the shared working document."""
        change, replaced, first = WorkspaceRepository.edit_document(
            self.thread_id, old_str, new_str, replace_all=replace_all, expected_version=expected_version
        )
        line = change.text.count("\n", 0, first) + 1
        lines = lines_of(change.text)
        shown_first = max(1, line - SNIPPET_CONTEXT)
        shown_last = min(len(lines), line + new_str.count("\n") + SNIPPET_CONTEXT, shown_first + SNIPPET_MAX_LINES - 1)
        snippet = [text[:SNIPPET_LINE_CHARS] for text in numbered(lines, shown_first, shown_last)]
        what = f"{replaced} replacement(s); {change.length} chars total"
        summary = proposed(what, change) if change.proposal is not None else f"edited ({what})"
        return "\n".join([summary, *snippet]), None


def proposed(what: str, change: DocumentChange) -> str:
    """The summary of a change that waits for review as a proposal instead of applying."""
    return (
        f"proposed ({what}): waits for review as proposal {change.proposal}; "
        f"the document is unchanged at version {change.version}"
    )


SNIPPET_CONTEXT = 2  # lines shown before and after the first change
SNIPPET_MAX_LINES = 12
SNIPPET_LINE_CHARS = 200


def lines_of(content: str) -> list[str]:
    """The document's lines, split at "\\n" only; a final newline ends the last line."""
    if not content:
        return []
    lines = content.split("\n")
    return lines[:-1] if content.endswith("\n") else lines


def numbered(lines: list[str], first: int, last: int) -> list[str]:
    return [f"{number}\t{lines[number - 1]}" for number in range(max(first, 1), last + 1)]


__getattr__ = moved_names(__name__, {"FROM_1": "workspace.tools.documents.LINE_NUMBER_SCHEMA"})
