"""Live document events through real server processes, read as a browser would: the
tests taking ``server`` run twice, with uvicorn holding the streams and with
Pushpin holding them in front of gunicorn."""

import contextlib
import json
import os
import random
import signal
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support import require_pushpin, requires_postgresql, start_stream_server, stored
from tests.support.live import EventStream, PushpinServer, Server, process_tree
from tests.support.tools import FailingTools
from workspace.documents.repository import WorkspaceRepository
from workspace.events import artifact_channel, draft_channel
from workspace.events import document_channel as channel_for
from workspace.models import WorkingDocument
from workspace.tools import DocumentTools, workspace_tool

pytestmark = pytest.mark.django_db(transaction=True)

WHY = "Live events test."
# What a document event of a change applied directly (not a proposal accepted) says of review.
NOT_REVIEWED = {"review": False, "reviewed_by": None, "proposal": None}


@pytest.fixture(scope="module")
def server(every_stream_server):
    return every_stream_server


def subscribe(server, token, thread_id, **headers) -> EventStream:
    stream = EventStream(
        server, f"/api/workspace/threads/{thread_id}/events/", {"Authorization": f"Token {token}", **headers}
    )
    assert stream.status == 200, getattr(stream, "body", b"")
    stream.next("stream-open")
    return stream


def last_event_id(server, token, thread_id) -> str:
    """Subscribe, append once, and leave: the id a reconnecting client sends back."""
    stream = subscribe(server, token, thread_id)
    server.call(token, thread_id, "append_to_document", text="1", action_and_reasoning=WHY)
    event_id = stream.next().id
    stream.close()
    return event_id


def rebuild(events) -> str:
    content = ""
    for data in sorted((event.json() for event in events), key=lambda data: data["version"]):
        content = content + data["text"] if data["op"] == "append" else data["content"]
    return content


def test_each_op_sends_its_event(server, token):
    stream = subscribe(server, token, "ops")
    server.call(token, "ops", "update_document", content="# Plan\n", title="Plan", action_and_reasoning=WHY)
    server.call(token, "ops", "append_to_document", text="- step 😀", action_and_reasoning=WHY)

    update, append = stream.collect(2)
    assert update.json() == {
        "thread_id": "ops",
        "version": 1,
        "op": "update",
        "revision_op": "update",
        "title": "Plan",
        "length": 7,
        "content": "# Plan\n",
        "actor": "agent-owner",
        "source": "agent",
        "tool": "update_document",
        "action_and_reasoning": WHY,
        **NOT_REVIEWED,
    }
    assert append.json() == {
        "thread_id": "ops",
        "version": 2,
        "op": "append",
        "revision_op": "append",
        "title": "Plan",
        "length": 15,
        "text": "- step 😀",
        "actor": "agent-owner",
        "source": "agent",
        "tool": "append_to_document",
        "action_and_reasoning": WHY,
        **NOT_REVIEWED,
    }
    # Ids are opaque: each names the thread's channels, and they grow.
    ids = [dict(part.rsplit(":", 1) for part in event.id.split(",")) for event in (update, append)]
    assert all(set(id_) == {channel_for("ops"), artifact_channel("ops"), draft_channel("ops")} for id_ in ids)
    assert int(ids[0][channel_for("ops")]) < int(ids[1][channel_for("ops")])
    stream.close()


def test_replaying_the_events_rebuilds_the_stored_content(server, token):
    stream = subscribe(server, token, "mix")
    rng = random.Random(3)
    for step in range(40):
        if rng.random() < 0.25:
            server.call(token, "mix", "update_document", content=f"reset {step}\n", action_and_reasoning=WHY)
        else:
            server.call(
                token,
                "mix",
                "append_to_document",
                text=f"line {step} {'é' * rng.randint(0, 5)}\n",
                action_and_reasoning=WHY,
            )

    events = stream.collect(40)
    status, document = server.request("GET", "/api/workspace/threads/mix/document/", token)
    assert [event.json()["version"] for event in events] == list(range(1, 41))
    assert rebuild(events) == document["content"]
    assert events[-1].json()["length"] == document["length"]
    stream.close()


def test_a_failed_call_sends_nothing_and_document_tools_send_no_artifact(server, token):
    stream = subscribe(server, token, "fail")
    server.call(token, "fail", "append_to_document", text="ok", action_and_reasoning=WHY)
    assert stream.next().json()["version"] == 1

    failure = server.call(token, "fail", "append_to_document", text=5, action_and_reasoning=WHY)
    too_big = server.call(token, "fail", "update_document", content="x" * 1_000_001, action_and_reasoning=WHY)
    assert failure["success"] is False and too_big["success"] is False
    assert stream.quiet(seconds=1) == []

    server.call(token, "fail", "append_to_document", text="!", action_and_reasoning=WHY)
    assert stream.next().json()["version"] == 2
    assert stream.quiet("artifact", seconds=0.5) == []
    stream.close()


