"""The revision log: one revision per committed change, every kept version rebuilt exactly."""

import json
import random
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.utils import timezone

from tests.support import stored
from workspace.documents.repository import WorkspaceRepository
from workspace.events import ThreadEventStorage, document_channel
from workspace.exceptions import RevisionNotFound
from workspace.history import revisions as history
from workspace.history import snapshot_policy
from workspace.internals.django_eventstream import EventDoesNotExist
from workspace.models import Revision, Snapshot, WorkingDocument
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db

WHY = "History test."


def revisions(thread_id: str) -> list[dict]:
    return list(
        Revision.objects.filter(document__thread_id=thread_id)
        .order_by("version")
        .values("version", "op", "title", "length", "text", "action_and_reasoning", "actor", "tool", "restored_from")
    )


def replayed_content(thread_id: str) -> str:
    """The content rebuilt from the thread's events, read from the storage 100 at a time."""
    storage, content, last_id, version = ThreadEventStorage(), "", 0, 0
    while events := storage.get_events(document_channel(thread_id), last_id):
        for event in events:
            data = json.loads(event.data)
            assert data["version"] == version + 1
            content = content + data["text"] if data["op"] == "append" else data["content"]
            last_id, version = event.id, data["version"]
    return content


def test_every_tool_call_records_one_revision_with_its_reason_actor_and_tool():
    DocumentTools("h-1", actor="planner").update_document(
        content="# Plan\n", title="Plan", action_and_reasoning="Start."
    )
    DocumentTools("h-1").append_to_document(text="- a\n", action_and_reasoning="Add a.")
    DocumentTools("h-1").append_to_document(text="", action_and_reasoning="Nothing to add.")  # no change, no revision

    assert revisions("h-1") == [
        {
            "version": 1,
            "op": "update",
            "title": "Plan",
            "length": 7,
            "text": "# Plan\n",
            "action_and_reasoning": "Start.",
            "actor": "planner",
            "tool": "update_document",
            "restored_from": None,
        },
        {
            "version": 2,
            "op": "append",
            "title": "Plan",
            "length": 11,
            "text": "- a\n",
            "action_and_reasoning": "Add a.",
            "actor": None,
            "tool": "append_to_document",
            "restored_from": None,
        },
    ]


def test_a_failed_call_records_no_revision():
    DocumentTools("h-2").append_to_document(text="ok", action_and_reasoning=WHY)
    failure = DocumentTools("h-2").update_document(content="x" * 1_000_001, action_and_reasoning=WHY)
    assert failure["success"] is False
    assert [revision["version"] for revision in revisions("h-2")] == [1]


def test_appends_store_only_their_chunk():
    WorkspaceRepository.upsert_document("h-3", content="x" * 10_000)
    for n in range(20):
        WorkspaceRepository.append_document("h-3", f"{n};")
    texts = [revision["text"] for revision in revisions("h-3")]
    assert texts[0] == "x" * 10_000
    assert texts[1:] == [f"{n};" for n in range(20)]


def test_restore_makes_an_old_version_current_as_a_new_revision():
    WorkspaceRepository.upsert_document("h-4", content="first", title="One")
    WorkspaceRepository.append_document("h-4", " draft")
    WorkspaceRepository.upsert_document("h-4", content="second", title="Two")

    change = WorkspaceRepository.restore("h-4", 2, actor="editor", reason="The second draft lost the intro.")

    assert (change.op, change.version, change.text) == ("restore", 4, "first draft")  # as its revision says
    assert stored("h-4") == {"title": "One", "content": "first draft", "length": 11, "version": 4}
    assert revisions("h-4")[-1] == {
        "version": 4,
        "op": "restore",
        "title": "One",
        "length": 11,
        "text": "first draft",
        "action_and_reasoning": "The second draft lost the intro.",
        "actor": "editor",
        "tool": None,
        "restored_from": 2,
    }
    assert len(revisions("h-4")) == 4  # history is never rewritten


