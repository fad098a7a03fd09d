"""Review under load, on PostgreSQL, from real threads each on its own
connection: 8 agents proposing while 2 people decide and 2 people edit. No
proposal is lost or applied twice, the versions have no gap, and each
applied decision is one revision and one ``proposal-decided`` event."""

import json
import random
import threading
import time

import pytest

from tests.support import requires_postgresql, run_concurrently
from workspace.documents.repository import WorkspaceRepository
from workspace.events.channels import artifact_channel
from workspace.events.storage import ThreadEventStorage
from workspace.exceptions import EditConflict, ProposalDecided
from workspace.models import Proposal, Revision
from workspace.tools import DocumentTools

pytestmark = [pytest.mark.django_db(transaction=True), requires_postgresql]

THREAD = "busy-review"
WHY = "Proposing under load."
AGENTS, PROPOSALS_EACH = 8, 5
START = "".join(f"line {n}\n" for n in range(10))


def test_agents_propose_while_people_decide_and_edit():
    DocumentTools(THREAD, actor="setup").update_document(content=START, action_and_reasoning=WHY)
    WorkspaceRepository.set_review(THREAD, True, actor="alice")
    agents_done = threading.Event()
    finished = []

    def agent(n):
        def propose():
            tools = DocumentTools(THREAD, actor=f"agent-{n}")
            for k in range(PROPOSALS_EACH):
                result = tools.append_to_document(text=f"agent {n} proposal {k}\n", action_and_reasoning=WHY)
                assert result["success"] and result["summary"].startswith("proposed ("), result
            finished.append(n)
            if len(finished) == AGENTS:
                agents_done.set()

        return propose

    def decider(name, seed):
        def decide():
            chance = random.Random(seed)
            decided = []
            while True:
                waiting = WorkspaceRepository.open_proposals(THREAD)
                if not waiting and agents_done.is_set():
                    return decided
                for proposal_id, _ in waiting:
                    accept = chance.choice(["all", "none"])
                    try:
                        WorkspaceRepository.decide_proposal(THREAD, proposal_id, accept, actor=name)
                        decided.append(proposal_id)
                    except ProposalDecided:
                        pass  # the other person took it first
                time.sleep(0.005)

        return decide

    def person(name, line):
        def edit():
            edits = 0
            while not agents_done.is_set() or edits < 3:
                document = WorkspaceRepository.get_document(THREAD)
                content = document.content.replace(f"line {line}\n", f"line {line} by {name} {edits}\n", 1)
                content = content.replace(f"line {line} by {name} {edits - 1}\n", f"line {line} by {name} {edits}\n")
                try:
                    WorkspaceRepository.save_person_edit(THREAD, content, based_on=document.version, actor=name)
                    edits += 1
                except EditConflict:
                    pass
                time.sleep(0.01)
            return edits

        return edit

    calls = [agent(n) for n in range(AGENTS)]
    calls += [decider("alice", 1), decider("carol", 2), person("bob", 3), person("dave", 7)]
    results = run_concurrently(calls)

    proposals = list(Proposal.objects.filter(thread_id=THREAD).order_by("id"))
    assert len(proposals) == AGENTS * PROPOSALS_EACH  # none lost, none stored twice
    assert {proposal.status for proposal in proposals} <= {"accepted", "rejected"}
    decided_ids = results[AGENTS] + results[AGENTS + 1]
    assert sorted(decided_ids) == [proposal.pk for proposal in proposals]  # each decided exactly once

    versions = list(
        Revision.objects.filter(document__thread_id=THREAD).order_by("version").values_list("version", flat=True)
    )
    assert versions == list(range(1, len(versions) + 1))  # no gap
    accepted = [proposal for proposal in proposals if proposal.status == "accepted"]
    applied = Revision.objects.filter(document__thread_id=THREAD, proposal__isnull=False)
    assert sorted(applied.values_list("proposal", flat=True)) == [proposal.pk for proposal in accepted]
    assert {proposal.pk: proposal.version for proposal in accepted} == dict(applied.values_list("proposal", "version"))

    events = ThreadEventStorage().get_events(artifact_channel(THREAD), 0, limit=1000)
    decisions = [json.loads(event.data)["id"] for event in events if event.type == "proposal-decided"]
    assert sorted(decisions) == [proposal.pk for proposal in proposals]

    content = WorkspaceRepository.get_document(THREAD).content
    for proposal in proposals:
        assert (proposal.text in content) == (proposal.status == "accepted")
    assert f"line 3 by bob {results[AGENTS + 2] - 1}\n" in content
    assert f"line 7 by dave {results[AGENTS + 3] - 1}\n" in content