def test_an_artifact_is_sent_after_commit_and_a_rolled_back_call_sends_nothing(server, token):
    seen = last_event_id(server, token, "art")

    # Written in this process: no live fan-out without Redis, so the
    # reconnect with Last-Event-ID replays what the storage holds.
    assert FailingTools("art").append_then_crash(text="lost", action_and_reasoning=WHY)["success"] is False
    assert FailingTools("art").make_chart(points=[3, 1], action_and_reasoning=WHY)["success"] is True
    DocumentTools("art").append_to_document(text="b", action_and_reasoning=WHY)

    replay = subscribe(server, token, "art", **{"Last-Event-ID": seen})
    # Artifacts and document changes are two channels of the stream: each in
    # order, in no set order between them.
    missed = [event for event in replay.quiet(event_type=None, seconds=1) if event.type in ("artifact", "document")]
    assert sorted((event.type, event.data) for event in missed) == [
        ("artifact", '{"tool": "make_chart", "artifact": {"kind": "chart", "points": [3, 1]}}'),
        (
            "document",
            '{"thread_id": "art", "version": 2, "op": "append", "revision_op": "append", "title": "", "length": 2, '
            '"text": "b", '
            f'"actor": null, "source": "agent", "tool": "append_to_document", "action_and_reasoning": "{WHY}", '
            '"review": false, "reviewed_by": null, "proposal": null}',
        ),
    ]
    replay.close()


@pytest.mark.parametrize("kind", ["uvicorn", "pushpin"])
def test_artifacts_arrive_live_in_order(token, kind):
    server = start_stream_server(kind, DJANGO_SETTINGS_MODULE="tests.server_settings")
    try:
        stream = subscribe(server, token, "charts")
        for points in ([1], [2, 3]):
            assert server.call(token, "charts", "make_chart", points=points, action_and_reasoning=WHY)["success"]
        first, second = stream.collect(2, event_type="artifact")
        assert first.json() == {"tool": "make_chart", "artifact": {"kind": "chart", "points": [1]}}
        assert second.json()["artifact"]["points"] == [2, 3]
        ids = [dict(part.rsplit(":", 1) for part in event.id.split(",")) for event in (first, second)]
        assert int(ids[0][artifact_channel("charts")]) < int(ids[1][artifact_channel("charts")])
        assert stream.quiet(event_type="artifact", seconds=1) == []
        stream.close()
    finally:
        server.stop()


def test_reconnecting_with_last_event_id_delivers_what_was_missed(server, token):
    seen = last_event_id(server, token, "gap")
    for text in ("2", "3", "4"):
        server.call(token, "gap", "append_to_document", text=text, action_and_reasoning=WHY)

    again = subscribe(server, token, "gap", **{"Last-Event-ID": seen})
    missed = again.collect(3)
    assert [(event.json()["version"], event.json()["text"]) for event in missed] == [(2, "2"), (3, "3"), (4, "4")]
    assert again.quiet(seconds=0.5) == []
    again.close()


def test_proposals_arrive_live_but_a_reconnecting_client_is_not_sent_them_again(server, token):
    seen = last_event_id(server, token, "proposals")
    WorkspaceRepository.set_review("proposals", True, actor="alice")
    # In this process: stored, not fanned out, so only the reconnect below reads them.
    DocumentTools("proposals").update_document(content="proposed while away", action_and_reasoning=WHY)
    proposal = WorkspaceRepository.open_proposals("proposals")[0][0]
    WorkspaceRepository.decide_proposal("proposals", proposal, "none", actor="alice")
    assert FailingTools("proposals").make_chart(points=[5], action_and_reasoning=WHY)["success"] is True

    again = subscribe(server, token, "proposals", **{"Last-Event-ID": seen})
    missed = [event for event in again.quiet(event_type=None, seconds=1) if event.type != "keep-alive"]
    assert [event.type for event in missed] == ["review", "artifact"]

    assert server.call(token, "proposals", "append_to_document", text="live", action_and_reasoning=WHY)["success"]
    (live,) = again.collect(1, event_type="proposal")
    assert (live.json()["op"], live.json()["hunks"][0]["new"]) == ("append", "live")
    again.close()


def test_a_last_event_id_since_pruned_gets_a_stream_reset(server, token):
    seen = last_event_id(server, token, "old")
    server.call(token, "old", "update_document", content="new", action_and_reasoning=WHY)
    # Every revision before the newest goes: the one the client saw among them.
    assert WorkspaceRepository.prune_revisions(timezone.now() + timedelta(minutes=1)) >= 1

    stream = subscribe(server, token, "old", **{"Last-Event-ID": seen})
    reset = stream.next("stream-reset")
    assert reset.json() == {"channels": [channel_for("old")]}
    stream.close()


