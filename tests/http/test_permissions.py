"""Read and write permission: a policy of three arguments is
asked "read" or "write"; a reader who may not write reads everything and
changes nothing, over HTTP and MCP alike."""

import pytest
from django.test import override_settings

from tests.support import stored
from workspace.access import can_access
from workspace.models import Revision
from workspace.tools import DocumentTools

WHY = "Testing read and write permission."
asked = []


def read_only(user, thread_id, action):
    asked.append(action)
    return action == "read"


def two_arguments(user, thread_id):
    return thread_id == "doc"


@pytest.fixture
def written(db):
    DocumentTools("doc", actor="planner").update_document(content="one\n", title="T", action_and_reasoning=WHY)
    DocumentTools("doc", actor="planner").append_to_document(text="two\n", action_and_reasoning=WHY)
    asked.clear()


READS = [
    "/api/workspace/threads/doc/document/",
    "/api/workspace/threads/doc/revisions/",
    "/api/workspace/threads/doc/revisions/1/",
]
WRITES = [
    ("post", "/api/workspace/threads/doc/tools/append_to_document/", {"text": "x", "action_and_reasoning": WHY}, {}),
    ("post", "/api/workspace/threads/doc/tools/update_document/", {"content": "x", "action_and_reasoning": WHY}, {}),
    ("put", "/api/workspace/threads/doc/document/", {"content": "x"}, {"HTTP_IF_MATCH": '"2"'}),
    ("post", "/api/workspace/threads/doc/revisions/1/restore/", None, {}),
]


@pytest.mark.django_db
@override_settings(WORKSPACE_ACCESS_POLICY="tests.http.test_permissions.read_only")
def test_a_reader_reads_everything(api, written):
    for url in READS:
        assert api.get(url).status_code == 200, url
    read = api.post("/api/workspace/threads/doc/tools/read_document/", {"action_and_reasoning": WHY}, format="json")
    assert read.status_code == 200 and read.json()["success"] is True
    assert set(asked) == {"read"}


@pytest.mark.django_db
@override_settings(WORKSPACE_ACCESS_POLICY="tests.http.test_permissions.read_only")
@pytest.mark.parametrize("method, url, body, headers", WRITES)
def test_a_reader_changes_nothing(api, written, method, url, body, headers):
    response = getattr(api, method)(url, body, format="json", **headers)
    assert response.status_code == 403
    assert response.json() == {"success": False, "error": "You may read this thread but not change it."}
    assert stored("doc")["content"] == "one\ntwo\n"
    assert Revision.objects.filter(document__thread_id="doc").count() == 2


@pytest.mark.django_db
@override_settings(WORKSPACE_ACCESS_POLICY="tests.http.test_permissions.two_arguments")
def test_a_policy_of_two_arguments_answers_both(api, written, user):
    assert can_access(user, "doc", "read") and can_access(user, "doc", "write")
    assert not can_access(user, "other", "write")
    assert (
        api.put(
            "/api/workspace/threads/doc/document/", {"content": "x"}, format="json", HTTP_IF_MATCH='"2"'
        ).status_code
        == 200
    )
    other = api.post(
        "/api/workspace/threads/other/tools/append_to_document/", {"text": "x", "action_and_reasoning": WHY}
    )
    assert other.status_code == 403 and other.json()["error"] == "You may not use this thread."


@pytest.mark.django_db(transaction=True)
def test_over_mcp_a_reader_reads_and_a_writing_tool_is_refused(token):
    from tests.support.live import Server
    from tests.support.mcp import connect, run

    DocumentTools("mcp-ro").update_document(content="kept\n", action_and_reasoning=WHY)
    server = Server(WORKSPACE_ACCESS_POLICY="tests.http.test_permissions.read_only")
    try:

        async def scenario():
            async with connect(server, token, "mcp-ro") as client:
                read = await client.call_tool("read_document", {"action_and_reasoning": WHY})
                write = await client.call_tool("append_to_document", {"text": "x", "action_and_reasoning": WHY})
                return read, write

        read, write = run(scenario())
        assert read.is_error is False and "kept" in read.content[0].text
        assert write.is_error is True
        assert write.structured_content == {"success": False, "error": "You may read this thread but not change it."}
        assert stored("mcp-ro")["content"] == "kept\n"
    finally:
        server.stop()
