"""Decisions, property-based: random documents, a random proposal (an
update, an append or an edit), random changes by people since it was made,
and a random choice of its hunks. Whenever the decision is clean, the result
holds exactly the accepted hunks and every change made since; otherwise
nothing changed and the proposal is still open.

The documents are made of distinct lines, and every change replaces whole
lines at chosen places, so the expected result is known without a diff:
each line an agent changed is a hunk of its own (they are never next to
each other), and a place both changed, or one next to the other's, is the
only place a conflict may come from."""

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workspace.documents.repository import WorkspaceRepository
from workspace.exceptions import EditConflict
from workspace.models import Proposal
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db

WHY = "Checking decisions."
threads = itertools.count()


@st.composite
def scenarios(draw):
    size = draw(st.integers(min_value=1, max_value=12))
    op = draw(st.sampled_from(["update", "append", "edit"]))
    places = list(range(size))
    agent: list[int] = []
    if op == "update":  # lines two apart at least: each its own hunk
        for place in sorted(draw(st.sets(st.sampled_from(places), min_size=1))):
            if not agent or place - agent[-1] >= 2:
                agent.append(place)
    elif op == "edit":
        agent = [draw(st.sampled_from(places))]
    appended = draw(st.integers(min_value=1, max_value=3)) if op == "append" else 0
    hunks = len(agent) if op != "append" else 1
    people = draw(st.lists(st.sets(st.sampled_from(places), min_size=1, max_size=2), max_size=3))
    accepted = sorted(draw(st.sets(st.sampled_from(range(hunks)))))
    return size, op, agent, appended, people, accepted, hunks


def lines(size):
    return [f"line {n}\n" for n in range(size)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scenarios())
def test_a_clean_decision_holds_exactly_the_accepted_hunks_and_every_change_since(scenario):
    size, op, agent_places, appended, people, accepted, hunks = scenario
    thread = f"property-{next(threads)}"
    tools = DocumentTools(thread, actor="agent")
    base = lines(size)
    tools.update_document(content="".join(base), action_and_reasoning=WHY)
    WorkspaceRepository.set_review(thread, True, actor="alice")

    proposed = list(base)
    for place in agent_places:
        proposed[place] = f"agent's line {place}\n"
    tail = [f"appended {n}\n" for n in range(appended)]
    if op == "update":
        tools.update_document(content="".join(proposed), action_and_reasoning=WHY)
    elif op == "edit":
        place = agent_places[0]
        tools.edit_document(old_str=base[place], new_str=proposed[place], action_and_reasoning=WHY)
    else:
        tools.append_to_document(text="".join(tail), action_and_reasoning=WHY)
    proposal = Proposal.objects.get(thread_id=thread)
    assert proposal.base_version == 1

    current = list(base)
    for edit_number, places in enumerate(people):
        for place in places:
            current[place] = f"person's line {place}.{edit_number}\n"
        version = WorkspaceRepository.get_document(thread).version
        WorkspaceRepository.save_person_edit(thread, "".join(current), based_on=version, actor="bob")
    before = WorkspaceRepository.get_document(thread)

    chosen = [agent_places[index] for index in accepted] if op != "append" else []
    touched_by_people = {place for places in people for place in places}
    try:
        decided = WorkspaceRepository.decide_proposal(thread, proposal.pk, accepted, actor="alice")
    except EditConflict:
        after = WorkspaceRepository.get_document(thread)
        assert (after.version, after.content) == (before.version, before.content)
        assert Proposal.objects.get(pk=proposal.pk).status == "open"
        assert any(abs(place - other) <= 1 for place in chosen for other in touched_by_people)
        return

    expected = list(current)
    for place in chosen:
        expected[place] = proposed[place]
    if op == "append" and accepted:
        expected += tail
    assert WorkspaceRepository.get_document(thread).content == "".join(expected)
    assert all(place not in touched_by_people for place in chosen)  # a place both changed never merges
    assert decided.status == ("rejected" if not accepted else "accepted" if len(accepted) == hunks else "partial")
    assert (decided.accepted, decided.rejected) == (accepted, [n for n in range(hunks) if n not in accepted])