def test_a_last_event_id_this_stream_never_gave_is_400(server, token):
    mine = last_event_id(server, token, "mine")
    theirs = last_event_id(server, token, "theirs")
    number = {channel: int(n) for channel, n in (part.rsplit(":", 1) for part in theirs.split(","))}
    artifacts = f"{artifact_channel('mine')}:0"
    never_given = [
        f"{artifacts},{channel_for('mine')}:{number[channel_for('theirs')]}",  # another thread's change
        f"{artifacts},{channel_for('mine')}:{number[channel_for('theirs')] + 1000}",  # no change yet
        f"{artifact_channel('mine')}:5,{channel_for('mine')}:0",  # no artifact yet
    ]
    for last_event_id_value in never_given:
        stream = EventStream(
            server,
            "/api/workspace/threads/mine/events/",
            {"Authorization": f"Token {token}", "Last-Event-ID": last_event_id_value},
        )
        assert stream.status == 400, last_event_id_value
        assert json.loads(stream.body)["error"].startswith("Last-Event-ID")
    # The id the stream gave is still good, and nothing was missed.
    server.call(token, "mine", "append_to_document", text="2", action_and_reasoning=WHY)
    stream = subscribe(server, token, "mine", **{"Last-Event-ID": mine})
    assert stream.next().json()["text"] == "2"
    stream.close()


def test_a_burst_of_500_appends_arrives_whole_in_order(server, token):
    stream = subscribe(server, token, "burst")
    for n in range(500):
        assert server.call(token, "burst", "append_to_document", text=f"{n},", action_and_reasoning=WHY)["success"]

    events = stream.collect(500, timeout=60)
    versions = [event.json()["version"] for event in events]
    assert versions == list(range(1, 501))
    assert rebuild(events) == "".join(f"{n}," for n in range(500))
    assert stream.quiet(seconds=0.5) == []
    stream.close()


def test_a_subscriber_that_falls_behind_recovers_every_event_from_storage(token):
    server = Server()
    try:
        stream = EventStream(
            server, "/api/workspace/threads/slow/events/", {"Authorization": f"Token {token}"}, paused=True
        )
        assert stream.status == 200
        for n in range(120):
            content = f"{n:03d}" + "x" * 60_000
            assert server.call(token, "slow", "update_document", content=content, action_and_reasoning=WHY)["success"]

        stream.resume()
        events = stream.collect(120, timeout=60)
        assert [event.json()["version"] for event in events] == list(range(1, 121))
        assert [event.json()["content"][:3] for event in events] == [f"{n:03d}" for n in range(120)]
        assert stream.quiet(seconds=0.5) == []
        stream.close()
    finally:
        server.stop()


@pytest.mark.parametrize(
    "writer_command", [Server.UVICORN, Server.GUNICORN], ids=["API on uvicorn", "API on gunicorn (WSGI)"]
)
def test_two_processes_share_events_through_redis(token, redis, writer_command):
    writer = Server(command=writer_command, REDIS_URL=redis.url)
    reader = Server(REDIS_URL=redis.url)
    try:
        stream = subscribe(reader, token, "fanout")
        writer.request("GET", "/api/workspace/tools/", token)  # a first request warms the writer up
        delays = []
        for n in range(5):
            started = time.monotonic()
            writer.call(token, "fanout", "append_to_document", text=f"{n}", action_and_reasoning=WHY)
            event = stream.next(timeout=1)
            delays.append(time.monotonic() - started)
            assert event.json()["version"] == n + 1
        assert max(delays) < 1
        stream.close()
    finally:
        writer.stop()
        reader.stop()


def assert_a_write_goes_on_beside_open_streams(server, token, thread_prefix: str, count: int) -> None:
    """Open ``count`` streams, then write: the write answers at once, and its event arrives."""
    streams = [subscribe(server, token, f"{thread_prefix}-{n}") for n in range(count)]
    started = time.monotonic()
    assert server.call(token, f"{thread_prefix}-0", "append_to_document", text="x", action_and_reasoning=WHY)["success"]
    assert time.monotonic() - started < 2
    assert streams[0].next(timeout=5).json()["version"] == 1
    for stream in streams:
        stream.close()


@requires_postgresql
def test_open_streams_do_not_hold_database_connections(token):
    server = Server(DATABASE_POOL_MAX_SIZE="2")
    try:
        assert_a_write_goes_on_beside_open_streams(server, token, "pool", count=6)
    finally:
        server.stop()


@pytest.mark.parametrize("authorization", [None, "Token 0000000000000000000000000000000000000000"])
def test_anonymous_subscribers_are_refused(server, authorization):
    stream = EventStream(
        server, "/api/workspace/threads/t/events/", {"Authorization": authorization} if authorization else {}
    )
    assert stream.status == 401
    assert b"workspace.thread" not in stream.body


@pytest.mark.parametrize(
    "last_event_id",
    [
        "workspace.thread.t:abc",
        "workspace.thread.t:1.5",
        "garbage",
        ":3",
        "workspace.thread.t:\u00b2",
        "workspace.thread.other:3",
        "workspace.thread.t:1,workspace.thread.t:2",
        "workspace.thread.t:" + "9" * 19,
        "error",
    ],
)
def test_a_malformed_last_event_id_is_400(server, token, last_event_id):
    stream = EventStream(
        server, "/api/workspace/threads/t/events/", {"Authorization": f"Token {token}", "Last-Event-ID": last_event_id}
    )
    assert stream.status == 400
    assert b"Last-Event-ID" in stream.body


