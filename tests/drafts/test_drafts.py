"""Live drafts over HTTP and from Python: the protocol, its bounds,
how a draft ends, and that drafts never become history. What viewers see
of them on the stream is in ``test_draft_events.py``."""

import json
import tracemalloc
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from tests.support import call_tool, requires_postgresql, run_concurrently, stored
from workspace.drafts import DraftWriter
from workspace.drafts import store as draft_store
from workspace.events import drafts as draft_events
from workspace.events.channels import draft_channel
from workspace.events.storage import ThreadEventStorage
from workspace.exceptions import TooManyDrafts
from workspace.models import Draft, DraftCounter, DraftPiece, Revision
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db
WHY = "Testing live drafts."
ARGUMENTS = json.dumps({"title": "Plan", "content": '# Plan\n\nStep one: caf\u00e9 \U0001f600 "quoted"\n'})


def post_piece(api, thread_id, call_id, delta, tool="update_document"):
    return api.post(
        f"/api/workspace/threads/{thread_id}/drafts/{call_id}/", {"tool": tool, "delta": delta}, format="json"
    )


def in_pieces(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


def text_so_far(thread_id: str) -> dict[str, str]:
    """Each open draft's text, rebuilt from its events as a client does."""
    texts: dict[str, str] = {}
    for event in draft_events.events_after(thread_id, 0):
        data = json.loads(event.data)
        if event.type == "draft":
            texts[data["call_id"]] = texts.get(data["call_id"], "")[: data["offset"]] + data["delta"]
    return texts


def test_pieces_are_answered_with_what_was_received_and_shown_as_the_field_text(api):
    received = 0
    for piece in in_pieces(ARGUMENTS, 7):
        answer = post_piece(api, "t1", "call_1", piece)
        received += len(piece)
        assert answer.status_code == 202, answer.content
        assert answer.json() == {"call_id": "call_1", "received": received}
    assert text_so_far("t1") == {"call_1": json.loads(ARGUMENTS)["content"]}
    event = draft_events.events_after("t1", 0)[-1]
    data = json.loads(event.data)
    assert data["title"] == "Plan" and data["actor"] == "agent-owner" and data["field"] == "content"
    assert data["base_version"] is None and data["tool"] == "update_document"


def test_the_tool_call_with_draft_id_commits_it_after_its_document_version(api):
    for piece in in_pieces(ARGUMENTS, 5):
        post_piece(api, "t2", "call_2", piece)
    arguments = {**json.loads(ARGUMENTS), "action_and_reasoning": WHY}
    answer = call_tool(api, "t2", "update_document", arguments, **{"Draft-Id": "call_2"})
    assert answer.status_code == 200
    draft = Draft.objects.get(thread_id="t2", call_id="call_2")
    assert (draft.outcome, draft.version) == ("committed", stored("t2")["version"])
    assert not DraftPiece.objects.filter(draft=draft).exists()  # drafts are not kept
    assert post_piece(api, "t2", "call_2", " ").status_code == 409  # a late piece: a new call needs a new id


def test_a_retried_call_replayed_by_its_idempotency_key_commits_the_draft_it_streamed_again(api):
    arguments = {**json.loads(ARGUMENTS), "action_and_reasoning": WHY}
    first = call_tool(api, "t2r", "update_document", arguments, **{"Idempotency-Key": "k1", "Draft-Id": "try_1"})
    post_piece(api, "t2r", "try_2", ARGUMENTS[:20])  # the retry streams its arguments again, as a new call id
    retry = call_tool(api, "t2r", "update_document", arguments, **{"Idempotency-Key": "k1", "Draft-Id": "try_2"})
    assert retry.json() == first.json() and retry["Idempotent-Replayed"] == "true"
    draft = Draft.objects.get(thread_id="t2r", call_id="try_2")
    assert (draft.outcome, draft.version) == ("committed", 1)
    assert stored("t2r")["version"] == 1  # written once


def test_a_failed_call_ends_its_draft_as_failed_and_a_cancel_as_cancelled(api):
    post_piece(api, "t3", "a", '{"content": "x')
    answer = call_tool(api, "t3", "update_document", {"content": "x"}, **{"Draft-Id": "a"})  # no reason: 400
    assert answer.status_code == 400
    assert Draft.objects.get(call_id="a").outcome == "failed"
    post_piece(api, "t3", "b", '{"content": "x')
    assert api.delete("/api/workspace/threads/t3/drafts/b/").status_code == 204
    assert Draft.objects.get(call_id="b").outcome == "cancelled"
    assert api.delete("/api/workspace/threads/t3/drafts/b/").status_code == 404


def test_the_python_writer_and_the_call_it_ends():
    draft = DraftWriter("t4", "py_1", "append_to_document", actor="planner")
    for piece in in_pieces(json.dumps({"text": "- milk\n- eggs\n", "action_and_reasoning": WHY}), 4):
        draft.feed(piece)
    assert text_so_far("t4") == {"py_1": "- milk\n- eggs\n"}
    result = draft.tools().append_to_document(text="- milk\n- eggs\n", action_and_reasoning=WHY)
    assert result["success"]
    assert Draft.objects.get(call_id="py_1").outcome == "committed"
    other = DraftWriter("t4", "py_2", "append_to_document", actor="planner")
    other.feed('{"text": "no')
    assert other.cancel() and not other.cancel()


def test_drafts_are_not_revisions(api):
    DocumentTools("t5").update_document(content="one\n", action_and_reasoning=WHY)
    post_piece(api, "t5", "c", '{"content": "two and more')
    assert Revision.objects.filter(document__thread_id="t5").count() == 1
    assert api.get("/api/workspace/threads/t5/revisions/").json()["results"][0]["version"] == 1
    assert stored("t5")["content"] == "one\n"
    assert json.loads(draft_events.events_after("t5", 0)[0].data)["base_version"] == 1


@pytest.mark.parametrize(
    "body, message",
    [
        ({"tool": "update_document"}, "delta is required"),
        ({"tool": "update_document", "delta": 3}, "delta must be a string"),
        ({"tool": "read_document", "delta": "{"}, "has no draft"),
        ({"tool": "update_document", "delta": "{", "extra": 1}, "unknown fields: extra"),
    ],
)
def test_bad_pieces_are_refused_saying_why_and_change_nothing(api, body, message):
    answer = api.post("/api/workspace/threads/t6/drafts/c/", body, format="json")
    assert answer.status_code == 400 and message in answer.json()["error"]
    assert not Draft.objects.exists()


def test_bad_call_ids_and_another_tool_are_refused(api):
    assert post_piece(api, "t7", "x" * 65, "{").status_code == 400
    assert post_piece(api, "t7", "bad.id", "{").status_code == 400
    post_piece(api, "t7", "c", "{")
    answer = post_piece(api, "t7", "c", '"text"', tool="append_to_document")
    assert answer.status_code == 400 and "is of update_document" in answer.json()["error"]
    bad = call_tool(api, "t7", "update_document", {"content": "x", "action_and_reasoning": WHY}, **{"Draft-Id": "a.b"})
    assert bad.status_code == 400 and "Draft-Id" in bad.json()["error"]
    assert stored("t7") is None


def test_arguments_that_are_not_json_end_the_draft_as_failed(api):
    post_piece(api, "t8", "c", '{"content": "fine')
    answer = post_piece(api, "t8", "c", '", ]')
    assert answer.status_code == 400 and "not JSON" in answer.json()["error"]
    assert Draft.objects.get(call_id="c").outcome == "failed"


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=200)
def test_arguments_past_the_limit_are_refused_and_the_draft_fails(api):
    assert post_piece(api, "t9", "c", '{"content": "' + "x" * 100).status_code == 202
    assert post_piece(api, "t9", "c", "x" * 87).status_code == 202  # 200 characters: the most
    answer = post_piece(api, "t9", "c", "x")
    assert answer.status_code == 400 and "200 characters" in answer.json()["error"]
    assert Draft.objects.get(call_id="c").outcome == "failed"


