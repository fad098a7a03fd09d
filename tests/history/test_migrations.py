"""Upgrading a database that has documents from before history began."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from workspace.documents.repository import WorkspaceRepository
from workspace.history import revisions as history
from workspace.models import WorkingDocument


@pytest.mark.django_db(transaction=True)
def test_existing_documents_start_their_history_at_their_current_version():
    executor = MigrationExecutor(connection)
    executor.migrate([("workspace", "0001_initial")])
    old_apps = executor.loader.project_state([("workspace", "0001_initial")]).apps
    OldDocument = old_apps.get_model("workspace", "WorkingDocument")
    OldDocument.objects.create(thread_id="legacy", title="Old", content="written before", length=14, version=7)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    document = WorkingDocument.objects.get(thread_id="legacy")
    revision, content = history.revision_with_content(document, 7)
    assert (revision.op, revision.length, content) == ("update", 14, "written before")
    WorkspaceRepository.append_document("legacy", " and after")
    assert history.revision_with_content(document, 8)[1] == "written before and after"
