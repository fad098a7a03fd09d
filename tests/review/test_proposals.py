"""Review over HTTP: a person turns it on, an agent's writing tool calls store
proposals instead of changing the document, and a person accepts all, none
or some of a proposal's hunks, merged with whatever changed since."""

import json

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.support import call_tool, stored
from workspace.documents.repository import WorkspaceRepository
from workspace.events.channels import artifact_channel
from workspace.events.storage import ThreadEventStorage
from workspace.models import Draft, Proposal, Revision
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db

THREAD = "rev"
BASE = f"/api/workspace/threads/{THREAD}"
WHY = "Proposing a better plan."
START = "# Plan\nday one: museum\nday two: beach\nday three: hills\n"


@pytest.fixture
def in_review(api):
    """Thread "rev" at version 1, written by an agent, then put in review by a person."""
    DocumentTools(THREAD, actor="planner").update_document(content=START, title="Plan", action_and_reasoning=WHY)
    response = api.patch(f"{BASE}/document/", {"review": True}, format="json")
    assert response.status_code == 200, response.json()
    return api


def propose(api, tool, **arguments):
    response = call_tool(api, THREAD, tool, {**arguments, "action_and_reasoning": WHY})
    assert response.status_code == 200, response.json()
    return response.json()


def decide(api, proposal_id, accept, **headers):
    return api.post(
        f"{BASE}/proposals/{proposal_id}/decision/",
        json.dumps({"accept": accept, "note": "Looks right."}),
        content_type="application/json",
        **{f"HTTP_{name.upper().replace('-', '_')}": value for name, value in headers.items()},
    )


def thread_events(event_type):
    events = ThreadEventStorage().get_events(artifact_channel(THREAD), 0)
    return [json.loads(event.data) for event in events if event.type == event_type]


def test_turning_review_on_keeps_the_text_and_version_and_tells_the_viewers(in_review):
    document = in_review.get(f"{BASE}/document/").json()
    assert (document["review"], document["version"], document["content"]) == (True, 1, START)
    assert Revision.objects.filter(document__thread_id=THREAD).count() == 1
    assert thread_events("review") == [{"thread_id": THREAD, "review": True, "actor": "agent-owner"}]


def test_the_mode_takes_only_review_as_a_boolean_and_changes_nothing_otherwise(in_review):
    for body in ({"review": "yes"}, {}, {"review": False, "title": "x"}):
        response = in_review.patch(f"{BASE}/document/", body, format="json")
        assert response.status_code == 400, body
    assert in_review.get(f"{BASE}/document/").json()["review"] is True


def test_a_thread_without_a_document_gets_the_empty_one_in_that_mode(api):
    response = api.patch("/api/workspace/threads/new-one/document/", {"review": True}, format="json")
    assert response.status_code == 200
    assert (response.json()["version"], response.json()["content"], response.json()["review"]) == (1, "", True)
    assert Revision.objects.get(document__thread_id="new-one").source == "person"


def test_an_update_in_review_is_stored_as_a_proposal_and_the_document_is_unchanged(in_review):
    content = START.replace("beach", "surf lesson")
    envelope = propose(in_review, "update_document", content=content, title="Better plan")

    proposal = Proposal.objects.get()
    assert envelope == {
        "success": True,
        "summary": f"proposed ({len(content)} chars): waits for review as proposal {proposal.pk}; "
        "the document is unchanged at version 1",
        "artifact": None,
    }
    assert stored(THREAD) == {"title": "Plan", "content": START, "length": len(START), "version": 1}
    assert (proposal.base_version, proposal.op, proposal.tool, proposal.status) == (
        1,
        "update",
        "update_document",
        "open",
    )
    assert (proposal.actor, proposal.action_and_reasoning, proposal.title) == ("agent-owner", WHY, "Better plan")
    [event] = thread_events("proposal")
    assert event["hunks"] == [
        {"index": 0, "base_start": 2, "base_end": 3, "old": "day two: beach\n", "new": "day two: surf lesson\n"}
    ]
    assert event["title"] == {"old": "Plan", "new": "Better plan"}