@override_settings(WORKSPACE_MAX_DRAFTS_PER_THREAD=2)
def test_open_drafts_per_thread_are_bounded(api):
    assert post_piece(api, "t10", "a", "{").status_code == 202
    assert post_piece(api, "t10", "b", "{").status_code == 202
    refused = post_piece(api, "t10", "c", "{")
    assert refused.status_code == 429 and refused["Retry-After"]
    assert post_piece(api, "t11", "c", "{").status_code == 202  # another thread has its own
    api.delete("/api/workspace/threads/t10/drafts/a/")
    assert post_piece(api, "t10", "c", "{").status_code == 202


@override_settings(WORKSPACE_RATE_DRAFTS="3/min")
def test_pieces_have_a_rate_of_their_own(api):
    statuses = [post_piece(api, "t12", "c", "{" if n == 0 else " ").status_code for n in range(4)]
    assert statuses == [202, 202, 202, 429]
    answer = call_tool(api, "t12", "append_to_document", {"text": "x", "action_and_reasoning": WHY})
    assert answer.status_code == 200  # tool calls keep their own rate


def test_a_draft_with_no_piece_for_the_timeout_expires():
    writer = DraftWriter("t13", "c", "update_document")
    writer.feed('{"content": "half')
    assert draft_store.end_expired() == 0
    Draft.objects.filter(call_id="c").update(touched_at=timezone.now() - timedelta(seconds=31))
    assert draft_store.end_expired() == 1
    assert Draft.objects.get(call_id="c").outcome == "expired"
    assert draft_events.resume_id("t13") == draft_events.current_id("t13")  # a new viewer gets nothing of it


