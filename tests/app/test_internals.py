"""workspace.internals: each quarantine module's reaches into a library still
find what they rely on in the installed version; these fail loudly when an
upgrade takes any of it away. (One section per library; helpers of other
libraries add theirs below.)"""

import asyncio
import inspect
import io
import tempfile
import time
from contextvars import ContextVar
from unittest import mock

import jwt
import pytest
from asgiref.sync import SyncToAsync, ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.core.handlers.wsgi import LimitedStream, WSGIRequest
from django.test import RequestFactory

# django-eventstream (workspace/internals/django_eventstream.py)


def test_django_eventstream_has_every_name_the_quarantine_imports():
    from workspace.internals import django_eventstream

    for name in django_eventstream.__all__:
        assert getattr(django_eventstream, name, None) is not None, name


def test_django_eventstream_storage_and_encoding_keep_their_signatures():
    from django_eventstream import storage, utils

    assert list(inspect.signature(storage.EventDoesNotExist).parameters) == ["message", "current_id"]
    assert {"get_events", "get_current_id", "append_event"} <= set(vars(storage.StorageBase))
    assert {"event_type", "data", "event_id", "escape", "json_encode"} <= set(
        inspect.signature(utils.sse_encode_event).parameters
    )
    assert {"condition", "text", "extra"} <= set(inspect.signature(utils.sse_encode_error).parameters)
    assert list(inspect.signature(utils.add_default_headers).parameters) == ["headers", "request"]


def test_django_eventstream_listener_manager_has_what_starting_and_replacing_the_listener_use():
    from django_eventstream.views import RedisListener, get_listener_manager

    manager = get_listener_manager()
    for attribute in ("redis_listener", "lock", "redis_listener_started", "start_redis_listener"):
        assert hasattr(manager, attribute), attribute
    assert "self.redis_client" in inspect.getsource(RedisListener.__init__)
    assert "self.listen()" in inspect.getsource(RedisListener.start)


def test_the_replaced_redis_listener_runs_ours_with_the_librarys_client(settings):
    from workspace.internals.django_eventstream import _ReplacedRedisListener

    settings.EVENTSTREAM_REDIS = {"host": "127.0.0.1", "port": 6379}
    heard = []

    async def listen(client):
        heard.append(client)

    listener = _ReplacedRedisListener(listen)
    asyncio.run(listener.start())  # builds no connection until used
    assert heard == [listener.redis_client]


def test_grip_items_are_what_django_eventstreams_own_publish_event_publishes():
    from django_eventstream import utils

    from workspace.internals.django_eventstream import Event, grip_item

    with mock.patch("django_grip.publish") as publish:
        utils.publish_event("workspace.thread.a b", "document", {"n": 1}, "7", "6")
    (channel, formats), kwargs = publish.call_args
    ours = grip_item(Event("workspace.thread.a b", "document", {"n": 1}, id=7), 6)
    assert ours["channel"] == channel
    assert (ours["id"], ours["prev-id"]) == (kwargs["id"], kwargs["prev_id"])
    assert ours["formats"]["http-stream"] == formats.export()


def test_the_links_django_eventstream_signs_name_the_user_we_read(settings):
    from workspace.internals.django_eventstream import link_user_key

    meta = {"iss": "es", "exp": int(time.time()) + 3600, "channels": [], "user": "42"}
    assert link_user_key(jwt.encode(meta, settings.SECRET_KEY.encode("utf-8"))) == "42"
    source = inspect.getsource(__import__("django_eventstream.eventresponse").eventresponse)
    assert '"user": user_id' in source and '"exp"' in source and 'params["es-meta"]' in source


# asgiref (workspace/internals/asgiref.py)


def test_asgiref_keeps_a_thread_executor_per_thread_sensitive_context():
    assert isinstance(SyncToAsync.thread_sensitive_context, ContextVar)
    assert hasattr(SyncToAsync.context_to_thread_executor, "pop")


def test_ending_the_request_thread_shuts_its_executor_down():
    from workspace.internals.asgiref import end_request_thread

    async def main():
        async with ThreadSensitiveContext():
            await sync_to_async(lambda: None)()  # the request's thread, as Django's handler would use it
            context = SyncToAsync.thread_sensitive_context.get()
            executor = SyncToAsync.context_to_thread_executor[context]
            end_request_thread()
            assert context not in SyncToAsync.context_to_thread_executor
            with pytest.raises(RuntimeError):  # shut down
                executor.submit(lambda: None)
            await sync_to_async(lambda: None)()  # a later step gets a new thread

    asyncio.run(main())


# mcp (workspace/internals/mcp.py)


def test_an_mcp_server_session_keeps_its_connection_in_connection():
    pytest.importorskip("mcp")
    from mcp.server.session import ServerSession

    from workspace.internals.mcp import connection_of

    assert "connection" in inspect.signature(ServerSession.__init__).parameters
    assert "self._connection = connection" in inspect.getsource(ServerSession.__init__)
    session = ServerSession.__new__(ServerSession)
    session._connection = connection = object()
    assert connection_of(session) is connection


def test_an_mcp_session_manager_keeps_its_sessions_transports_by_id():
    pytest.importorskip("mcp")
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    from workspace.internals.mcp import session_transports

    assert "self._server_instances[session_id] = http_transport" in inspect.getsource(
        StreamableHTTPSessionManager._admit_session
    )
    assert callable(StreamableHTTPServerTransport.close_standalone_sse_stream)
    manager = StreamableHTTPSessionManager.__new__(StreamableHTTPSessionManager)
    manager._server_instances = {"a": (transport := object())}
    assert session_transports(manager) == [transport]


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
