"""What a decision on a proposal and a change of review mode ask, read from
the request's body and parameters. Every rule that fails answers 400, and
nothing is written."""

from typing import Any

from ..exceptions import InvalidArguments
from ..validation import check_storable, refuse_unknown_fields

MAX_NOTE_CHARS = 1000
MAX_INDEXES = 10_000  # a list of hunk indexes: no proposal of a megabyte has more lines than a list this long needs
STATUSES = ("open", "decided", "all")


def review_mode(data: dict[str, Any]) -> bool:
    """``{"review": true | false}``, nothing else."""
    refuse_unknown_fields(data, ("review",))
    if "review" not in data:
        raise InvalidArguments("review is required: true to make agents' changes wait for review, false to apply them")
    if not isinstance(data["review"], bool):
        raise InvalidArguments(f"review must be true or false, got {type(data['review']).__name__}")
    return data["review"]


def decision(data: dict[str, Any]) -> tuple[str | list[int], str | None]:
    """``accept`` (``"all"``, ``"none"`` or a list of hunk indexes) and the optional ``note``."""
    refuse_unknown_fields(data, ("accept", "note"))
    if "accept" not in data:
        raise InvalidArguments('accept is required: "all", "none", or a list of the indexes of the hunks to accept')
    accept = data["accept"]
    if isinstance(accept, list):
        if len(accept) > MAX_INDEXES:
            raise InvalidArguments(f"accept lists {len(accept)} indexes; at most {MAX_INDEXES}")
    elif accept not in ("all", "none"):
        raise InvalidArguments(f'accept must be "all", "none" or a list of hunk indexes, got {str(accept)[:40]!r}')
    note = data.get("note")
    if note is not None:
        if not isinstance(note, str):
            raise InvalidArguments(f"note must be a string, got {type(note).__name__}")
        check_storable("note", note)
        if len(note) > MAX_NOTE_CHARS:
            raise InvalidArguments(f"note has {len(note)} characters; at most {MAX_NOTE_CHARS}")
    return accept, note


def status(value: str) -> str:
    """The ``status`` parameter of the proposals' list."""
    if value not in STATUSES:
        raise InvalidArguments(f"status must be one of {', '.join(STATUSES)}, got {value[:40]!r}")
    return value