def test_restoring_a_version_that_does_not_exist_changes_nothing():
    WorkspaceRepository.upsert_document("h-5", content="only")
    with pytest.raises(RevisionNotFound):
        WorkspaceRepository.restore("h-5", 7)
    assert stored("h-5")["version"] == 1


@pytest.mark.parametrize("seed", [1, 2])
# The storage gives its connection back after each read: outside a test transaction.
@pytest.mark.django_db(transaction=True)
def test_after_a_random_mix_every_version_rebuilds_and_the_events_replay_the_content(monkeypatch, seed):
    # Small thresholds, so that 200 changes take many snapshots.
    monkeypatch.setattr(snapshot_policy, "SNAPSHOT_EVERY_CHANGES", 7)
    monkeypatch.setattr(snapshot_policy, "SNAPSHOT_MIN_CHARS", 40)
    rng = random.Random(seed)
    expected = {}  # version -> content
    content = ""
    for step in range(200):
        roll = rng.random()
        if roll < 0.15 or not expected:
            content = f"update {step} " + "é" * rng.randint(0, 30)
            change = WorkspaceRepository.upsert_document("mix", content=content)
        elif roll < 0.25:
            restored = rng.choice(sorted(expected))
            content = expected[restored]
            change = WorkspaceRepository.restore("mix", restored)
        else:
            text = f"<{step}>" + "😀" * rng.randint(0, 12)
            content += text
            change = WorkspaceRepository.append_document("mix", text)
        expected[change.version] = content

    assert Snapshot.objects.filter(document__thread_id="mix").exists()
    document = WorkingDocument.objects.get(thread_id="mix")
    for version, content in expected.items():
        revision, rebuilt = history.revision_with_content(document, version)
        assert rebuilt == content, f"version {version}"
        assert revision.length == len(content)
    assert replayed_content("mix") == document.content


def test_rebuilding_the_newest_of_1000_appends_costs_a_few_queries(django_assert_max_num_queries):
    for n in range(1000):
        WorkspaceRepository.append_document("long", f"line {n}\n")
    document = WorkingDocument.objects.get(thread_id="long")

    with django_assert_max_num_queries(3):
        _, content = history.revision_with_content(document, 1000)
    assert content == document.content


def test_large_appends_take_snapshots_so_a_rebuild_reads_a_bounded_run():
    chunk = "y" * 100_000
    for _ in range(9):
        WorkspaceRepository.append_document("big", chunk)
    document = WorkingDocument.objects.get(thread_id="big")
    snapshots = list(Snapshot.objects.filter(document=document).values_list("version", flat=True))
    # Each snapshot once the appends since the last whole copy are as long as that copy:
    # at most about twice the document is stored for them, and read for a rebuild.
    assert snapshots == [2, 4, 8]
    assert history.revision_with_content(document, 9)[1] == chunk * 9


# The storage gives its connection back after each read: outside a test transaction.
@pytest.mark.django_db(transaction=True)
def test_a_document_deleted_and_written_again_resets_its_old_readers():
    WorkspaceRepository.upsert_document("reborn", content="old life")
    for n in range(4):
        WorkspaceRepository.append_document("reborn", f" {n}")
    last_seen = ThreadEventStorage().get_events(document_channel("reborn"), 0)[-1].id
    WorkingDocument.objects.filter(thread_id="reborn").delete()  # as a host cleaning up threads may
    for n in range(6):
        WorkspaceRepository.append_document("reborn", f"new {n}")

    with pytest.raises(EventDoesNotExist):
        ThreadEventStorage().get_events(document_channel("reborn"), last_seen)


