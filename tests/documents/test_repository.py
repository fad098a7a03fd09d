from unittest import mock

import pytest
from django.db import connection
from django.test import override_settings

from tests.support import requires_postgresql, stored
from workspace.documents import writes
from workspace.documents.repository import WorkspaceRepository
from workspace.exceptions import (
    DocumentNotFound,
    DocumentTooLarge,
    InvalidArguments,
    InvalidThreadId,
    PreconditionFailed,
)
from workspace.models import Revision
from workspace.signals import document_changed

pytestmark = pytest.mark.django_db


@pytest.fixture
def changes():
    """Every DocumentChange the repository announces during the test."""
    received = []

    def receiver(sender, change, **kwargs):
        received.append(change)

    document_changed.connect(receiver)
    yield received
    document_changed.disconnect(receiver)


def test_upsert_creates_then_replaces_and_counts_versions():
    first = WorkspaceRepository.upsert_document("t-1", content="draft", title="Plan")
    second = WorkspaceRepository.upsert_document("t-1", content="final text")

    assert (first.version, first.length, first.title) == (1, 5, "Plan")
    assert (second.version, second.length, second.title) == (2, 10, "Plan")
    assert stored("t-1") == {"title": "Plan", "content": "final text", "length": 10, "version": 2}


def test_upsert_title_is_replaced_or_emptied_only_when_given():
    WorkspaceRepository.upsert_document("t-1", content="a", title="Old")
    WorkspaceRepository.upsert_document("t-1", content="b", title="New")
    assert stored("t-1")["title"] == "New"
    WorkspaceRepository.upsert_document("t-1", content="c", title="")
    assert stored("t-1")["title"] == ""


def test_new_document_without_title_has_empty_title():
    WorkspaceRepository.upsert_document("t-1", content="x")
    assert stored("t-1")["title"] == ""


def test_append_creates_then_concatenates():
    created = WorkspaceRepository.append_document("t-1", "Hello")
    appended = WorkspaceRepository.append_document("t-1", ", world")

    assert (created.version, created.length) == (1, 5)
    assert (appended.version, appended.length) == (2, 12)
    assert stored("t-1") == {"title": "", "content": "Hello, world", "length": 12, "version": 2}


def test_append_keeps_the_title():
    WorkspaceRepository.upsert_document("t-1", content="a", title="Kept")
    assert WorkspaceRepository.append_document("t-1", "b").title == "Kept"
    assert stored("t-1")["title"] == "Kept"


def test_lengths_count_code_points():
    change = WorkspaceRepository.upsert_document("t-1", content="日本語😀")
    assert change.length == 4
    assert WorkspaceRepository.append_document("t-1", "👩‍💻").length == 4 + len("👩‍💻")


def test_empty_append_changes_nothing_on_an_existing_document(changes):
    WorkspaceRepository.upsert_document("t-1", content="abc")
    before = stored("t-1")
    changes.clear()

    result = WorkspaceRepository.append_document("t-1", "")

    assert (result.version, result.length) == (1, 3)
    assert stored("t-1") == before
    assert changes == []


def test_empty_append_creates_an_empty_document(changes):
    result = WorkspaceRepository.append_document("t-1", "")
    assert stored("t-1") == {"title": "", "content": "", "length": 0, "version": 1}
    assert [(c.op, c.version, c.text) for c in changes] == [("update", 1, "")]  # created as upsert_document creates
    assert result.version == 1


def test_append_creates_a_missing_document_as_upsert_document_does(changes):
    with mock.patch.object(writes, "create", side_effect=writes.create) as create:
        WorkspaceRepository.append_document("t-1", "Hello", reason="Starting the plan.")
        WorkspaceRepository.append_document("t-1", ", world")

    assert create.call_count == 1  # the first append only: the second concatenates
    assert create.call_args.args[:3] == ("t-1", "Hello", None)
    assert [(c.op, c.version) for c in changes] == [("update", 1), ("append", 2)]
    revision = Revision.objects.get(document__thread_id="t-1", version=1)
    assert (revision.text, revision.action_and_reasoning) == ("Hello", "Starting the plan.")


def test_upsert_with_an_expected_version_applies_only_at_that_version():
    with pytest.raises(PreconditionFailed) as missing:
        WorkspaceRepository.upsert_document("t-1", content="a", expected_version=1)
    assert missing.value.current_version == 0
    WorkspaceRepository.upsert_document("t-1", content="a", expected_version=0)
    with pytest.raises(PreconditionFailed) as exists:
        WorkspaceRepository.upsert_document("t-1", content="b", expected_version=0)
    assert exists.value.current_version == 1
    WorkspaceRepository.upsert_document("t-1", content="c", expected_version=1)
    assert stored("t-1") == {"title": "", "content": "c", "length": 1, "version": 2}


