"""The body of a request to the API: sized when sent chunked (every view does
it first, ``view_defaults.WorkspaceView``), read as the JSON object of a
tool's arguments (or of an endpoint's fields), bounded by DATA_UPLOAD_MAX_MEMORY_SIZE."""

import io

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.handlers.wsgi import LimitedStream
from django.http import HttpRequest
from rest_framework.exceptions import ParseError
from rest_framework.request import Request

from .exceptions import DocumentTooLarge, InvalidArguments
from .failures import detail_text
from .internals.django import body_stream, replace_body_stream


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