# The storage gives its connection back after each read: outside a test transaction.
@pytest.mark.django_db(transaction=True)
def test_events_leave_out_text_over_the_limit():
    WorkspaceRepository.upsert_document("limit", content="a" * 10)
    WorkspaceRepository.append_document("limit", "b" * 11)
    WorkspaceRepository.upsert_document("limit", content="c" * 11)
    with override_settings(WORKSPACE_EVENT_MAX_CHARS=10):
        events = ThreadEventStorage().get_events(document_channel("limit"), 0)
    by = {"actor": None, "source": "agent", "tool": None, "action_and_reasoning": ""}
    by |= {"review": False, "reviewed_by": None, "proposal": None}
    update, append = {"op": "update", "revision_op": "update"}, {"op": "append", "revision_op": "append"}
    assert [json.loads(event.data) for event in events] == [
        {"thread_id": "limit", "version": 1, **update, "title": "", "length": 10, "content": "a" * 10, **by},
        {"thread_id": "limit", "version": 2, **append, "title": "", "length": 21, "omitted": True, **by},
        {"thread_id": "limit", "version": 3, **update, "title": "", "length": 11, "omitted": True, **by},
    ]


# The storage gives its connection back after each read: outside a test transaction.
@pytest.mark.django_db(transaction=True)
def test_events_say_who_made_each_change_and_why_with_long_reasons_cut():
    long_reason = "why " * 400  # 1,600 characters
    WorkspaceRepository.upsert_document("who", content="a", actor="ann", reason="Typed it.", source="person")
    WorkspaceRepository.append_document("who", "b", actor="bot", reason=long_reason)
    WorkspaceRepository.append_document("who", "c", actor="bot", reason="x" * 1000)
    events = [json.loads(event.data) for event in ThreadEventStorage().get_events(document_channel("who"), 0)]
    assert [(e["actor"], e["source"], e["tool"]) for e in events] == [
        ("ann", "person", None),
        ("bot", "agent", None),
        ("bot", "agent", None),
    ]
    assert events[0]["action_and_reasoning"] == "Typed it." and "reason_truncated" not in events[0]
    assert events[1]["action_and_reasoning"] == long_reason[:1000] and events[1]["reason_truncated"] is True
    assert events[2]["action_and_reasoning"] == "x" * 1000 and "reason_truncated" not in events[2]


# The storage gives its connection back after each read: outside a test transaction.
@pytest.mark.django_db(transaction=True)
def test_pruning_keeps_recent_versions_rebuildable_and_the_newest_always(monkeypatch):
    monkeypatch.setattr(snapshot_policy, "SNAPSHOT_EVERY_CHANGES", 1000)
    WorkspaceRepository.upsert_document("old", content="base|")
    for n in range(6):
        WorkspaceRepository.append_document("old", f"{n}|")
    WorkspaceRepository.upsert_document("stale", content="untouched for long")
    expected = {
        version: history.revision_with_content(WorkingDocument.objects.get(thread_id="old"), version)[1]
        for version in range(1, 8)
    }
    event_ids = dict(Revision.objects.filter(document__thread_id="old").values_list("version", "pk"))
    long_ago = timezone.now() - timedelta(days=40)
    Revision.objects.filter(document__thread_id="old", version__lte=4).update(created_at=long_ago)
    Revision.objects.filter(document__thread_id="stale").update(created_at=long_ago)

    call_command("prune_revisions", "--keep-days", "30")

    document = WorkingDocument.objects.get(thread_id="old")
    assert [revision["version"] for revision in revisions("old")] == [5, 6, 7]
    for version in (5, 6, 7):
        assert history.revision_with_content(document, version)[1] == expected[version]
    assert [revision["version"] for revision in revisions("stale")] == [1]  # the newest is kept
    assert stored("old")["content"] == expected[7]
    # Appends after the pruning still build on a whole copy that is kept.
    WorkspaceRepository.append_document("old", "after|")
    assert history.revision_with_content(document, 8)[1] == expected[7] + "after|"
    # A client that last saw a pruned version starts over from the document.
    with pytest.raises(EventDoesNotExist):
        ThreadEventStorage().get_events(document_channel("old"), event_ids[3])
    assert len(ThreadEventStorage().get_events(document_channel("old"), event_ids[5])) == 3  # 6, 7 and 8


