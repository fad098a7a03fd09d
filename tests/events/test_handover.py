"""workspace.events.handover: Django opens a stream and is done; the wrapper sends it until the client leaves.

(The streams themselves, through this wrapper and without it, are tested live in test_events.py.)
"""

import asyncio

import pytest

from workspace.events import handover
from workspace.events.handover import SCOPE_KEY, hold_streams

SCOPE = {"type": "http", "method": "GET", "path": "/api/workspace/threads/t/events/"}


def run(inner, disconnect_after: int | None = None, scope=SCOPE):
    """Call the wrapped ``inner`` as a server would; the client leaves after
    receiving ``disconnect_after`` body chunks (None: it stays)."""
    sent, log = [], []

    async def main():
        left = asyncio.Event()

        async def receive():
            await left.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)
            bodies = [m for m in sent if m["type"] == "http.response.body"]
            if disconnect_after is not None and len(bodies) >= disconnect_after:
                left.set()

        await asyncio.wait_for(hold_streams(inner(log))(scope, receive, send), timeout=5)

    asyncio.run(main())
    return sent, log


def stream_view(chunks, endless=False, status=200):
    """An inner application that answers as the stream view does behind the wrapper."""

    def inner(log):
        async def body():
            try:
                for chunk in chunks:
                    log.append(f"sends {chunk.decode()}")
                    yield chunk
                while endless:
                    await asyncio.sleep(0.01)
            finally:
                log.append("body closed")

        async def app(scope, receive, send):
            scope[SCOPE_KEY].body = body()
            headers = [(b"content-type", b"text/event-stream")]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            log.append("django done")

        return app

    return inner


def test_the_stream_is_sent_after_django_is_done_and_then_ends():
    sent, log = run(stream_view([b"one", b"two"]))
    assert log == ["django done", "sends one", "sends two", "body closed"]
    assert [m["type"] for m in sent] == ["http.response.start", *["http.response.body"] * 3]
    assert [(m["body"], m["more_body"]) for m in sent[1:]] == [(b"one", True), (b"two", True), (b"", False)]


def test_a_client_that_leaves_ends_the_stream_and_closes_its_body():
    sent, log = run(stream_view([b"one"], endless=True), disconnect_after=1)
    assert log == ["django done", "sends one", "body closed"]
    assert sent[-1]["body"] == b"one"  # nothing more was sent to the client that left


def test_other_requests_and_answers_pass_through_unchanged():
    def inner(log):
        async def app(scope, receive, send):
            log.append(SCOPE_KEY in scope)
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"no", "more_body": False})

        return app

    document = {**SCOPE, "path": "/api/workspace/threads/t/document/"}
    for scope, handed_a_handover in ((SCOPE, [True]), (document, [False])):
        sent, log = run(inner, scope=scope)
        assert log == handed_a_handover
        assert sent[-1] == {"type": "http.response.body", "body": b"no", "more_body": False}


def test_a_stream_django_did_not_answer_with_200_is_not_sent_but_its_body_is_closed():
    """A middleware that failed after the view: Django's 500 reaches the client whole, and the
    body's cleanup (which frees the user's stream slot) runs."""
    sent, log = run(stream_view([b"opening", b"event"], status=500))
    assert [(m.get("status"), m.get("body"), m.get("more_body")) for m in sent] == [
        (500, None, None),
        (None, b"", False),
    ]
    assert log == ["django done", "sends opening", "body closed"]


def test_the_old_name_streams_still_wraps_the_application_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="hold_streams"):
        streams = handover.streams
    assert streams is hold_streams


def test_the_lifespan_django_refuses_is_answered_and_never_reaches_django():
    messages = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
    sent = []

    async def django(scope, receive, send):
        raise AssertionError("Django refuses the lifespan")

    async def receive():
        return next(messages)

    async def send(message):
        sent.append(message["type"])

    asyncio.run(asyncio.wait_for(hold_streams(django)({"type": "lifespan"}, receive, send), timeout=5))
    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