@pytest.mark.parametrize(
    "path, headers",
    [
        ("?lastEventId=workspace.thread.t:1&lastEventId=workspace.thread.t:2", {}),
        ("?lastEventId=x:abc&lastEventId=", {}),
        ("?lastEventId=workspace.thread.t:1", {"Last-Event-ID": "workspace.thread.t:1"}),
    ],
)
def test_a_last_event_id_given_twice_is_400(server, token, path, headers):
    stream = EventStream(
        server, f"/api/workspace/threads/t/events/{path}", {"Authorization": f"Token {token}", **headers}
    )
    assert stream.status == 400
    assert b"once" in stream.body


@pytest.mark.parametrize("kind", ["uvicorn", "pushpin"])
def test_subscribers_the_policy_denies_are_refused(token, kind):
    server = start_stream_server(kind, WORKSPACE_ACCESS_POLICY="tests.http.test_access.only_thread_mine")
    try:
        denied = EventStream(server, "/api/workspace/threads/theirs/events/", {"Authorization": f"Token {token}"})
        assert denied.status == 403
        assert b"theirs" not in denied.body
        allowed = subscribe(server, token, "mine")
        allowed.close()
    finally:
        server.stop()


def test_a_bad_thread_id_is_400_on_the_stream(server, token):
    stream = EventStream(server, "/api/workspace/threads/a%2Fb/events/", {"Authorization": f"Token {token}"})
    assert stream.status == 400


def test_an_artifact_that_cannot_be_stored_as_an_event_fails_the_call_and_changes_nothing():
    class SetArtifactTools(FailingTools):
        @workspace_tool
        def tag_set(self, text: str) -> tuple[str, set]:
            """Write, then return an artifact that JSON cannot encode."""
            DocumentTools(self.thread_id).append_to_document(text=text, action_and_reasoning=WHY)
            return "tagged", {"a", "b"}

    envelope = SetArtifactTools("unsendable").tag_set(text="kept", action_and_reasoning=WHY)

    assert envelope == {"success": False, "error": "tag_set failed because of an error on the server"}
    assert stored("unsendable") is None


def test_streams_recover_what_was_sent_while_redis_was_down(token, redis):
    writer, reader = Server(REDIS_URL=redis.url), Server(REDIS_URL=redis.url)
    try:
        stream = subscribe(reader, token, "outage")
        writer.call(token, "outage", "append_to_document", text="1", action_and_reasoning=WHY)
        assert stream.next().json()["version"] == 1

        redis.stop()
        during = writer.call(token, "outage", "append_to_document", text="2", action_and_reasoning=WHY)
        assert during["success"] is True  # committed; only the fan-out failed
        redis.start()

        caught_up = stream.next(timeout=20)  # re-read from storage once resubscribed
        assert (caught_up.json()["version"], caught_up.json()["text"]) == (2, "2")
        writer.call(token, "outage", "append_to_document", text="3", action_and_reasoning=WHY)
        assert stream.next(timeout=5).json()["version"] == 3
        stream.close()
    finally:
        writer.stop()
        reader.stop()


def test_deployments_on_other_redis_databases_do_not_hear_each_other(token, redis):
    ours, theirs = Server(REDIS_URL=f"{redis.url}/1"), Server(REDIS_URL=f"{redis.url}/2")
    try:
        stream = subscribe(ours, token, "private")
        theirs.call(token, "private", "update_document", content="their secret", action_and_reasoning=WHY)
        assert stream.quiet(seconds=1) == []
        ours.call(token, "private", "append_to_document", text="!", action_and_reasoning=WHY)
        # Woken by its own change, the stream reads the database, which the
        # two deployments of this test happen to share.
        assert [event.json()["version"] for event in stream.collect(2)] == [1, 2]
        stream.close()
    finally:
        ours.stop()
        theirs.stop()


def test_artifact_events_older_than_a_day_are_deleted_and_recent_ones_kept():
    from datetime import timedelta

    from django.utils import timezone
    from django_eventstream.models import Event as StoredEvent

    from workspace.events import ThreadEventStorage, artifact_channel

    storage = ThreadEventStorage()
    storage.append_event(artifact_channel("old"), "artifact", {})
    StoredEvent.objects.filter(channel=artifact_channel("old")).update(created=timezone.now() - timedelta(hours=25))
    ThreadEventStorage._next_trim = timezone.now()  # a trim is due

    storage.append_event(artifact_channel("new"), "artifact", {})

    assert not StoredEvent.objects.filter(channel=artifact_channel("old")).exists()
    assert StoredEvent.objects.filter(channel=artifact_channel("new"), eid=1).exists()
    storage.append_event(artifact_channel("new"), "artifact", {})  # the next trim waits a minute
    assert StoredEvent.objects.filter(channel=artifact_channel("new")).count() == 3  # placeholder 0, 1, 2