def test_prune_revisions_needs_a_number_of_days():
    with pytest.raises(CommandError, match="keep-days"):
        call_command("prune_revisions")
    with override_settings(WORKSPACE_REVISION_KEEP_DAYS=30):
        call_command("prune_revisions")  # the setting's default applies


# The storage gives its connection back after each read: outside a test transaction.
@pytest.mark.django_db(transaction=True)
def test_changes_that_change_nothing_answer_as_usual_and_leave_history_and_events_alone():
    tools = DocumentTools("no-op")
    tools.update_document(content="# Plan\n- a\n- b\n", title="Plan", action_and_reasoning=WHY)
    events_before = ThreadEventStorage().get_events(document_channel("no-op"), 0)

    updated = tools.update_document(content="# Plan\n- a\n- b\n", title="Plan", action_and_reasoning=WHY)
    edited = tools.edit_document(old_str="- a", new_str="- a", action_and_reasoning=WHY)

    assert updated == {"success": True, "summary": "document updated (15 chars)", "artifact": None}
    assert edited["success"] is True
    assert edited["summary"].startswith("edited (1 replacement(s); 15 chars total)\n1\t# Plan\n2\t- a")
    assert stored("no-op")["version"] == 1
    assert [revision["version"] for revision in revisions("no-op")] == [1]
    events_after = ThreadEventStorage().get_events(document_channel("no-op"), 0)
    assert [event.id for event in events_after] == [event.id for event in events_before]


def test_a_one_line_edit_stores_that_line_and_every_version_rebuilds_in_a_few_queries(django_assert_max_num_queries):
    lines = [f"{n:04d} a line of the plan, long enough to look like one" for n in range(400)]
    WorkspaceRepository.upsert_document("lines", content="\n".join(lines))
    for n in range(150):
        new = f"{n * 7 % 400:04d} edited {n}"
        DocumentTools("lines").edit_document(old_str=lines[n * 7 % 400], new_str=new, action_and_reasoning=WHY)
        lines[n * 7 % 400] = new

    stored_texts = [revision["text"] for revision in revisions("lines")]
    assert stored_texts[1:4] == ["edited 0", "edited 1", "edited 2"]  # not the line number they share
    # A whole copy only where the run of splices is cut (this document is short).
    whole_copies = Revision.objects.filter(document__thread_id="lines", splice_line__isnull=True)
    assert list(whole_copies.values_list("version", flat=True)) == [1, 1 + snapshot_policy.SPLICE_RUN_MIN]
    document = WorkingDocument.objects.get(thread_id="lines")
    for version in (2, 75, 151):
        with django_assert_max_num_queries(3):
            _, content = history.revision_with_content(document, version)
    assert content == document.content


