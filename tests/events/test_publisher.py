"""workspace.events.publisher: the one background publisher of the Redis fan-out and of Pushpin."""

import json
import os
import threading
import time

import pytest
from django.test import override_settings

from workspace.drafts import store as draft_store
from workspace.events import drafts
from workspace.events.publisher import BackgroundPublisher, Refused
from workspace.events.transports.pushpin_drafts import DraftPublishing


def unstarted(**options) -> BackgroundPublisher:
    """A publisher whose thread does not start (as if already started in this process)."""
    publisher = BackgroundPublisher("Test", lambda: lambda batch: None, **options)
    publisher.pid = os.getpid()
    return publisher


def test_at_most_max_pending_items_wait_and_the_oldest_are_dropped():
    publisher = unstarted(max_pending=3)
    for item in "abcde":
        publisher.publish(item)
    assert [item for _, item in publisher._next_batch()] == ["c", "d", "e"]


def test_a_deduplicating_publisher_keeps_one_entry_per_item():
    publisher = unstarted(deduplicate=True)
    for item in "abab":
        publisher.publish(item)
    assert [item for _, item in publisher._next_batch()] == ["a", "b"]


def test_a_batch_holds_at_most_max_batch_chars_but_always_one_item():
    publisher = unstarted(max_batch_chars=5)
    for item in ("123", "45", "6", "1234567"):
        publisher.publish(item)
    assert [item for _, item in publisher._next_batch()] == ["123", "45"]
    assert [item for _, item in publisher._next_batch()] == ["6"]
    assert [item for _, item in publisher._next_batch()] == ["1234567"]


def test_a_failed_batch_goes_back_in_front_within_the_bound():
    publisher = unstarted(max_pending=3)
    publisher.publish("a")
    publisher.publish("b")
    batch = publisher._next_batch()
    publisher.publish("c")
    publisher.publish("d")
    publisher._put_back(batch)
    assert [item for _, item in publisher._next_batch()] == ["b", "c", "d"]


def test_the_thread_retries_what_failed_and_drops_what_was_refused():
    sent, attempts, done = [], [], threading.Event()

    def send(batch):
        attempts.append(list(batch))
        if batch == ["refused"]:
            raise Refused("400 too large")
        if len(attempts) == 2:
            raise OSError("connection refused")
        sent.extend(batch)
        if "last" in batch:
            done.set()

    publisher = BackgroundPublisher("Test", lambda: send)
    publisher.publish("refused")
    time.sleep(0.1)
    publisher.publish("retried")
    time.sleep(0.1)
    publisher.publish("last")
    assert done.wait(5)
    assert attempts[0] == ["refused"] and attempts[1] == ["retried"]
    assert sent == ["retried", "last"]


@pytest.mark.django_db
@override_settings(WORKSPACE_EVENT_MAX_CHARS=100)
def test_pieces_committed_while_held_ids_are_published_go_out_in_a_later_round():
    """Behind Pushpin a process publishes a page of the ids it claimed per
    round; a piece committed meanwhile is scheduled into the round that
    finishes them, and must still be published after it."""
    items: list[dict] = []
    publishing = DraftPublishing(lambda item: items.append(json.loads(item)))
    publishing.pid = os.getpid()  # rounds run here, one at a time: no thread of its own
    draft_store.add("held", "c1", "update_document", '{"content": "a', "writer")
    publishing._publish("held")  # the draft opened: its viewers are shown its pieces from now on
    draft_store.add("held", "c1", "update_document", "x" * 2000, "writer")
    publishing._publish("held")  # the first page of its pieces; the rest held
    assert "held" in publishing.held
    draft_store.add("held", "c1", "update_document", "tail", "writer")  # committed while the rest is held
    newest = drafts.current_id("held")
    for _ in range(50):  # what the publishing thread would do, round after round
        if not publishing.due.pop("held", None):
            break
        publishing._publish("held")
    assert int(items[-1]["id"]) == newest
    assert [int(item["prev-id"]) for item in items[1:]] == [int(item["id"]) for item in items[:-1]]  # no gap


@pytest.mark.django_db
def test_draft_items_bypass_pushpins_sequencing():
    """Pushpin would hold an item that came before the one it follows for 5 s,
    and, once two processes' items crossed, each later one too."""
    items: list[dict] = []
    publishing = DraftPublishing(lambda item: items.append(json.loads(item)))
    publishing.pid = os.getpid()  # rounds run here: no thread of its own
    draft_store.add("unsequenced", "c1", "update_document", '{"content": "a', "writer")
    publishing._publish("unsequenced")
    draft_store.add("unsequenced", "c1", "update_document", "b", "writer")
    publishing._publish("unsequenced")
    assert len(items) == 2
    assert all(item["no-seq"] is True for item in items)