def test_a_change_committed_by_a_process_that_died_before_announcing_it_is_replayed(token):
    first = Server(DJANGO_SETTINGS_MODULE="tests.server_settings")
    second = None
    try:
        seen = last_event_id(first, token, "crash")
        stream = subscribe(first, token, "crash")
        with contextlib.suppress(OSError):  # the process ended before it answered
            first.call(token, "crash", "append_then_die", text="2", action_and_reasoning=WHY)
        assert first.process.wait(timeout=10) == 17
        assert stored("crash")["content"] == "12"  # committed

        second = Server()
        again = subscribe(second, token, "crash", **{"Last-Event-ID": seen})
        event = again.next(timeout=5)
        assert (event.json()["version"], event.json()["text"]) == (2, "2")
        assert again.quiet(seconds=0.5) == []
        stream.close()
        again.close()
    finally:
        first.stop()
        if second:
            second.stop()


@pytest.mark.parametrize("outage", ["hung", "refused"])
def test_a_write_does_not_wait_for_redis_and_the_event_arrives_once_it_is_back(token, redis, outage):
    writer, reader = Server(command=Server.GUNICORN, REDIS_URL=redis.url), Server(REDIS_URL=redis.url)
    try:
        stream = subscribe(reader, token, "slow-redis")
        writer.call(token, "slow-redis", "append_to_document", text="1", action_and_reasoning=WHY)
        assert stream.next().json()["version"] == 1

        redis.pause() if outage == "hung" else redis.stop()
        timings = []
        for text in "234":
            started = time.monotonic()
            answer = writer.call(token, "slow-redis", "append_to_document", text=text, action_and_reasoning=WHY)
            timings.append(time.monotonic() - started)
            assert answer["success"] is True
        assert max(timings) < 1, timings
        assert stored("slow-redis")["content"] == "1234"
        redis.resume() if outage == "hung" else redis.start()

        caught_up = stream.collect(3, timeout=20)
        assert [event.json()["text"] for event in caught_up] == ["2", "3", "4"]
        stream.close()
    finally:
        writer.stop()
        reader.stop()


def test_an_event_too_large_to_carry_says_omitted(server, token):
    stream = subscribe(server, token, "large")
    server.call(token, "large", "update_document", content="z" * 70_000, action_and_reasoning=WHY)
    server.call(token, "large", "append_to_document", text="!", action_and_reasoning=WHY)

    update, append = stream.collect(2)
    assert update.json() == {
        "thread_id": "large",
        "version": 1,
        "op": "update",
        "revision_op": "update",
        "title": "",
        "length": 70_000,
        "omitted": True,
        "actor": "agent-owner",
        "source": "agent",
        "tool": "update_document",
        "action_and_reasoning": WHY,
        **NOT_REVIEWED,
    }
    assert append.json()["text"] == "!"
    stream.close()


def test_an_idempotent_replay_sends_no_second_event(server, token):
    stream = subscribe(server, token, "once")
    body = json.dumps({"text": "a", "action_and_reasoning": WHY})
    path = "/api/workspace/threads/once/tools/append_to_document/"
    first = server.request("POST", path, token, body, headers={"Idempotency-Key": "k"})
    retry = server.request("POST", path, token, body, headers={"Idempotency-Key": "k"})

    assert first == retry == (200, {"success": True, "summary": "appended (1 chars total)", "artifact": None})
    assert stream.next().json()["version"] == 1
    assert stream.quiet(seconds=1) == []
    stream.close()


def open_streams(server, token, count, thread_id="limited"):
    return [
        EventStream(server, f"/api/workspace/threads/{thread_id}-{n}/events/", {"Authorization": f"Token {token}"})
        for n in range(count)
    ]


def test_one_stream_more_than_a_user_may_hold_is_429_until_one_closes(token):
    server = Server(WORKSPACE_MAX_STREAMS_PER_USER="2")
    try:
        first, second, third = open_streams(server, token, 3)
        assert (first.status, second.status, third.status) == (200, 200, 429)
        assert b"WORKSPACE_MAX_STREAMS_PER_USER" in third.body
        assert third.response.getheader("Retry-After") == "5"
        first.close()
        deadline = time.monotonic() + 10
        while (again := open_streams(server, token, 1, "again")[0]).status == 429 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert again.status == 200
        second.close()
        again.close()
    finally:
        server.stop()


def test_the_stream_limit_holds_across_processes_with_redis(token, redis):
    one, other = (
        Server(REDIS_URL=redis.url, WORKSPACE_MAX_STREAMS_PER_USER="2"),
        Server(REDIS_URL=redis.url, WORKSPACE_MAX_STREAMS_PER_USER="2"),
    )
    try:
        streams = open_streams(one, token, 1, "a") + open_streams(other, token, 1, "b")
        assert [stream.status for stream in streams] == [200, 200]
        assert open_streams(one, token, 1, "c")[0].status == 429
        assert open_streams(other, token, 1, "d")[0].status == 429
        for stream in streams:
            stream.close()
    finally:
        one.stop()
        other.stop()