def test_one_line_edits_keep_about_twice_what_changed():
    lines = [f"{n:04d} " + "some words of a plan " * 3 for n in range(500)]  # 34 KB
    WorkspaceRepository.upsert_document("kept", content="\n".join(lines))
    changed = 0
    for n in range(300):
        number = n * 37 % 500
        new = f"{number:04d} rewritten as edit number {n}"
        WorkspaceRepository.edit_document("kept", lines[number], new)
        lines[number], changed = new, changed + len(new)

    texts = Revision.objects.filter(document__thread_id="kept", version__gt=1).values_list("text", flat=True)
    copies = Snapshot.objects.filter(document__thread_id="kept").values_list("content", flat=True)
    kept = sum(map(len, texts)) + sum(map(len, copies))
    # The splices hold less than what changed; the whole copies cut their runs
    # at one per SPLICE_RUN_CHARS characters of the document.
    assert kept <= 2 * changed + 300 * snapshot_policy.SPLICE_RUN_CHARS
    document = WorkingDocument.objects.get(thread_id="kept")
    assert history.revision_with_content(document, 301)[1] == document.content == "\n".join(lines)


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("whole_copies", ["often", "as configured"])
# The storage gives its connection back after each read: outside a test transaction.
@pytest.mark.django_db(transaction=True)
def test_after_updates_edits_appends_restores_and_a_prune_every_kept_version_rebuilds_and_replays(
    monkeypatch, seed, whole_copies
):
    if whole_copies == "often":
        monkeypatch.setattr(snapshot_policy, "SNAPSHOT_EVERY_CHANGES", 9)
        monkeypatch.setattr(snapshot_policy, "SNAPSHOT_MIN_CHARS", 60)
        monkeypatch.setattr(snapshot_policy, "SPLICE_RUN_MIN", 4)
    rng = random.Random(seed)
    words = ["plan", "day", "é", "😀", "\n", "\n\n", "- item", " "]

    def some_text(most: int) -> str:
        return "".join(rng.choice(words) for _ in range(rng.randint(0, most)))

    expected, content = {}, ""
    for _ in range(160):
        roll = rng.random()
        if not expected or roll < 0.15:
            content = some_text(40)
            change = WorkspaceRepository.upsert_document("mixed", content=content, title=f"t{rng.randint(0, 2)}")
        elif roll < 0.3:  # an update that keeps most of the content
            start = rng.randint(0, len(content))
            end = rng.randint(start, min(len(content), start + 10))
            content = content[:start] + some_text(4) + content[end:]
            change = WorkspaceRepository.upsert_document("mixed", content=content)
        elif roll < 0.55 and content:
            start = rng.randint(0, len(content) - 1)
            old = content[start : start + rng.randint(1, 6)]
            new = some_text(3)
            replace_all = content.count(old) > 1
            change, _, _ = WorkspaceRepository.edit_document("mixed", old, new, replace_all=replace_all)
            content = content.replace(old, new)
        elif roll < 0.65:
            restored = rng.choice(sorted(expected))
            content = expected[restored]
            change = WorkspaceRepository.restore("mixed", restored)
        else:
            text = some_text(6)
            content += text
            change = WorkspaceRepository.append_document("mixed", text)
        expected[change.version] = content

    document = WorkingDocument.objects.get(thread_id="mixed")
    assert document.content == content
    assert Revision.objects.filter(document=document, splice_line__isnull=False).exists()
    for version, text in expected.items():
        assert history.revision_with_content(document, version)[1] == text, f"version {version}"
    assert replayed_content("mixed") == content

    # A client that reconnects after version 40 gets every later change, with
    # the whole content of each update (edits and restores are updates there).
    event_ids = dict(Revision.objects.filter(document=document).values_list("version", "pk"))
    replayed = ThreadEventStorage().get_events(document_channel("mixed"), event_ids[40], limit=100)
    assert [json.loads(event.data)["version"] for event in replayed] == list(range(41, 141))
    for event in replayed:
        data = json.loads(event.data)
        if data["op"] == "update":
            assert data["content"] == expected[data["version"]], f"version {data['version']}"

    # Pruning the first 70 versions keeps every later one rebuildable.
    long_ago = timezone.now() - timedelta(days=40)
    Revision.objects.filter(document=document, version__lte=70).update(created_at=long_ago)
    call_command("prune_revisions", "--keep-days", "30")
    assert Revision.objects.filter(document=document).order_by("version").first().version == 71
    for version in range(71, document.version + 1):
        assert history.revision_with_content(document, version)[1] == expected[version], f"version {version}"
    changes = ThreadEventStorage().get_events(document_channel("mixed"), event_ids[71])
    for event in changes:
        data = json.loads(event.data)
        assert data.get("content", expected[data["version"]]) == expected[data["version"]]
    # Changes after the pruning still build on a copy that is kept.
    WorkspaceRepository.upsert_document("mixed", content="and " + content)
    latest = WorkingDocument.objects.get(thread_id="mixed")
    assert history.revision_with_content(latest, latest.version)[1] == latest.content
