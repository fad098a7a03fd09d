"""Live drafts on the thread's stream, through real server processes:
uvicorn holding the streams, and Pushpin holding them in front of gunicorn;
and one draft's pieces sent alternately to two processes joined by Redis."""

import io
import json
import time

import pytest

from tests.support import start_stream_server
from tests.support.live import EventStream, Server

pytestmark = pytest.mark.django_db(transaction=True)

WHY = "Live drafts test."
CONTENT = "# Plan\n\n" + "".join(f'{n}. caf\u00e9 \U0001f600 "step" \\ {n}\n' for n in range(40))
ARGUMENTS = json.dumps({"title": "The plan", "content": CONTENT, "action_and_reasoning": WHY})


@pytest.fixture(scope="module")
def server(stream_server):
    return stream_server


def subscribe(server, token, thread_id) -> EventStream:
    stream = EventStream(server, f"/api/workspace/threads/{thread_id}/events/", {"Authorization": f"Token {token}"})
    assert stream.status == 200, getattr(stream, "body", b"")
    stream.next("stream-open")
    return stream


def send(server, token, thread_id, call_id, delta, tool="update_document"):
    status, body = server.request(
        "POST",
        f"/api/workspace/threads/{thread_id}/drafts/{call_id}/",
        token,
        json.dumps({"tool": tool, "delta": delta}),
    )
    assert status == 202, body
    return body