def send_chunked(server, token, method, path, chunks, **headers):
    """``chunks`` as a body sent with Transfer-Encoding: chunked (no Content-Length); the status and JSON answer."""
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.request(
        method,
        path,
        body=iter(chunks),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json", **headers},
        encode_chunked=True,
    )
    response = connection.getresponse()
    answer = response.read()
    return response.status, json.loads(answer) if answer else None


@pytest.mark.parametrize("command", [Server.UVICORN, Server.GUNICORN], ids=["uvicorn", "gunicorn"])
def test_a_chunked_body_is_read_within_the_same_size_limit(token, command):
    server = Server(command=command)

    def post_chunked(chunks):
        return send_chunked(server, token, "POST", "/api/workspace/threads/chunked/tools/append_to_document/", chunks)

    try:
        body = json.dumps({"text": "sent in chunks", "action_and_reasoning": WHY}).encode()
        assert post_chunked([body[:10], body[10:]]) == (
            200,
            {"success": True, "summary": "appended (14 chars total)", "artifact": None},
        )
        too_big = [b'{"text": "' + b"x" * 1_000_000 for _ in range(14)] + [b'", "action_and_reasoning": "x"}']
        status, envelope = post_chunked(too_big)
        assert status == 400 and "larger than this server accepts" in envelope["error"]
        assert stored("chunked")["content"] == "sent in chunks"
    finally:
        server.stop()


@pytest.mark.parametrize("command", [Server.UVICORN, Server.GUNICORN], ids=["uvicorn", "gunicorn"])
def test_every_endpoint_that_reads_a_json_body_takes_it_chunked(token, command):
    server = Server(command=command)
    threads = "/api/workspace/threads/chunked-all"

    def chunked(method, path, body, **headers):
        data = json.dumps(body).encode()
        return send_chunked(server, token, method, threads + path, [data[:7], data[7:]], **headers)

    try:
        piece = {"tool": "update_document", "delta": '{"content": "draft'}
        assert chunked("POST", "/drafts/c1/", piece) == (202, {"call_id": "c1", "received": 18})
        call = {"content": "draft\n", "action_and_reasoning": WHY}
        status, envelope = chunked("POST", "/tools/update_document/", call, **{"Draft-Id": "c1"})
        assert (status, envelope["success"]) == (200, True)
        edit = {"content": "a person's edit\n"}
        status, document = chunked("PUT", "/document/", edit, **{"If-Match": '"1"'})
        assert (status, document["content"], document["version"]) == (200, "a person's edit\n", 2)
    finally:
        server.stop()


def test_a_server_killed_during_a_burst_loses_and_repeats_nothing_for_a_subscriber_that_moves(token):
    first, second = Server(), Server()
    try:
        stream = subscribe(first, token, "moving")
        body = lambda n: json.dumps({"text": f"{n},", "action_and_reasoning": WHY})  # noqa: E731
        path = "/api/workspace/threads/moving/tools/append_to_document/"
        for n in range(250):
            assert first.request("POST", path, token, body(n), headers={"Idempotency-Key": f"k{n}"})[0] == 200
        first.process.kill()  # no goodbye: streams cut mid-flight
        first.process.wait()
        seen = stream.quiet(seconds=1)
        assert seen, "the subscriber heard nothing before the kill"
        for n in range(250, 500):
            assert second.request("POST", path, token, body(n), headers={"Idempotency-Key": f"k{n}"})[0] == 200

        resumed = subscribe(second, token, "moving", **{"Last-Event-ID": seen[-1].id})
        rest = resumed.collect(500 - len(seen), timeout=60)
        versions = [event.json()["version"] for event in seen + rest]
        assert versions == list(range(1, 501))
        assert rebuild(seen + rest) == "".join(f"{n}," for n in range(500)) == stored("moving")["content"]
        assert resumed.quiet(seconds=0.5) == []
        resumed.close()
    finally:
        first.stop()
        second.stop()


@pytest.fixture(scope="module")
def pushpin(django_db_setup):
    """Pushpin in front of gunicorn, with a secret key the tests know."""
    require_pushpin()
    server = PushpinServer(DJANGO_SECRET_KEY=SERVER_SECRET_KEY)
    yield server
    server.stop()


SERVER_SECRET_KEY = "a secret key of the test servers"


def stream_link_token(user, thread_id: str, secret_key: str = SERVER_SECRET_KEY, seconds_left: int = 3600) -> str:
    """An ``es-meta`` as django-eventstream signs into the links it gives Pushpin."""
    import jwt

    channels = [channel_for(thread_id), artifact_channel(thread_id)]
    claims = {"iss": "es", "exp": int(time.time()) + seconds_left, "channels": channels, "user": str(user.pk)}
    return jwt.encode(claims, secret_key)


def grip_signature(key: str) -> str:
    """A ``Grip-Sig`` as Pushpin signs the requests it forwards."""
    import jwt

    return jwt.encode({"iss": "pushpin", "exp": int(time.time()) + 3600}, key)


def forged_grip_signature() -> str:
    return grip_signature("a key that is not the one Pushpin signs with")