def test_another_user_may_not_write_into_a_draft(api, django_user_model):
    post_piece(api, "t14", "c", "{")
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    other = APIClient()
    other.credentials(
        HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=django_user_model.objects.create_user('o')).key}"
    )
    assert post_piece(other, "t14", "c", '"').status_code == 403
    assert other.delete("/api/workspace/threads/t14/drafts/c/").status_code == 403


def read_only(user, thread_id, action):
    return action == "read"


@override_settings(WORKSPACE_ACCESS_POLICY="tests.drafts.test_drafts.read_only")
def test_a_reader_may_not_send_drafts(api):
    answer = post_piece(api, "t15", "c", "{")
    assert answer.status_code == 403 and "read this thread but not change it" in answer.json()["error"]
    assert api.delete("/api/workspace/threads/t15/drafts/c/").status_code == 403
    assert not Draft.objects.exists()


def owner_writes_others_read(user, thread_id, action):
    return action == "read" or user.get_username() == "agent-owner"


def client_of(django_user_model, username):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    user = django_user_model.objects.create_user(username)
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def assert_still_open(api, thread_id, call_id):
    """The draft is as it was: open, and its own user's next piece is taken."""
    draft = Draft.objects.get(thread_id=thread_id, call_id=call_id)
    assert (draft.outcome, draft.version, draft.ended_id) == (None, None, None)
    assert post_piece(api, thread_id, call_id, " more").status_code == 202


@override_settings(WORKSPACE_ACCESS_POLICY="tests.drafts.test_drafts.owner_writes_others_read")
def test_a_reader_naming_another_users_draft_in_a_read_is_refused_and_the_draft_stays(api, django_user_model):
    post_piece(api, "own1", "alices", '{"content": "half')
    reader = client_of(django_user_model, "reader")
    answer = call_tool(reader, "own1", "read_document", {"action_and_reasoning": WHY}, **{"Draft-Id": "alices"})
    assert answer.status_code == 400 and "only reads" in answer.json()["error"]
    assert_still_open(api, "own1", "alices")


def test_a_writer_naming_another_users_draft_is_refused_and_changes_nothing(api, django_user_model):
    post_piece(api, "own2", "alices", '{"content": "half')
    other = client_of(django_user_model, "other")
    arguments = {"content": "not yours\n", "action_and_reasoning": WHY}
    answer = call_tool(other, "own2", "update_document", arguments, **{"Draft-Id": "alices"})
    assert answer.status_code == 403 and "opened by another user" in answer.json()["error"]
    assert stored("own2") is None
    failing = call_tool(other, "own2", "update_document", {"content": "x"}, **{"Draft-Id": "alices"})  # no reason
    assert failing.status_code == 403  # refused before it runs: its failure ends nothing either
    assert_still_open(api, "own2", "alices")


