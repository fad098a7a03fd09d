"""Appends held in their revisions: an append leaves the row's content column
as it was, one append in a run folds the chunks held into it, and whoever
reads the document, however, reads the content at its version."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from tests.support import requires_postgresql, run_concurrently, stored
from workspace.documents.repository import WorkspaceRepository
from workspace.history import revisions, snapshot_policy
from workspace.models import Revision, WorkingDocument
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db

WHY = "Testing held appends."


def column(thread_id: str) -> tuple[str, int, int]:
    """What the row itself holds: its content column, that column's version, and the document's."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT content, content_version, version FROM workspace_workingdocument WHERE thread_id = %s", [thread_id]
        )
        return cursor.fetchone()


def test_an_append_leaves_the_row_content_as_it_was_and_every_reader_sees_it_joined():
    tools = DocumentTools("held")
    tools.update_document(content="# Plan\n", action_and_reasoning=WHY)
    tools.append_to_document(text="- one\n", action_and_reasoning=WHY)
    tools.append_to_document(text="- two\n", action_and_reasoning=WHY)

    assert column("held") == ("# Plan\n", 1, 3)
    whole = "# Plan\n- one\n- two\n"
    assert WorkspaceRepository.get_document("held").content == whole
    assert WorkingDocument.objects.get(thread_id="held").content == whole
    assert stored("held") == {"title": "", "content": whole, "length": len(whole), "version": 3}
    assert "- two" in tools.read_document(action_and_reasoning=WHY)["summary"]
    assert revisions.revision_with_content(WorkingDocument.objects.get(thread_id="held"), 3)[1] == whole


def test_one_append_of_a_run_folds_the_ones_held_into_the_row():
    tools = DocumentTools("folds")
    tools.update_document(content="start\n", action_and_reasoning=WHY)
    run = snapshot_policy.FOLD_MIN_APPENDS  # a small document folds at the shortest run
    for n in range(run - 1):
        tools.append_to_document(text=f"{n}\n", action_and_reasoning=WHY)
    assert column("folds")[1:] == (1, run)

    tools.append_to_document(text="last\n", action_and_reasoning=WHY)

    expected = "start\n" + "".join(f"{n}\n" for n in range(run - 1)) + "last\n"
    assert column("folds") == (expected, run + 1, run + 1)
    assert WorkspaceRepository.get_document("folds").content == expected


def test_a_large_document_holds_a_longer_run_and_a_read_joins_it_exactly():
    tools = DocumentTools("long-run")
    body = "x" * (snapshot_policy.FOLD_CHARS_PER_APPEND * 64 - 1) + "\n"  # 256 KB: a run of 64
    tools.update_document(content=body, action_and_reasoning=WHY)
    chunks = [f"chunk {n}\n" for n in range(63)]
    for chunk in chunks:
        tools.append_to_document(text=chunk, action_and_reasoning=WHY)

    assert column("long-run")[1:] == (1, 64)
    assert WorkspaceRepository.get_document("long-run").content == body + "".join(chunks)
    tools.append_to_document(text="folded\n", action_and_reasoning=WHY)
    assert column("long-run")[0] == body + "".join(chunks) + "folded\n"


def test_a_change_of_the_whole_content_takes_in_the_appends_held():
    tools = DocumentTools("whole")
    tools.update_document(content="a\nb\n", action_and_reasoning=WHY)
    tools.append_to_document(text="c\n", action_and_reasoning=WHY)

    tools.edit_document(old_str="b\n", new_str="B\n", action_and_reasoning=WHY)

    assert column("whole") == ("a\nB\nc\n", 3, 3)
    WorkspaceRepository.restore("whole", 2, reason=WHY)
    assert column("whole") == ("a\nb\nc\n", 4, 4)


def test_pruning_folds_the_appends_held_before_it_deletes_their_revisions():
    tools = DocumentTools("pruned")
    tools.update_document(content="kept\n", action_and_reasoning=WHY)
    for n in range(3):
        tools.append_to_document(text=f"{n}\n", action_and_reasoning=WHY)
    Revision.objects.filter(document__thread_id="pruned").update(created_at=timezone.now() - timedelta(days=30))

    WorkspaceRepository.prune_revisions(timezone.now() - timedelta(days=1))

    assert Revision.objects.filter(document__thread_id="pruned").count() == 1
    assert column("pruned") == ("kept\n0\n1\n2\n", 4, 4)
    assert WorkspaceRepository.get_document("pruned").content == "kept\n0\n1\n2\n"


def test_a_row_read_before_a_fold_and_a_prune_is_read_again_whole():
    tools = DocumentTools("raced")
    tools.update_document(content="kept\n", action_and_reasoning=WHY)
    tools.append_to_document(text="held\n", action_and_reasoning=WHY)
    names = ["id", "thread_id", "content", "content_version", "length", "version"]  # in the model's order
    with connection.cursor() as cursor:  # the row as a reader outside a transaction read it
        cursor.execute(f"SELECT {', '.join(names)} FROM workspace_workingdocument WHERE thread_id = %s", ["raced"])
        read_before = cursor.fetchone()
    Revision.objects.filter(document__thread_id="raced").update(created_at=timezone.now() - timedelta(days=30))
    tools.append_to_document(text="more\n", action_and_reasoning=WHY)  # a newer revision, kept
    Revision.objects.filter(document__thread_id="raced", version=3).update(created_at=timezone.now())
    WorkspaceRepository.prune_revisions(timezone.now() - timedelta(days=1))  # folds, then deletes version 2

    document = WorkingDocument.from_db("default", names, read_before)

    assert (document.content, document.version) == ("kept\nheld\nmore\n", 3)


@requires_postgresql
@pytest.mark.django_db(transaction=True)
def test_appends_racing_across_many_folds_land_once_each_in_order_of_their_versions():
    DocumentTools("racing").update_document(content="", action_and_reasoning=WHY)

    def append(n: int) -> None:
        envelope = DocumentTools("racing").append_to_document(text=f"<{n}>\n", action_and_reasoning=WHY)
        assert envelope["success"], envelope

    run_concurrently([lambda n=n: append(n) for n in range(48)])

    by_version = Revision.objects.filter(document__thread_id="racing").order_by("version")
    assert list(by_version.values_list("version", flat=True)) == list(range(1, 50))
    content = WorkspaceRepository.get_document("racing").content
    assert content == "".join(by_version.values_list("text", flat=True))
    assert sorted(content.splitlines()) == sorted(f"<{n}>" for n in range(48))
    assert column("racing")[1] > 1  # some append folded on the way


def test_saving_a_document_through_the_orm_keeps_the_appends_held():
    tools = DocumentTools("saved")
    tools.update_document(content="a\n", action_and_reasoning=WHY)
    tools.append_to_document(text="b\n", action_and_reasoning=WHY)

    without_content = WorkingDocument.objects.defer("content").get(thread_id="saved")
    without_content.title = "Renamed"
    without_content.save()
    assert WorkspaceRepository.get_document("saved").content == "a\nb\n"

    whole = WorkingDocument.objects.get(thread_id="saved")
    whole.save(update_fields=["content"])
    assert column("saved") == ("a\nb\n", 2, 2)
    assert WorkspaceRepository.get_document("saved").content == "a\nb\n"
