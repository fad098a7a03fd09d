"""Upgrading a database whose revisions hold whole copies (before 0004, which stores splices)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from workspace.documents.repository import WorkspaceRepository
from workspace.history import revisions as history
from workspace.models import WorkingDocument

BEFORE_SPLICES = [("workspace", "0003_longer_usernames")]


@pytest.mark.django_db(transaction=True)
def test_whole_copies_from_before_stay_valid_and_later_edits_build_on_them():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE_SPLICES)
    old_apps = executor.loader.project_state(BEFORE_SPLICES).apps
    OldDocument = old_apps.get_model("workspace", "WorkingDocument")
    OldRevision = old_apps.get_model("workspace", "Revision")
    # Version 1 a whole copy, version 2 an append built on it, as the app wrote them.
    document = OldDocument.objects.create(
        thread_id="legacy-copies", content="one\ntwo\nthree", length=13, version=2, base_version=1, base_length=7
    )
    OldRevision.objects.create(document=document, version=1, op="update", length=7, text="one\ntwo", base_version=1)
    OldRevision.objects.create(document=document, version=2, op="append", length=13, text="\nthree", base_version=1)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    assert WorkingDocument.objects.get(thread_id="legacy-copies").stored_since_base == 6
    WorkspaceRepository.edit_document("legacy-copies", "two", "2")
    document = WorkingDocument.objects.get(thread_id="legacy-copies")
    expected = {1: "one\ntwo", 2: "one\ntwo\nthree", 3: "one\n2\nthree"}
    assert {version: history.revision_with_content(document, version)[1] for version in expected} == expected
    assert document.revisions.get(version=3).text == "2"  # a splice, built on the whole copy of version 1