def test_the_drafts_own_user_may_not_end_it_with_a_read_or_another_tool(api):
    post_piece(api, "own3", "mine", '{"content": "half')
    read = call_tool(api, "own3", "read_document", {"action_and_reasoning": WHY}, **{"Draft-Id": "mine"})
    assert read.status_code == 400 and "only reads" in read.json()["error"]
    arguments = {"text": "appended\n", "action_and_reasoning": WHY}
    other_tool = call_tool(api, "own3", "append_to_document", arguments, **{"Draft-Id": "mine"})
    assert other_tool.status_code == 400
    assert "is of update_document, not append_to_document" in other_tool.json()["error"]
    assert stored("own3") is None
    assert_still_open(api, "own3", "mine")


def test_in_python_a_call_ends_only_its_own_users_draft(api):
    post_piece(api, "own4", "alices", '{"content": "half')
    tools = DocumentTools("own4", actor="someone else", draft_id="alices")
    refused = tools.update_document(content="x\n", action_and_reasoning=WHY)
    assert not refused["success"] and "opened by another user" in refused["error"]
    assert not DocumentTools("own4", actor="agent-owner", draft_id="alices").read_document(action_and_reasoning=WHY)[
        "success"
    ]
    assert stored("own4") is None
    assert not draft_store.end_call("own4", "alices", "update_document", "someone else", draft_store.Outcome.FAILED)
    assert_still_open(api, "own4", "alices")
    done = DocumentTools("own4", actor="agent-owner", draft_id="alices").update_document(
        content="x\n", action_and_reasoning=WHY
    )
    assert done["success"] and Draft.objects.get(call_id="alices").outcome == "committed"


def read_like_a_stream(thread_id: str, last_id: int, texts: dict[str, str] | None = None) -> dict[str, str]:
    """Each draft's text as a stream at ``last_id`` rebuilds it, read after read
    of the storage as django-eventstream reads it (34 asked, 33 kept and the
    rest read again after the last one kept), asserting each event starts
    where its text ends."""
    texts = dict(texts or {})
    while True:
        events = ThreadEventStorage().get_events(draft_channel(thread_id), last_id, limit=34)
        more = len(events) >= 34 or draft_events.is_partial(events)
        for event in events[:33]:
            data = json.loads(event.data)
            if event.type == "draft":
                assert data["offset"] == len(texts.get(data["call_id"], "")), (data["offset"], data["call_id"])
                texts[data["call_id"]] = texts.get(data["call_id"], "") + data["delta"]
            last_id = event.id
        if not more:
            return texts


@pytest.mark.django_db(transaction=True)  # the storage gives its connection back after each read
@override_settings(WORKSPACE_EVENT_MAX_CHARS=100)
def test_every_character_of_a_piece_longer_than_a_page_of_events_reaches_a_reader_in_order():
    first, second = DraftWriter("long1", "a", "update_document"), DraftWriter("long1", "b", "append_to_document")
    first.feed('{"content": "start ')
    second.feed('{"text": "other ')
    seen = read_like_a_stream("long1", 0)
    assert seen == {"a": "start ", "b": "other "}
    at = draft_events.current_id("long1")
    big = "".join(f"{n:05d} " for n in range(2_000))  # 12,000 characters: 120 events of 100
    first.feed(big)
    second.feed("x" * 50)
    first.feed("end")
    assert read_like_a_stream("long1", at, seen) == {"a": "start " + big + "end", "b": "other " + "x" * 50}
    assert DraftPiece.objects.filter(draft__call_id="a").count() == 1 + 120 + 1  # each row is one event


def read_peak(read) -> int:
    """The most bytes Python held at once while ``read()`` ran, beyond what it held before."""
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.django_db(transaction=True)
@override_settings(WORKSPACE_EVENT_MAX_CHARS=4096)
def test_a_read_of_large_drafts_costs_memory_bounded_by_the_event_limit_not_by_the_drafts():
    channel, storage = draft_channel("large"), ThreadEventStorage()
    writers = [DraftWriter("large", f"call_{n}", "update_document") for n in range(8)]
    for writer in writers:
        writer.feed('{"content": "')
    seen_at = draft_events.current_id("large")
    for writer in writers:
        writer.feed("x" * 1_000_000)  # 8 MB of drafts
    page_bytes = draft_events.PAGE_FACTOR * 4096
    opening = read_peak(lambda: storage.get_events(channel, draft_events.resume_id("large"), limit=34))
    assert opening < 8 * page_bytes, opening  # a new viewer: each draft's opening, cut
    seen = read_peak(lambda: storage.get_events(channel, seen_at, limit=34))
    assert seen < 8 * page_bytes, seen  # a viewer that has seen them: one page of what follows
    events = storage.get_events(channel, draft_events.resume_id("large"), limit=34)
    assert [json.loads(event.data)["delta"] for event in events] == ["x" * 4096] * 8