def test_changes_replayed_in_version_order_rebuild_the_content(changes):
    WorkspaceRepository.append_document("t-1", "one ")
    WorkspaceRepository.append_document("t-1", "two ")
    WorkspaceRepository.upsert_document("t-1", content="reset ", title="T")
    WorkspaceRepository.append_document("t-1", "three")

    rebuilt = ""
    for change in sorted(changes, key=lambda c: c.version):
        rebuilt = rebuilt + change.text if change.op == "append" else change.text
    assert [c.version for c in changes] == [1, 2, 3, 4]
    assert rebuilt == stored("t-1")["content"] == "reset three"
    assert changes[-1].title == "T"


@override_settings(WORKSPACE_MAX_DOCUMENT_CHARS=10)
def test_content_may_reach_the_limit_but_not_pass_it():
    WorkspaceRepository.upsert_document("t-1", content="x" * 10)
    with pytest.raises(DocumentTooLarge, match="11 characters, more than the limit of 10"):
        WorkspaceRepository.upsert_document("t-1", content="y" * 11)
    assert stored("t-1")["content"] == "x" * 10


@override_settings(WORKSPACE_MAX_DOCUMENT_CHARS=10)
def test_append_may_fill_the_document_to_the_limit_but_not_past_it():
    WorkspaceRepository.append_document("t-1", "x" * 6)
    WorkspaceRepository.append_document("t-1", "y" * 4)
    with pytest.raises(DocumentTooLarge, match="would have 11 characters"):
        WorkspaceRepository.append_document("t-1", "z")
    assert stored("t-1") == {"title": "", "content": "x" * 6 + "y" * 4, "length": 10, "version": 2}


@override_settings(WORKSPACE_MAX_DOCUMENT_CHARS=10)
def test_a_chunk_over_the_limit_does_not_create_a_document():
    with pytest.raises(DocumentTooLarge):
        WorkspaceRepository.append_document("t-1", "x" * 11)
    assert stored("t-1") is None


@pytest.mark.parametrize("thread_id", ["", "a b", "a/b", "x" * 129, "é", "a\x00", None, 7])
def test_bad_thread_ids_are_refused_before_any_query(thread_id, django_assert_num_queries):
    with django_assert_num_queries(0):
        with pytest.raises(InvalidThreadId):
            WorkspaceRepository.append_document(thread_id, "x")
        with pytest.raises(InvalidThreadId):
            WorkspaceRepository.upsert_document(thread_id, content="x")


@pytest.mark.parametrize("thread_id", ["a", "x" * 128, "0f8b1c2e-7c1d-4a5e-9a3b-2f6d1e8c9b7a", "42", "slug_1.v2:x-y"])
def test_thread_ids_of_the_allowed_characters_are_accepted(thread_id):
    WorkspaceRepository.append_document(thread_id, "x")
    assert stored(thread_id)["content"] == "x"


def test_nul_is_refused_on_every_backend():
    WorkspaceRepository.upsert_document("t-1", content="ok")
    with pytest.raises(InvalidArguments, match="content contains the NUL character"):
        WorkspaceRepository.upsert_document("t-1", content="a\x00b")
    with pytest.raises(InvalidArguments, match="title contains the NUL character"):
        WorkspaceRepository.upsert_document("t-1", content="a", title="\x00")
    with pytest.raises(InvalidArguments, match="text contains the NUL character"):
        WorkspaceRepository.append_document("t-1", "\x00")
    assert stored("t-1") == {"title": "", "content": "ok", "length": 2, "version": 1}


@pytest.mark.parametrize("bad", ["\ud800", "ok \udfff"])
def test_lone_surrogates_are_refused(bad):
    with pytest.raises(InvalidArguments, match="content contains a lone surrogate"):
        WorkspaceRepository.upsert_document("t-1", content=bad)
    with pytest.raises(InvalidArguments, match="text contains a lone surrogate"):
        WorkspaceRepository.append_document("t-1", bad)
    assert stored("t-1") is None


def test_title_over_255_characters_is_refused():
    WorkspaceRepository.upsert_document("t-1", content="a", title="t" * 255)
    with pytest.raises(InvalidArguments, match="title has 256 characters"):
        WorkspaceRepository.upsert_document("t-1", content="b", title="t" * 256)
    assert stored("t-1")["content"] == "a"