def in_pieces(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


def follow(stream: EventStream, call_id: str, until: str, text: str = "", timeout: float = 20) -> str:
    """Apply the draft's events in order, asserting each starts where the text
    so far ends (no gap, no repeat), until the text is ``until``."""
    deadline = time.monotonic() + timeout
    while text != until:
        data = stream.next("draft", max(0.1, deadline - time.monotonic())).json()
        assert data["call_id"] == call_id
        assert data["offset"] == len(text), (data["offset"], len(text))
        text += data["delta"]
        assert until.startswith(text)
    return text


def test_viewers_watch_a_draft_grow_then_the_document_then_its_end(server, token):
    stream = subscribe(server, token, "live-1")
    for piece in in_pieces(ARGUMENTS, 13):
        send(server, token, "live-1", "call_1", piece)
    follow(stream, "call_1", CONTENT)
    status, body = server.request(
        "POST", "/api/workspace/threads/live-1/tools/update_document/", token, ARGUMENTS, {"Draft-Id": "call_1"}
    )
    assert status == 200, body
    order = [event for event in stream.until("draft-end") if event.type in ("document", "draft", "draft-end")]
    order += [event for event in stream.quiet(None, 0.5) if event.type != "keep-alive"]
    assert [event.type for event in order] == ["document", "draft-end"]
    document, end = order[0].json(), order[1].json()
    assert document["content"] == CONTENT
    assert end == {"call_id": "call_1", "outcome": "committed", "version": document["version"]}
    stream.close()


def test_a_viewer_opening_mid_draft_first_gets_the_text_so_far(server, token):
    pieces = in_pieces(ARGUMENTS, 40)
    half = len(pieces) // 2
    for piece in pieces[:half]:
        send(server, token, "live-2", "call_2", piece)
    shown = json.loads(ARGUMENTS[: sum(map(len, pieces[:half]))] + '"}')["content"]
    stream = subscribe(server, token, "live-2")
    first = stream.next("draft").json()
    assert first["offset"] == 0 and first["delta"] == shown and first["title"] == "The plan"
    for piece in pieces[half:]:
        send(server, token, "live-2", "call_2", piece)
    follow(stream, "call_2", CONTENT, shown)
    stream.close()
    again = subscribe(server, token, "live-2")  # a reopened stream starts again from the whole text
    assert again.next("draft").json()["delta"] == CONTENT
    again.close()


def test_cancelled_failed_and_ended_drafts_end_on_the_stream_and_are_not_replayed(server, token):
    stream = subscribe(server, token, "live-3")
    send(server, token, "live-3", "a", '{"content": "first')
    assert stream.next("draft").json()["call_id"] == "a"
    send(server, token, "live-3", "b", '{"text": "second', tool="append_to_document")
    assert stream.next("draft").json()["call_id"] == "b"  # a draft no viewer saw ends unseen too
    assert server.request("DELETE", "/api/workspace/threads/live-3/drafts/a/", token)[0] == 204
    status, _ = server.request(
        "POST", "/api/workspace/threads/live-3/tools/append_to_document/", token, '{"text": "x"}', {"Draft-Id": "b"}
    )
    assert status == 400  # no action_and_reasoning: the call fails, and its draft with it
    ends = {event.json()["call_id"]: event.json() for event in stream.collect(2, "draft-end")}
    assert ends == {
        "a": {"call_id": "a", "outcome": "cancelled", "version": None},
        "b": {"call_id": "b", "outcome": "failed", "version": None},
    }
    stream.close()
    later = subscribe(server, token, "live-3")
    assert [event.type for event in later.quiet(None, 1.5) if event.type.startswith("draft")] == []
    later.close()


def test_several_drafts_of_a_thread_each_in_order(server, token):
    stream = subscribe(server, token, "live-4")
    texts = {"x": json.dumps({"text": "one " * 60}), "y": json.dumps({"text": "two " * 60})}
    pieces = {call: in_pieces(text, 9) for call, text in texts.items()}
    for step in range(max(map(len, pieces.values()))):
        for call, parts in pieces.items():
            if step < len(parts):
                send(server, token, "live-4", call, parts[step], tool="append_to_document")
    shown = {"x": "", "y": ""}
    deadline = time.monotonic() + 20
    while shown != {"x": "one " * 60, "y": "two " * 60}:
        data = stream.next("draft", max(0.1, deadline - time.monotonic())).json()
        assert data["offset"] == len(shown[data["call_id"]])
        shown[data["call_id"]] += data["delta"]
    stream.close()


@pytest.mark.parametrize("kind", ["uvicorn", "pushpin"], ids=["uvicorn", "through Pushpin"])
def test_a_piece_of_many_events_reaches_every_viewer_whole_in_order(django_db_setup, token, kind):
    server = start_stream_server(kind, WORKSPACE_EVENT_MAX_CHARS="1000")
    try:
        stream = subscribe(server, token, "live-long")
        send(server, token, "live-long", "long", '{"content": "start ')
        follow(stream, "long", "start ")
        big = "".join(f"{n:05d} " for n in range(20_000))  # 120,000 characters: 120 events, pages of 33 and less
        send(server, token, "live-long", "long", big)
        send(server, token, "live-long", "long", "end")
        follow(stream, "long", "start " + big + "end", "start ", timeout=60)
        stream.close()
    finally:
        server.stop()


def test_drafts_expire_on_the_server_after_the_timeout(django_db_setup, token):
    server = start_stream_server("uvicorn", WORKSPACE_DRAFT_TIMEOUT="1")
    try:
        stream = subscribe(server, token, "live-5")
        send(server, token, "live-5", "late", '{"content": "half')
        stream.next("draft")
        end = stream.next("draft-end", timeout=10).json()
        assert end == {"call_id": "late", "outcome": "expired", "version": None}
        stream.close()
    finally:
        server.stop()


def test_one_drafts_pieces_alternately_to_two_processes_joined_by_redis(django_db_setup, token, redis):
    first, second = Server(REDIS_URL=redis.url), Server(REDIS_URL=redis.url)
    try:
        viewers = [subscribe(first, token, "live-6"), subscribe(second, token, "live-6")]
        for number, piece in enumerate(in_pieces(ARGUMENTS, 11)):
            send((first, second)[number % 2], token, "live-6", "two_processes", piece)
        for viewer in viewers:
            follow(viewer, "two_processes", CONTENT)
            viewer.close()
    finally:
        first.stop()
        second.stop()


def test_the_demo_command_plays_a_model_stream_as_a_draft_then_commits_it(django_db_setup, token, user):
    from django.core.management import call_command

    from project.management.commands.demo_draft import TEXT

    server = start_stream_server("uvicorn")
    try:
        stream = subscribe(server, token, "demo")
        call_command("demo_draft", server=server.url, username=user.username, pace=0, stdout=io.StringIO())
        call_id = stream.next("draft").json()["call_id"]
        events = [event for event in stream.until("draft-end") if event.type in ("draft", "document", "draft-end")]
        assert [event.type for event in events[-2:]] == ["document", "draft-end"]
        assert [event for event in stream.quiet(None, 0.5) if event.type != "keep-alive"] == []
        assert events[-2].json()["content"] == TEXT.read_text()
        assert events[-1].json() == {"call_id": call_id, "outcome": "committed", "version": 1}
        assert len([event for event in events if event.type == "draft"]) >= 1
    finally:
        server.stop()
