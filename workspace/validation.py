"""Rules on the values the app stores and the fields it reads, shared by the
repository, the tools and the views."""

import re

from .conf import conf
from .exceptions import DocumentTooLarge, InvalidArguments, InvalidThreadId

THREAD_ID_MAX_LENGTH = 128
TITLE_MAX_LENGTH = 255
THREAD_ID_PATTERN = re.compile(rf"[A-Za-z0-9._:-]{{1,{THREAD_ID_MAX_LENGTH}}}")


def validate_thread_id(thread_id: object) -> str:
    """Return ``thread_id`` if it is 1-128 characters of ``A-Z a-z 0-9 . _ : -``."""
    if not isinstance(thread_id, str):
        raise InvalidThreadId(f"thread_id must be a string, got {type(thread_id).__name__}")
    if not THREAD_ID_PATTERN.fullmatch(thread_id):
        raise InvalidThreadId(
            f"invalid thread_id {thread_id[: THREAD_ID_MAX_LENGTH + 1]!r}: use 1 to "
            f"{THREAD_ID_MAX_LENGTH} characters of A-Z a-z 0-9 . _ : -"
        )
    return thread_id


def storage_problem(value: str) -> str | None:
    """What keeps ``value`` from being stored the same on every backend, if anything:
    U+0000 (PostgreSQL refuses it in text) or a lone surrogate (JSON allows
    "\\ud800", UTF-8 does not)."""
    if "\x00" in value:
        return "contains the NUL character (\\u0000), which cannot be stored"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        return (
            f"contains a lone surrogate ({value[error.start]!a}) at character {error.start}, "
            "which is not text and cannot be stored"
        )
    return None


def check_storable(name: str, value: str) -> str:
    problem = storage_problem(value)
    if problem:
        raise InvalidArguments(f"{name} {problem}")
    return value


def check_text(name: str, value: object) -> str:
    """Return ``value`` if it is a string that every backend stores as given."""
    if not isinstance(value, str):
        raise InvalidArguments(f"{name} must be a string, got {type(value).__name__}")
    return check_storable(name, value)


def check_title(title: object) -> None:
    """Refuse a title (None: keep the current one) that is no string, or longer than a title may be."""
    if title is None:
        return
    check_text("title", title)
    assert isinstance(title, str)
    if len(title) > TITLE_MAX_LENGTH:
        raise InvalidArguments(f"title has {len(title)} characters, more than the limit of {TITLE_MAX_LENGTH}")


def check_size(length: int, subject: str) -> None:
    """Refuse a document of ``length`` characters, longer than WORKSPACE_MAX_DOCUMENT_CHARS;
    ``subject`` starts the message (``"content has"``)."""
    limit = conf.MAX_DOCUMENT_CHARS
    if length > limit:
        raise DocumentTooLarge(
            f"{subject} {length} characters, more than the limit of {limit} (WORKSPACE_MAX_DOCUMENT_CHARS)"
        )


def refuse_unknown_fields(data: dict, fields: tuple[str, ...]) -> None:
    """InvalidArguments (400) naming the first few fields of a request's ``data``
    not in ``fields``, if any: an endpoint's body has no field it does not read."""
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise InvalidArguments(
            f"unknown fields: {', '.join(name[:40] for name in unknown[:5])}; the fields are {', '.join(fields)}"
        )