def expire_and_age(*call_ids: str, older: timedelta = draft_store.ENDED_KEPT_FOR) -> None:
    """End the open drafts of ``call_ids`` (every one if none named) as expired, then age their ends by ``older``."""
    drafts = Draft.objects.filter(call_id__in=call_ids) if call_ids else Draft.objects.all()
    drafts.filter(outcome__isnull=True).update(touched_at=timezone.now() - timedelta(seconds=31))
    draft_store.end_expired()
    drafts.update(touched_at=timezone.now() - older - timedelta(seconds=1))


def test_the_expiry_check_deletes_ended_drafts_after_a_while_and_the_counters_of_threads_left_with_none():
    for number in range(40):  # one user, 40 drafts over 10 threads
        DraftWriter(f"pile-{number % 10}", f"call_{number}", "update_document", actor="piler").feed('{"content": "x')
    expire_and_age(older=timedelta(minutes=30))
    assert draft_store.delete_ended() == 0  # ended half an hour ago: kept, a late piece is still refused
    assert Draft.objects.count() == 40 and DraftCounter.objects.count() == 10
    expire_and_age()
    draft_store.delete_ended()
    assert not Draft.objects.exists()
    assert list(DraftCounter.objects.values_list("thread_id", flat=True)) == [DraftCounter.FLOOR]


@pytest.mark.django_db(transaction=True)  # the storage gives its connection back after each read
def test_a_threads_draft_ids_never_go_backwards_when_its_counter_is_deleted():
    first = DraftWriter("again", "before", "update_document")
    first.feed('{"content": "' + "a" * 50)
    first.cancel()
    known = draft_events.current_id("again")  # the last id a stream of the thread may hold
    assert known > 0
    expire_and_age()
    draft_store.delete_ended()
    assert not DraftCounter.objects.filter(thread_id="again").exists()
    assert draft_events.current_id("again") == known  # the thread stands where it stood
    assert not ThreadEventStorage().never_handed_out(draft_channel("again"), known)  # the stream may resume
    DraftWriter("again", "after", "update_document").feed('{"content": "new')
    events = draft_events.events_after("again", known)
    assert [(event.type, json.loads(event.data)["delta"]) for event in events] == [("draft", "new")]
    assert all(event.id > known for event in events)


@override_settings(WORKSPACE_MAX_DRAFTS_PER_USER=2)
def test_a_users_open_drafts_across_threads_are_bounded(api):
    assert post_piece(api, "mine-1", "a", "{").status_code == 202
    assert post_piece(api, "mine-2", "b", "{").status_code == 202
    refused = post_piece(api, "mine-3", "c", "{")
    assert refused.status_code == 429 and refused["Retry-After"]
    assert "WORKSPACE_MAX_DRAFTS_PER_USER" in refused.json()["error"] and not refused.json()["success"]
    assert not Draft.objects.filter(call_id="c").exists()  # nothing opened
    assert DraftWriter("mine-3", "d", "update_document", actor="someone else").feed("{") == 1  # theirs are theirs
    api.delete("/api/workspace/threads/mine-1/drafts/a/")
    assert post_piece(api, "mine-3", "c", "{").status_code == 202


@requires_postgresql
@pytest.mark.django_db(transaction=True)
@override_settings(WORKSPACE_MAX_DRAFTS_PER_USER=3)
def test_a_users_cap_of_open_drafts_holds_when_first_pieces_on_other_threads_come_at_once():
    def first_piece(number):
        def send():
            try:
                return draft_store.add(f"race-{number}", "call", "update_document", '{"content": "', "racer")
            except TooManyDrafts:
                return "refused"

        return send

    results = run_concurrently([first_piece(number) for number in range(8)])
    assert sorted(results, key=str) == [13, 13, 13, *["refused"] * 5]
    assert Draft.objects.filter(actor="racer", outcome__isnull=True).count() == 3