@pytest.mark.parametrize(
    "query, headers",
    [
        ("?recover=true", {}),
        ("?link=next", {}),
        ("?es-meta={link}", {}),
        ("?link=next&recover=true&es-meta={link}", {"Grip-Sig": "{forged}"}),
        ("?recover=true", {"Grip-Sig": "{forged}", "Grip-Last": "events-workspace.thread.grip; last-id=0"}),
    ],
)
def test_grip_parameters_not_signed_by_pushpin_are_refused(pushpin, user, token, query, headers):
    """Straight to the server behind Pushpin, or with a signature Pushpin did not make."""
    fill = {"link": stream_link_token(user, "grip"), "forged": forged_grip_signature()}
    stream = EventStream(
        pushpin.origin,
        "/api/workspace/threads/grip/events/" + query.format(**fill),
        {"Authorization": f"Token {token}", **{name: value.format(**fill) for name, value in headers.items()}},
    )
    assert stream.status == 400
    assert b"unsupported query parameter" in stream.body


def test_a_link_token_does_not_authenticate_anyone_without_pushpin(pushpin, user):
    stream = EventStream(
        pushpin.origin, f"/api/workspace/threads/grip/events/?es-meta={stream_link_token(user, 'grip')}", {}
    )
    assert stream.status == 401


@pytest.mark.parametrize("seconds_left, status", [(3600, 200), (-60, 401)], ids=["within its hour", "expired"])
def test_pushpin_recovering_a_stream_needs_a_link_within_its_hour(pushpin, user, seconds_left, status):
    """Pushpin's request for what a held stream missed, signed with the shared
    key: answered while its link lasts; refused once it has expired, so that
    Pushpin ends the stream and the browser reconnects with its credentials."""
    link = stream_link_token(user, "grip", seconds_left=seconds_left)
    stream = EventStream(
        pushpin.origin,
        f"/api/workspace/threads/grip/events/?link=next&recover=true&es-meta={link}",
        {"Grip-Sig": grip_signature(pushpin.key), "Grip-Last": f"events-{channel_for('grip')}; last-id=0"},
    )
    assert stream.status == status
    if status == 401:
        assert b"the stream's link is invalid or has expired; reconnect" in stream.body
    stream.close()


def test_a_stream_asked_of_the_server_behind_pushpin_says_where_streams_are_served(pushpin, token):
    stream = EventStream(pushpin.origin, "/api/workspace/threads/grip/events/", {"Authorization": f"Token {token}"})
    assert stream.status == 503
    assert b"Pushpin" in stream.body


def test_pushpin_recovers_from_storage_a_change_it_was_never_told_of(pushpin, token):
    stream = subscribe(pushpin, token, "unannounced")
    pushpin.call(token, "unannounced", "append_to_document", text="1", action_and_reasoning=WHY)
    assert stream.next().json()["version"] == 1

    DocumentTools("unannounced").append_to_document(text="2", action_and_reasoning=WHY)  # this process: no GRIP_URL
    assert stream.quiet(seconds=0.5) == []
    pushpin.call(token, "unannounced", "append_to_document", text="3", action_and_reasoning=WHY)

    events = stream.collect(2)
    assert [(event.json()["version"], event.json()["text"]) for event in events] == [(2, "2"), (3, "3")]
    assert stream.quiet(seconds=1.5) == []
    stream.close()


def test_streams_held_by_pushpin_hold_no_django_worker(pushpin, token):
    assert_a_write_goes_on_beside_open_streams(pushpin, token, "held", count=12)  # gunicorn has 2 sync workers


