"""workspace.internals: each quarantine module's reaches into a library still
find what they rely on in the installed version; these fail loudly when an
upgrade takes any of it away. (One section per library; helpers of other
libraries add theirs below.)"""

import io
import tempfile

from django.core.handlers.asgi import ASGIRequest
from django.core.handlers.wsgi import LimitedStream, WSGIRequest
from django.test import RequestFactory

# Django (workspace/internals/django.py): a request's body stream


def test_a_wsgi_request_reads_its_body_from_the_stream_the_quarantine_replaces():
    from workspace.internals.django import body_stream, replace_body_stream

    request = RequestFactory().post("/", b"", content_type="application/json")
    assert isinstance(request, WSGIRequest)
    assert isinstance(body_stream(request), LimitedStream)
    replace_body_stream(request, LimitedStream(io.BytesIO(b'{"a": 1}'), 8))
    assert request.body == b'{"a": 1}'


def test_an_asgi_request_holds_its_spooled_body_as_the_stream_the_quarantine_reads():
    from workspace.internals.django import body_stream

    scope = {"type": "http", "method": "POST", "path": "/", "headers": [], "query_string": b""}
    with tempfile.SpooledTemporaryFile() as body_file:
        body_file.write(b"{}")
        body_file.seek(0)
        request = ASGIRequest(scope, body_file)
        assert body_stream(request) is body_file
        assert request.body == b"{}"