def test_an_append_and_an_edit_answer_their_own_summaries(in_review):
    appended = propose(in_review, "append_to_document", text="day four: rest\n")
    edited = propose(in_review, "edit_document", old_str="museum", new_str="castle")
    first, second = Proposal.objects.order_by("id")
    total = len(START) + len("day four: rest\n")
    assert appended["summary"] == (
        f"proposed ({total} chars total): waits for review as proposal {first.pk}; "
        "the document is unchanged at version 1"
    )
    assert edited["summary"].startswith(
        f"proposed (1 replacement(s); {len(START)} chars total): waits for review as proposal {second.pk}; "
        "the document is unchanged at version 1\n"
    )
    assert "2\tday one: castle" in edited["summary"]
    assert (first.op, first.text, first.content) == ("append", "day four: rest\n", START + "day four: rest\n")
    detail = in_review.get(f"{BASE}/proposals/{first.pk}/").json()
    assert detail["hunks"] == [{"index": 0, "base_start": 4, "base_end": 4, "old": "", "new": "day four: rest\n"}]
    assert stored(THREAD)["version"] == 1


def test_a_call_that_changes_nothing_stores_nothing(in_review):
    assert propose(in_review, "update_document", content=START)["summary"] == f"document updated ({len(START)} chars)"
    assert not Proposal.objects.exists()


def test_bad_input_is_refused_as_for_a_direct_call_and_stores_nothing(in_review):
    response = call_tool(
        in_review, THREAD, "edit_document", {"old_str": "nowhere", "new_str": "x", "action_and_reasoning": WHY}
    )
    assert response.status_code == 400
    response = call_tool(
        in_review, THREAD, "update_document", {"content": "x", "action_and_reasoning": WHY}, **{"If-Match": '"7"'}
    )
    assert response.status_code == 412
    assert not Proposal.objects.exists()


def test_read_document_names_the_proposals_that_wait_and_which_are_the_callers(in_review):
    propose(in_review, "append_to_document", text="more\n")
    DocumentTools(THREAD, actor="someone-else").append_to_document(text="other\n", action_and_reasoning=WHY)
    mine, theirs = Proposal.objects.order_by("id").values_list("id", flat=True)
    summary = DocumentTools(THREAD, actor="agent-owner").read_document(action_and_reasoning=WHY)["summary"]
    first, second, third = summary.split("\n")[:3]
    assert first == f"version 1, {len(START)} chars, lines 1-4 of 4"
    assert second == f"2 proposal(s) wait for review: {mine}, {theirs}; yours: {mine}"
    assert third == "1\t# Plan"


def test_accepting_all_applies_the_change_as_the_agents_with_who_accepted_it(in_review):
    content = START.replace("beach", "surf lesson")
    propose(in_review, "update_document", content=content, title="Better plan")
    proposal = Proposal.objects.get()

    response = decide(in_review, proposal.pk, "all")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["status"], body["accepted"], body["rejected"], body["version"]) == ("accepted", [0], [], 2)
    assert (body["decided_by"], body["note"]) == ("agent-owner", "Looks right.")
    assert stored(THREAD) == {"title": "Better plan", "content": content, "length": len(content), "version": 2}
    revision = Revision.objects.get(document__thread_id=THREAD, version=2)
    assert (revision.op, revision.tool, revision.source, revision.action_and_reasoning) == (
        "update",
        "update_document",
        "agent",
        WHY,
    )
    assert (revision.reviewed_by, revision.proposal) == ("agent-owner", proposal.pk)
    listed = in_review.get(f"{BASE}/revisions/?after=1").json()["results"][0]
    assert (listed["reviewed_by"], listed["proposal"]) == ("agent-owner", proposal.pk)
    [decided] = thread_events("proposal-decided")
    assert decided == {
        "thread_id": THREAD,
        "id": proposal.pk,
        "status": "accepted",
        "accepted": [0],
        "rejected": [],
        "version": 2,
        "decided_by": "agent-owner",
        "note": "Looks right.",
    }


def test_rejecting_all_writes_no_change(in_review):
    propose(in_review, "append_to_document", text="more\n")
    proposal = Proposal.objects.get()
    body = decide(in_review, proposal.pk, "none").json()
    assert (body["status"], body["accepted"], body["rejected"], body["version"]) == ("rejected", [], [0], None)
    assert stored(THREAD)["version"] == 1
    assert Revision.objects.filter(document__thread_id=THREAD).count() == 1


def test_accepting_one_hunk_of_two_applies_that_one_only(in_review):
    content = START.replace("museum", "castle").replace("hills", "lake")
    propose(in_review, "update_document", content=content)
    proposal = Proposal.objects.get()
    hunks = in_review.get(f"{BASE}/proposals/{proposal.pk}/").json()["hunks"]
    assert [hunk["new"] for hunk in hunks] == ["day one: castle\n", "day three: lake\n"]

    body = decide(in_review, proposal.pk, [1]).json()

    assert (body["status"], body["accepted"], body["rejected"]) == ("partial", [1], [0])
    assert stored(THREAD)["content"] == START.replace("hills", "lake")


