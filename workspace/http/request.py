"""What a request to the API carries, read and bounded before a view uses it.

- The body: sized when sent chunked (every view does it first,
  ``defaults.WorkspaceView``), read as the JSON object of a tool's arguments
  (or of an endpoint's fields), bounded by DATA_UPLOAD_MAX_MEMORY_SIZE.
- The integer parameters (``?after=``, ``?limit=``, a revision's version in
  the path): each given at most once, as a non-negative integer, else 400."""

import io

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.handlers.wsgi import LimitedStream
from django.http import HttpRequest
from rest_framework.exceptions import ParseError
from rest_framework.request import Request

from ..exceptions import DocumentTooLarge, InvalidArguments
from ..internals.django import body_stream, replace_body_stream
from .failures import detail_text


def size_chunked_body(request: HttpRequest) -> None:
    """Give a body sent with ``Transfer-Encoding: chunked`` (no Content-Length)
    the length it has, which DRF needs to read it at all; never reading more
    than one byte past DATA_UPLOAD_MAX_MEMORY_SIZE, so that the usual limit applies."""
    meta = request.META
    if meta.get("CONTENT_LENGTH") or "chunked" not in meta.get("HTTP_TRANSFER_ENCODING", "").lower():
        return
    if "wsgi.input" in meta:  # WSGI: Django reads no further than a Content-Length, so read here
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        data = meta["wsgi.input"].read() if limit is None else meta["wsgi.input"].read(limit + 1)
        replace_body_stream(request, LimitedStream(io.BytesIO(data), len(data)))
        meta["CONTENT_LENGTH"] = str(len(data))
        return
    stream = body_stream(request)
    if hasattr(stream, "seekable") and stream.seekable():  # ASGI: already spooled
        meta["CONTENT_LENGTH"] = str(stream.seek(0, io.SEEK_END))
        stream.seek(0)


def tool_arguments(request: Request, what: str = "the tool's arguments") -> dict:
    """The body as the JSON object of a tool's arguments (or of ``what``);
    InvalidArguments (400) or DocumentTooLarge (413) saying what is wrong with it."""
    try:
        arguments = request.data
    except RecursionError:
        raise InvalidArguments("the request body is nested too deeply") from None
    except ParseError as error:
        raise InvalidArguments(
            f"the request body must be a JSON object of {what}, sent with "
            f"Content-Type: application/json ({detail_text(error.detail)[:200]})"
        ) from None
    except RequestDataTooBig:
        raise DocumentTooLarge(
            "the request body is larger than this server accepts "
            f"(DATA_UPLOAD_MAX_MEMORY_SIZE = {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes)"
        ) from None
    if not isinstance(arguments, dict):
        raise InvalidArguments(f"the request body must be a JSON object of {what}")
    return arguments


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


def next_page_url(request: Request, cursor: str, value: object, limit: int) -> str:
    """The URL of the page after this one: the same query, with ``cursor`` at
    ``value`` (where the next page starts) and ``limit``."""
    query = request.query_params.copy()
    query[cursor] = str(value)
    query["limit"] = str(limit)
    return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")


def page_limit(request: Request, default: int, most: int) -> int:
    """The ``limit`` parameter of a list: 1 to ``most``, ``default`` when absent."""
    limit = non_negative_integer("limit", single_query_value(request, "limit", str(default)))
    if not 1 <= limit <= most:
        raise InvalidArguments(f"limit must be from 1 to {most}, got {limit}")
    return limit
