"""Django's private request attributes, for sizing a chunked request body.

Written against Django 5.2 (checked on 5.2.19). Relies on:

- ``HttpRequest._stream``: the stream ``HttpRequest.read()`` reads the body
  from. ``WSGIRequest`` sets it to a ``LimitedStream`` over ``wsgi.input``,
  cut at ``CONTENT_LENGTH`` (0 when absent: a chunked body reads as empty);
  ``ASGIRequest`` sets it to the body, spooled to a seekable file.

No public API replaces a request's body stream once the request is built.
``tests/app/test_internals.py`` checks each of these on the installed Django.
"""

from typing import BinaryIO, cast

from django.core.handlers.wsgi import LimitedStream
from django.http import HttpRequest


def body_stream(request: HttpRequest) -> BinaryIO:
    """The stream the body of ``request`` is read from (private: see the module's docstring)."""
    return request._stream


def replace_body_stream(request: HttpRequest, stream: LimitedStream) -> None:
    """Make ``request`` read its body from ``stream``, before anything has read it
    (private: see the module's docstring). Django only calls ``read()`` and
    ``readline()`` on it, which a LimitedStream has."""
    request._stream = cast(BinaryIO, stream)