def test_a_decision_merges_with_what_changed_since_and_an_append_goes_at_the_end(in_review):
    propose(in_review, "edit_document", old_str="museum", new_str="castle")
    propose(in_review, "append_to_document", text="day four: rest\n")
    edit, append = Proposal.objects.order_by("id")
    person = in_review.put(
        f"{BASE}/document/", {"content": START.replace("hills", "lake")}, format="json", HTTP_IF_MATCH='"1"'
    )
    assert person.status_code == 200

    assert decide(in_review, edit.pk, "all").json()["version"] == 3
    assert decide(in_review, append.pk, "all").json()["version"] == 4

    assert stored(THREAD)["content"] == START.replace("museum", "castle").replace("hills", "lake") + "day four: rest\n"


def test_a_conflict_is_refused_with_its_sides_and_the_proposal_stays_open(in_review):
    propose(in_review, "edit_document", old_str="beach", new_str="surf lesson")
    proposal = Proposal.objects.get()
    in_review.put(f"{BASE}/document/", {"content": START.replace("beach", "pool")}, format="json", HTTP_IF_MATCH='"1"')

    response = decide(in_review, proposal.pk, "all")

    assert response.status_code == 409
    assert response.json()["conflicts"] == [
        {"base": "day two: beach\n", "current": "day two: pool\n", "yours": "day two: surf lesson\n"}
    ]
    assert Proposal.objects.get().status == "open"
    assert stored(THREAD)["version"] == 2


def test_refusals_change_nothing(in_review):
    propose(in_review, "append_to_document", text="more\n")
    proposal = Proposal.objects.get()
    assert decide(in_review, proposal.pk, [1]).status_code == 400  # no such hunk
    assert decide(in_review, proposal.pk, ["0"]).status_code == 400
    assert decide(in_review, proposal.pk, "all", **{"If-Match": '"5"'}).status_code == 412
    assert decide(in_review, proposal.pk + 100, "all").status_code == 404
    assert Proposal.objects.get().status == "open"
    assert decide(in_review, proposal.pk, "all").status_code == 200
    again = decide(in_review, proposal.pk, "all")
    assert again.status_code == 409
    assert stored(THREAD)["version"] == 2


def test_a_base_no_longer_kept_answers_412(in_review):
    propose(in_review, "edit_document", old_str="museum", new_str="castle")
    proposal = Proposal.objects.get()
    in_review.put(f"{BASE}/document/", {"content": START + "x\n"}, format="json", HTTP_IF_MATCH='"1"')
    Revision.objects.filter(document__thread_id=THREAD, version=1).delete()
    assert decide(in_review, proposal.pk, "all").status_code == 412
    assert Proposal.objects.get().status == "open"


def test_a_decision_with_an_idempotency_key_is_applied_once(in_review):
    propose(in_review, "append_to_document", text="more\n")
    proposal = Proposal.objects.get()
    first = decide(in_review, proposal.pk, "all", **{"Idempotency-Key": "decide-1"})
    second = decide(in_review, proposal.pk, "all", **{"Idempotency-Key": "decide-1"})
    assert (first.status_code, second.status_code, second["Idempotent-Replayed"]) == (200, 200, "true")
    assert first.json() == second.json()
    assert stored(THREAD)["version"] == 2


def test_an_idempotent_retry_stores_one_proposal(in_review):
    for _ in range(2):
        response = call_tool(
            in_review,
            THREAD,
            "append_to_document",
            {"text": "once\n", "action_and_reasoning": WHY},
            **{"Idempotency-Key": "k-1"},
        )
        assert response.status_code == 200
    assert Proposal.objects.count() == 1


def test_a_draft_whose_call_becomes_a_proposal_ends_proposed(in_review):
    drafts = f"{BASE}/drafts/call-1/"
    assert (
        in_review.post(drafts, {"tool": "append_to_document", "delta": '{"text": "more'}, format="json").status_code
        == 202
    )
    response = call_tool(
        in_review,
        THREAD,
        "append_to_document",
        {"text": "more\n", "action_and_reasoning": WHY},
        **{"Draft-Id": "call-1"},
    )
    assert response.status_code == 200
    draft = Draft.objects.get(call_id="call-1")
    assert (draft.outcome, draft.proposal, draft.version) == ("proposed", Proposal.objects.get().pk, None)


