"""A committed draft's end reaches a viewer after its document event:
in what a viewer catching up reads (the stream held by this process and
Pushpin's requests both send what ``events.reading.read`` answers), whatever
commits while the read goes on and however far behind the viewer is; and in
what the server processes behind Pushpin publish to it."""

import json
import threading
from functools import partial

import pytest
from django.db import connection

from tests.support import require_pushpin, requires_postgresql
from tests.support.live import EventStream, PushpinServer
from workspace.drafts import store as draft_store
from workspace.events import drafts
from workspace.events.channels import channels_of
from workspace.events.reading import read
from workspace.events.storage import ThreadEventStorage
from workspace.internals.django_eventstream import EventRequest
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db(transaction=True)

WHY = "Event order test."


class Viewer:
    """A viewer of one thread that reads what follows its last ids, as its stream does."""

    def __init__(self, user, thread_id: str):
        channels = channels_of(thread_id)
        self.request = EventRequest()
        self.request.user, self.request.channels, self.request.is_next, self.request.is_recover = user, channels, 0, 0
        self.request.channel_last_ids = {c: str(i) for c, i in ThreadEventStorage().current_ids(channels).items()}
        self.events: list[tuple[str, dict]] = []

    def catch_up(self) -> list[tuple[str, dict]]:
        """Read until nothing more waits; the events read, in the order they are sent."""
        start = len(self.events)
        while True:
            response = read(self.request)
            last_ids = dict(response.channel_last_ids)
            for channel, items in response.channel_items.items():
                for item in items:
                    last_ids[channel] = item.id
                    self.events.append((item.type, json.loads(item.data)))
            self.request.channel_last_ids = last_ids
            if not response.channel_more:
                return self.events[start:]

    def assert_each_draft_end_follows_its_document(self) -> None:
        versions_sent: set[int] = set()
        for event_type, data in self.events:
            if event_type == "document":
                versions_sent.add(data["version"])
            if event_type == "draft-end":
                assert data["version"] in versions_sent, f"draft-end of version {data['version']} before its document"


OPENING_PIECE = '{"content": "The plan'  # a draft's first piece, its text begun


def test_a_viewer_far_behind_gets_a_draft_end_only_after_every_page_of_documents(user):
    viewer = Viewer(user, "far-behind")
    draft_store.add("far-behind", "call_1", "update_document", OPENING_PIECE, None)
    assert [event_type for event_type, _ in viewer.catch_up()] == ["draft"]
    for n in range(79):  # more than one read's page of document events (33)
        DocumentTools("far-behind").append_to_document(text=f"{n}\n", action_and_reasoning=WHY)
    DocumentTools("far-behind", draft_id="call_1").update_document(content="done", action_and_reasoning=WHY)

    events = viewer.catch_up()

    assert [data["version"] for event_type, data in events if event_type == "document"] == list(range(1, 81))
    assert events[-1] == ("draft-end", {"call_id": "call_1", "outcome": "committed", "version": 80})
    viewer.assert_each_draft_end_follows_its_document()


@requires_postgresql
def test_a_viewer_reading_while_drafts_commit_gets_each_document_before_its_draft_end(user):
    """A writer thread opens a draft, waits until the viewer has seen it, and
    commits it; the viewer reads all the while, on its own connection."""
    rounds = 30
    viewer = Viewer(user, "racing")
    seen_drafts: set[str] = set()
    seen = threading.Condition()
    failures: list[BaseException] = []

    def write() -> None:
        try:
            for n in range(rounds):
                call_id = f"call_{n}"
                draft_store.add("racing", call_id, "update_document", OPENING_PIECE, None)
                with seen:
                    assert seen.wait_for(partial(set.__contains__, seen_drafts, call_id), timeout=10), "never seen"
                DocumentTools("racing", draft_id=call_id).update_document(content=f"v{n}", action_and_reasoning=WHY)
        except BaseException as error:  # reported by the test's thread
            failures.append(error)
        finally:
            connection.close()

    writer = threading.Thread(target=write)
    writer.start()
    while writer.is_alive():
        for event_type, data in viewer.catch_up():
            if event_type == "draft":
                with seen:
                    seen_drafts.add(data["call_id"])
                    seen.notify_all()
    writer.join()
    viewer.catch_up()

    assert failures == []
    viewer.assert_each_draft_end_follows_its_document()
    assert [data["call_id"] for event_type, data in viewer.events if event_type == "draft-end"] == [
        f"call_{n}" for n in range(rounds)
    ]


@pytest.fixture(scope="module")
def pushpin(django_db_setup):
    require_pushpin()
    server = PushpinServer(workers=1)
    yield server
    server.stop()


def test_behind_pushpin_the_process_that_commits_a_draft_publishes_its_end_after_the_document(pushpin, token, settings):
    """Behind Pushpin every server process publishes, and a draft's pieces are
    published by whichever process claims them first (``pushpin_drafts``).
    This test's process is one more such process: it commits a draft's call;
    a publish of the thread's drafts due in any other process just after the
    commit must find the end claimed already, or it could reach Pushpin
    before this process's document event."""
    stream = EventStream(pushpin, "/api/workspace/threads/claimed/events/", {"Authorization": f"Token {token}"})
    stream.next("stream-open")
    settings.GRIP_URL = pushpin.publish_url
    draft_store.add("claimed", "call_1", "update_document", OPENING_PIECE, None)
    assert stream.next("draft").json()["delta"] == "The plan"

    DocumentTools("claimed", draft_id="call_1").update_document(content="The plan", action_and_reasoning=WHY)

    assert drafts.claim_unpublished("claimed") is None  # what another process's due publish finds
    order = [event for event in stream.until("draft-end") if event.type in ("document", "draft", "draft-end")]
    assert [event.type for event in order] == ["document", "draft-end"]
    assert order[1].json() == {"call_id": "call_1", "outcome": "committed", "version": order[0].json()["version"]}
    stream.close()
