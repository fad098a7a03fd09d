"""The HTTP API's integer parameters (``?after=``, ``?limit=``, a revision's
version in the path): each given at most once, as a non-negative integer, else 400."""

from rest_framework.request import Request

from .exceptions import InvalidArguments

MAX_DIGITS = 18  # what a 64-bit integer surely holds


def single_query_value(request: Request, name: str, default: str) -> str:
    """The query parameter ``name`` (``default`` if absent); 400 if it is given more than once."""
    values = request.query_params.getlist(name)
    if len(values) > 1:
        raise InvalidArguments(f"give {name} once, not {len(values)} times")
    return values[0] if values else default


def non_negative_integer(name: str, value: str) -> int:
    """``value`` as an integer of at most MAX_DIGITS ASCII digits; 400 naming ``name`` otherwise."""
    if not (value.isascii() and value.isdigit() and len(value) <= MAX_DIGITS):
        raise InvalidArguments(f"{name} must be a non-negative integer, got {value[:40]!r}")
    return int(value)
