"""Agents and people writing one document at once, from real threads, each on
its own database connection: people's edits of distinct
lines from stale versions merge with the agents' appends and with each
other, and nothing either side writes is lost. On PostgreSQL this proves the
row lock around the merge; on SQLite, IMMEDIATE transactions serialising it."""

import json
import random
import time

import pytest
from django.contrib.auth import get_user_model
from django.dispatch import receiver
from rest_framework.test import APIClient

from tests.support import run_concurrently, stored
from workspace.events import ThreadEventStorage, document_channel
from workspace.models import Revision
from workspace.signals import document_changed
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db(transaction=True)

WHY = "Concurrency of people and agents."
THREAD = "shared"
URL = f"/api/workspace/threads/{THREAD}/document/"
START = "".join(f"line {n}\n" for n in range(9))
PEOPLE = 4
AGENTS = 16
APPENDS_EACH = 3


def person(user, line: int, seed: int):
    """Read the document, think a while (agents and the others write meanwhile),
    then save an edit of one line from the version read: a stale one."""

    def edit():
        client = APIClient()
        client.force_authenticate(user)
        read = client.get(URL).json()
        time.sleep(random.Random(seed).uniform(0.01, 0.1))
        content = read["content"].replace(f"line {line}\n", f"line {line} edited by {user.username}\n")
        return client.put(URL, {"content": content}, format="json", HTTP_IF_MATCH=f'"{read["version"]}"')

    return edit


def agent(n: int):
    def append():
        tools = DocumentTools(THREAD, actor=f"agent-{n}")
        for k in range(APPENDS_EACH):
            assert tools.append_to_document(text=f"<agent {n} chunk {k}>\n", action_and_reasoning=WHY)["success"]
        return None

    return append


def check_everyone_is_there(results, people):
    assert [response.status_code for response in results[:PEOPLE]] == [200] * PEOPLE, [
        response.content[:300] for response in results[:PEOPLE]
    ]
    # Stale: each started before others wrote, so (all but perhaps one) merged.
    assert sum(response.json()["merged"] for response in results[:PEOPLE]) >= PEOPLE - 1
    document = stored(THREAD)
    content = document["content"]
    for n in range(AGENTS):
        for k in range(APPENDS_EACH):
            assert content.count(f"<agent {n} chunk {k}>\n") == 1
    for line, user in zip((1, 3, 5, 7), people, strict=True):
        assert f"line {line} edited by {user.username}\n" in content
    for line in (0, 2, 4, 6, 8):
        assert f"line {line}\n" in content
    changes = 1 + AGENTS * APPENDS_EACH + PEOPLE
    assert document["version"] == changes
    revisions = Revision.objects.filter(document__thread_id=THREAD).order_by("version")
    assert [revision.version for revision in revisions] == list(range(1, changes + 1))  # gapless
    assert sum(revision.source == "person" for revision in revisions) == PEOPLE
    events = ThreadEventStorage().get_events(document_channel(THREAD), 0, limit=1000)
    assert [json.loads(event.data)["version"] for event in events] == list(range(1, changes + 1))
    return changes


def run_people_and_agents():
    users = [get_user_model().objects.create_user(f"person-{n}") for n in range(PEOPLE)]
    DocumentTools(THREAD, actor="planner").update_document(content=START, action_and_reasoning=WHY)
    announced = []

    @receiver(document_changed, weak=False)
    def count(sender, change, **kwargs):
        announced.append(change.version)

    try:
        calls = [person(user, line, seed) for seed, (user, line) in enumerate(zip(users, (1, 3, 5, 7), strict=True))]
        calls += [agent(n) for n in range(AGENTS)]
        results = run_concurrently(calls)
    finally:
        document_changed.disconnect(count)
    changes = check_everyone_is_there(results, users)
    assert sorted(announced) == list(range(2, changes + 1))  # one announcement per change, none rolled back


def test_people_editing_stale_versions_while_16_agents_append_lose_nothing():
    run_people_and_agents()
