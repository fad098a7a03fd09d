"""Django's private request attributes, for sizing a chunked request body.

Written against Django 5.2 (checked on 5.2.19). Relies on:

- ``HttpRequest._stream``: the stream ``HttpRequest.read()`` reads the body
  from. ``WSGIRequest`` sets it to a ``LimitedStream`` over ``wsgi.input``,
  cut at ``CONTENT_LENGTH`` (0 when absent: a chunked body reads as empty);
  ``ASGIRequest`` sets it to the body, spooled to a seekable file.

No public API replaces a request's body stream once the request is built.
``tests/test_internals.py`` checks each of these on the installed Django.
"""

from typing import IO, Any

from django.http import HttpRequest


def body_stream(request: HttpRequest) -> Any:
    """The stream the body of ``request`` is read from."""
    return request._stream  # type: ignore[attr-defined]  # private: see the module's docstring


def replace_body_stream(request: HttpRequest, stream: IO[bytes]) -> None:
    """Make ``request`` read its body from ``stream``, before anything has read it."""
    request._stream = stream  # type: ignore[attr-defined]  # private: see the module's docstring