def test_non_string_values_are_refused():
    with pytest.raises(InvalidArguments, match="content must be a string, got int"):
        WorkspaceRepository.upsert_document("t-1", content=5)
    with pytest.raises(InvalidArguments, match="text must be a string, got NoneType"):
        WorkspaceRepository.append_document("t-1", None)
    assert stored("t-1") is None


def test_get_document():
    WorkspaceRepository.upsert_document("t-1", content="abc", title="T")
    document = WorkspaceRepository.get_document("t-1")
    assert (document.content, document.title, document.version) == ("abc", "T", 1)
    with pytest.raises(DocumentNotFound):
        WorkspaceRepository.get_document("t-2")


@requires_postgresql
def test_content_column_uses_lz4_compression_on_postgresql():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attcompression FROM pg_attribute "
            "WHERE attrelid = 'workspace_workingdocument'::regclass AND attname = 'content'"
        )
        assert cursor.fetchone()[0] == "l"


@override_settings(WORKSPACE_MAX_DOCUMENT_CHARS=100_000)
def test_an_edit_whose_result_would_pass_the_limit_is_refused_before_it_is_built():
    import tracemalloc

    WorkspaceRepository.upsert_document("many", content="a" * 100_000)
    tracemalloc.start()
    try:
        # Built, the result would hold 20 million characters: 200 times the limit.
        with pytest.raises(DocumentTooLarge, match=r"20000000 characters, more than the limit of 100000"):
            WorkspaceRepository.edit_document("many", "a", "b" * 200, replace_all=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, f"{peak:,} bytes allocated to refuse it"
    assert stored("many")["version"] == 1
    assert Revision.objects.filter(document__thread_id="many").count() == 1


def test_an_update_that_changes_nothing_commits_nothing(changes):
    WorkspaceRepository.upsert_document("same", content="# Plan\n- a\n", title="Plan")
    changes.clear()

    for title in ("Plan", None):  # the same title, or none given: the title is kept
        change = WorkspaceRepository.upsert_document("same", content="# Plan\n- a\n", title=title)
        assert (change.version, change.title, change.length, change.text) == (1, "Plan", 11, "# Plan\n- a\n")
    assert changes == []
    assert stored("same") == {"title": "Plan", "content": "# Plan\n- a\n", "length": 11, "version": 1}
    assert Revision.objects.filter(document__thread_id="same").count() == 1

    # A new title alone is a change.
    assert WorkspaceRepository.upsert_document("same", content="# Plan\n- a\n", title="Trip").version == 2
    assert [change.version for change in changes] == [2]


def test_an_edit_that_changes_nothing_commits_nothing(changes):
    WorkspaceRepository.upsert_document("same-edit", content="one\ntwo\n")
    changes.clear()

    change, replaced, first = WorkspaceRepository.edit_document("same-edit", "two", "two")

    assert (change.version, change.text, replaced, first) == (1, "one\ntwo\n", 1, 4)
    assert changes == []
    assert Revision.objects.filter(document__thread_id="same-edit").count() == 1
    # It is still checked as any edit is: text that is not there fails.
    with pytest.raises(InvalidArguments, match="did not appear verbatim"):
        WorkspaceRepository.edit_document("same-edit", "three", "three")


def test_a_restore_of_the_current_content_changes_nothing(changes):
    WorkspaceRepository.upsert_document("again", content="kept", title="T")
    WorkspaceRepository.upsert_document("again", content="other")
    WorkspaceRepository.upsert_document("again", content="kept")
    changes.clear()
    change = WorkspaceRepository.restore("again", 1, reason="Back to the first version.")
    assert (change.version, change.text, change.title) == (3, "kept", "T")
    assert changes == []
    assert Revision.objects.filter(document__thread_id="again").count() == 3
    # A restore that changes the title still restores.
    WorkspaceRepository.upsert_document("again", content="kept", title="New")
    assert WorkspaceRepository.restore("again", 1).version == 5


@pytest.mark.django_db
def test_a_failed_precondition_check_in_the_hosts_transaction_leaves_that_transaction_usable():
    from django.db import transaction

    from workspace.documents.preconditions import ExpectedVersions
    from workspace.documents.repository import check_precondition

    WorkspaceRepository.upsert_document("hosted", "a\n")
    with transaction.atomic():
        with pytest.raises(PreconditionFailed):
            check_precondition("hosted", ExpectedVersions.exactly(5))
        # Rolled back to its own savepoint only: the host goes on.
        assert WorkspaceRepository.get_document("hosted").version == 1