@override_settings(WORKSPACE_MAX_OPEN_PROPOSALS=2)
def test_past_the_cap_a_call_is_refused_with_retry_after_and_stores_nothing(in_review):
    propose(in_review, "append_to_document", text="one\n")
    propose(in_review, "append_to_document", text="two\n")
    response = call_tool(in_review, THREAD, "append_to_document", {"text": "three\n", "action_and_reasoning": WHY})
    assert response.status_code == 429
    assert response["Retry-After"]
    assert Proposal.objects.count() == 2


@override_settings(WORKSPACE_REVIEW_DEFAULT=True)
def test_with_review_by_default_a_first_change_waits_and_creates_the_document_when_accepted(api):
    envelope = call_tool(
        api, "fresh", "update_document", {"content": "hello\n", "title": "Hi", "action_and_reasoning": WHY}
    ).json()
    proposal = Proposal.objects.get()
    assert (
        envelope["summary"]
        == f"proposed (6 chars): waits for review as proposal {proposal.pk}; the document is unchanged at version 0"
    )
    assert stored("fresh") is None
    assert proposal.base_version == 0
    response = api.post(
        f"/api/workspace/threads/fresh/proposals/{proposal.pk}/decision/", {"accept": "all"}, format="json"
    )
    assert response.json()["version"] == 1
    assert stored("fresh") == {"title": "Hi", "content": "hello\n", "length": 6, "version": 1}
    assert api.get("/api/workspace/threads/fresh/document/").json()["review"] is True


def test_turning_review_off_leaves_open_proposals_decidable_and_agents_write_again(in_review):
    propose(in_review, "append_to_document", text="waiting\n")
    in_review.patch(f"{BASE}/document/", {"review": False}, format="json")
    assert propose(in_review, "append_to_document", text="direct\n")["summary"].startswith("appended (")
    proposal = Proposal.objects.get()
    assert in_review.get(f"{BASE}/proposals/").json()["results"][0]["id"] == proposal.pk
    assert decide(in_review, proposal.pk, "all").json()["version"] == 3
    assert stored(THREAD)["content"] == START + "direct\nwaiting\n"


def test_the_list_is_newest_first_without_content_and_filtered_by_status(in_review):
    for n in range(3):
        propose(in_review, "append_to_document", text=f"line {n}\n")
    first, second, third = Proposal.objects.order_by("id")
    decide(in_review, first.pk, "none")
    listed = in_review.get(f"{BASE}/proposals/").json()
    assert [item["id"] for item in listed["results"]] == [third.pk, second.pk]
    assert "content" not in listed["results"][0]
    assert [item["id"] for item in in_review.get(f"{BASE}/proposals/?status=decided").json()["results"]] == [first.pk]
    paged = in_review.get(f"{BASE}/proposals/?status=all&limit=2").json()
    assert [item["id"] for item in paged["results"]] == [third.pk, second.pk]
    assert [item["id"] for item in in_review.get(paged["next"]).json()["results"]] == [first.pk]
    assert in_review.get(f"{BASE}/proposals/?status=maybe").status_code == 400
    assert in_review.get(f"{BASE}/proposals/999999/").status_code == 404


def readers_read_and_the_owner_writes(user, thread_id, action):
    return action == "read" or user.get_username() == "agent-owner"


@override_settings(WORKSPACE_ACCESS_POLICY="tests.review.test_proposals.readers_read_and_the_owner_writes")
def test_a_person_who_may_only_read_sees_proposals_but_may_not_decide(in_review, django_user_model):
    from rest_framework.authtoken.models import Token

    propose(in_review, "append_to_document", text="more\n")
    reader = django_user_model.objects.create_user("reader-only", password="x")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=reader).key}")
    assert client.get(f"{BASE}/proposals/").status_code == 200
    assert decide(client, Proposal.objects.get().pk, "all").status_code == 403
    assert client.patch(f"{BASE}/document/", {"review": False}, format="json").status_code == 403


def test_in_process_calls_propose_too_and_the_repository_decides(in_review):
    result = DocumentTools(THREAD, actor="py-agent").append_to_document(text="from python\n", action_and_reasoning=WHY)
    assert result["summary"].startswith("proposed (")
    proposal = WorkspaceRepository.decide_proposal(THREAD, Proposal.objects.get().pk, "all", actor="alice")
    assert (proposal.status, proposal.version) == ("accepted", 2)
    assert Revision.objects.get(document__thread_id=THREAD, version=2).actor == "py-agent"