def test_a_write_does_not_wait_for_a_hung_pushpin_and_its_event_arrives_once_only_when_it_is_back(token):
    require_pushpin()
    server = PushpinServer(workers=1)  # one worker, warmed by the first write
    try:
        stream = subscribe(server, token, "hung-pushpin")
        server.call(token, "hung-pushpin", "append_to_document", text="1", action_and_reasoning=WHY)
        assert stream.next().json()["version"] == 1

        pushpin = process_tree(server.process.pid)
        for pid in pushpin:  # it still accepts connections, and never answers
            os.kill(pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            answer = server.origin.call(token, "hung-pushpin", "append_to_document", text="2", action_and_reasoning=WHY)
            elapsed = time.monotonic() - started
        finally:
            for pid in pushpin:
                os.kill(pid, signal.SIGCONT)
        assert answer["success"] is True
        assert elapsed < 1

        event = stream.next(timeout=15)  # published again once Pushpin answers
        assert (event.json()["version"], event.json()["text"]) == (2, "2")
        assert stream.quiet(seconds=2) == []
        stream.close()
    finally:
        server.stop()


def test_a_last_event_id_of_a_just_deleted_document_gets_a_stream_reset(server, token):
    # Its newest revision was the newest of all: no key above it says it was ever given.
    seen = last_event_id(server, token, "deleted")
    WorkingDocument.objects.filter(thread_id="deleted").delete()

    stream = subscribe(server, token, "deleted", **{"Last-Event-ID": seen})
    assert stream.next("stream-reset").json() == {"channels": [channel_for("deleted")]}
    server.call(token, "deleted", "append_to_document", text="anew", action_and_reasoning=WHY)
    anew = stream.next().json()  # the new document's first change: version 1 again
    assert (anew["version"], anew["content"]) == (1, "anew")
    stream.close()


def test_events_too_large_to_carry_say_omitted_live_and_on_replay(server, token):
    # Each layer that leaves a text out is checked: the database's (too many
    # characters) and the encoder's (few characters, but six each once escaped).
    seen = last_event_id(server, token, "omitted")
    stream = subscribe(server, token, "omitted", **{"Last-Event-ID": seen})
    control = "\x01" * 40_000  # within WORKSPACE_EVENT_MAX_CHARS, 240,000 characters as JSON
    server.call(token, "omitted", "update_document", content="z" * 70_000, action_and_reasoning=WHY)
    server.call(token, "omitted", "update_document", content=control, action_and_reasoning=WHY)
    server.call(token, "omitted", "append_to_document", text=control, action_and_reasoning=WHY)
    server.call(token, "omitted", "append_to_document", text="!", action_and_reasoning=WHY)
    live = stream.collect(4)
    stream.close()
    replay = subscribe(server, token, "omitted", **{"Last-Event-ID": seen})
    replayed = replay.collect(4)
    replay.close()

    common = {"thread_id": "omitted", "title": ""}
    by = {"actor": "agent-owner", "source": "agent", "action_and_reasoning": WHY, **NOT_REVIEWED}
    updated = {**by, "tool": "update_document", "revision_op": "update"}
    appended = {**by, "tool": "append_to_document", "revision_op": "append"}
    expected = [
        {**common, "version": 2, "op": "update", "length": 70_000, "omitted": True, **updated},
        {**common, "version": 3, "op": "update", "length": 40_000, "omitted": True, **updated},
        {**common, "version": 4, "op": "append", "length": 80_000, "omitted": True, **appended},
        {**common, "version": 5, "op": "append", "length": 80_001, "text": "!", **appended},
    ]
    assert [event.json() for event in live] == expected
    assert [event.json() for event in replayed] == expected


def test_with_redis_a_closed_stream_frees_its_slot_at_once(token, redis):
    """Not when it lapses a minute later: a release that missed its key would pass every other test."""
    server = Server(REDIS_URL=redis.url, WORKSPACE_MAX_STREAMS_PER_USER="2")
    try:
        first, second = open_streams(server, token, 2)
        assert (first.status, second.status, open_streams(server, token, 1, "full")[0].status) == (200, 200, 429)
        first.close()
        deadline = time.monotonic() + 10  # the server sees the close within a second or two
        while (again := open_streams(server, token, 1, "again")[0]).status == 429 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert again.status == 200, "the closed stream's slot was not released"
        second.close()
        again.close()
    finally:
        server.stop()


def test_a_session_cookie_user_shares_the_stream_limit_with_their_token(token, user):
    """The panel's streams (session cookie) and an agent's (token) are the same user's."""
    from django.test import Client

    browser = Client()
    browser.force_login(user)
    cookie = {"Cookie": f"sessionid={browser.cookies['sessionid'].value}"}
    server = Server(WORKSPACE_MAX_STREAMS_PER_USER="2")
    try:
        by_token = open_streams(server, token, 2)
        by_cookie = EventStream(server, "/api/workspace/threads/limited-cookie/events/", cookie)
        assert [stream.status for stream in by_token] == [200, 200]
        assert by_cookie.status == 429, "a session cookie opened streams past the user's limit"
        for stream in by_token:
            stream.close()
        deadline = time.monotonic() + 10
        while (by_cookie := EventStream(server, "/api/workspace/threads/limited-cookie/events/", cookie)).status == 429:
            assert time.monotonic() < deadline, "the token streams' slots were not released"
            time.sleep(0.2)
        assert by_cookie.status == 200
        by_token = open_streams(server, token, 2)
        assert [stream.status for stream in by_token] == [200, 429]  # one by cookie, one by token: full
        by_cookie.close()
        by_token[0].close()
    finally:
        server.stop()


def test_importing_the_events_modules_connects_nothing_and_install_connects_the_receivers():
    """The receivers are connected by ``events.install()`` (from ``AppConfig.ready``), not by an import."""
    import importlib

    from workspace import events
    from workspace.events import announce
    from workspace.signals import artifact_produced, document_changed

    try:
        assert document_changed.disconnect(dispatch_uid=announce.DOCUMENT_UID)  # connected at start-up
        assert artifact_produced.disconnect(dispatch_uid=announce.ARTIFACT_UID)
        for module in ("announce", "transports", "stream", "feed", "slots", "link_authentication"):
            importlib.reload(importlib.import_module(f"workspace.events.{module}"))
        assert not document_changed.disconnect(dispatch_uid=announce.DOCUMENT_UID)
        assert not artifact_produced.disconnect(dispatch_uid=announce.ARTIFACT_UID)
    finally:
        events.install()
    assert document_changed.disconnect(dispatch_uid=announce.DOCUMENT_UID)
    events.install()
