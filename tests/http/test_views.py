import json

import pytest
from django.test import override_settings

from tests.support import stored

pytestmark = pytest.mark.django_db

WHY = "Drafting the summary the user asked for."
TOOLS = "/api/workspace/tools/"


def call(api, thread_id, tool, body):
    """POST ``body`` encoded as JSON exactly (``None`` is sent as ``null``)."""
    return api.generic(
        "POST", f"/api/workspace/threads/{thread_id}/tools/{tool}/", json.dumps(body), content_type="application/json"
    )


def document(api, thread_id):
    return api.get(f"/api/workspace/threads/{thread_id}/document/")


def test_tool_list_has_both_tools_with_schemas(api):
    response = api.get(TOOLS)
    assert response.status_code == 200
    tools = {tool["name"]: tool for tool in response.json()}
    assert set(tools) == {"update_document", "append_to_document", "read_document", "edit_document"}
    for tool in tools.values():
        assert set(tool) == {"name", "description", "parameters"}
        parameters = tool["parameters"]
        assert parameters["type"] == "object"
        assert parameters["additionalProperties"] is False
        assert "action_and_reasoning" in parameters["properties"]
        assert "action_and_reasoning" in parameters["required"]
    assert tools["append_to_document"]["parameters"]["required"] == ["text", "action_and_reasoning"]


def test_update_then_append_then_read_the_document(api):
    response = call(
        api, "thread-1", "update_document", {"content": "# Plan\n", "title": "Plan", "action_and_reasoning": WHY}
    )
    assert response.status_code == 200
    assert response.json() == {"success": True, "summary": "document updated (7 chars)", "artifact": None}

    response = call(api, "thread-1", "append_to_document", {"text": "- step 1", "action_and_reasoning": WHY})
    assert response.json() == {"success": True, "summary": "appended (15 chars total)", "artifact": None}

    response = document(api, "thread-1")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"thread_id", "title", "content", "length", "version", "review", "created_at", "updated_at"}
    assert (body["thread_id"], body["title"], body["content"], body["length"], body["version"]) == (
        "thread-1",
        "Plan",
        "# Plan\n- step 1",
        15,
        2,
    )


def test_append_with_null_title_style_omission_keeps_title(api):
    call(api, "t", "update_document", {"content": "a", "title": "T", "action_and_reasoning": WHY})
    call(api, "t", "update_document", {"content": "b", "title": None, "action_and_reasoning": WHY})
    assert document(api, "t").json()["title"] == "T"


def test_document_of_a_thread_without_one_is_404(api):
    assert document(api, "nothing-here").status_code == 404


def test_a_body_sent_without_content_type_is_still_read_as_json(api):
    response = api.generic(
        "POST",
        "/api/workspace/threads/t/tools/append_to_document/",
        json.dumps({"text": "x", "action_and_reasoning": WHY}),
        content_type="",
    )
    assert response.status_code == 200, response.content
    assert stored("t")["content"] == "x"


@pytest.mark.parametrize(
    "body, error",
    [
        ({"text": "x"}, "missing required argument 'action_and_reasoning'"),
        ({"text": "x", "action_and_reasoning": ""}, "'action_and_reasoning'"),
        (
            {"text": "x", "action_and_reasoning": None},
            "argument 'action_and_reasoning': Input should be a valid string, got null",
        ),
        ({"text": 12, "action_and_reasoning": WHY}, "argument 'text': Input should be a valid string, got integer"),
        ({"text": None, "action_and_reasoning": WHY}, "argument 'text': Input should be a valid string, got null"),
        ({"text": ["x"], "action_and_reasoning": WHY}, "argument 'text': Input should be a valid string, got array"),
        ({"text": "x", "colour": "red", "action_and_reasoning": WHY}, "unknown argument 'colour'"),
        ({"text": "x\u0000", "action_and_reasoning": WHY}, "argument 'text': contains the NUL character"),
        ({"text": "x\ud800", "action_and_reasoning": WHY}, "argument 'text': contains a lone surrogate ('\\ud800')"),
        ({"text": True, "action_and_reasoning": WHY}, "argument 'text': Input should be a valid string, got boolean"),
        ({}, "missing required argument 'text'"),
        ([], "the request body must be a JSON object"),
        (["text", "x"], "the request body must be a JSON object"),
        ("text", "the request body must be a JSON object"),
        (None, "the request body must be a JSON object"),
        (3, "the request body must be a JSON object"),
    ],
)
def test_bad_arguments_are_400_with_a_failure_envelope_and_change_nothing(api, body, error):
    call(api, "t", "update_document", {"content": "kept", "action_and_reasoning": WHY})

    response = call(api, "t", "append_to_document", body)

    assert response.status_code == 400
    envelope = response.json()
    assert envelope["success"] is False and set(envelope) == {"success", "error"}
    assert error in envelope["error"]
    assert stored("t") == {"title": "", "content": "kept", "length": 4, "version": 1}


def test_bad_arguments_on_a_new_thread_create_no_document(api):
    response = call(api, "fresh", "update_document", {"content": 1, "action_and_reasoning": WHY})
    assert response.status_code == 400
    assert stored("fresh") is None


def test_invalid_json_is_400_with_a_failure_envelope(api):
    response = api.generic(
        "POST", "/api/workspace/threads/t/tools/append_to_document/", '{"text": "x",', content_type="application/json"
    )
    assert response.status_code == 400
    envelope = response.json()
    assert envelope["success"] is False
    assert "JSON parse error" in envelope["error"]
    assert stored("t") is None


def test_editing_a_thread_without_a_document_is_400_and_creates_none(api):
    response = call(api, "unwritten", "edit_document", {"old_str": "a", "new_str": "b", "action_and_reasoning": WHY})
    assert response.status_code == 400  # the caller's input is at fault: 404 is for an unknown tool
    assert "has no document to edit (version 0)" in response.json()["error"]
    assert stored("unwritten") is None


def test_unknown_tool_is_404_with_a_failure_envelope(api):
    response = call(api, "t", "delete_everything", {"action_and_reasoning": WHY})
    assert response.status_code == 404
    assert response.json() == {
        "success": False,
        "error": "unknown tool 'delete_everything'; the tools are: "
        "append_to_document, edit_document, read_document, update_document",
    }


@override_settings(WORKSPACE_MAX_DOCUMENT_CHARS=100)
def test_the_size_limit_over_http(api):
    response = call(api, "t", "update_document", {"content": "x" * 100, "action_and_reasoning": WHY})
    assert response.status_code == 200
    assert response.json()["summary"] == "document updated (100 chars)"

    response = call(api, "t", "update_document", {"content": "y" * 101, "action_and_reasoning": WHY})
    assert response.status_code == 400
    assert "content has 101 characters, more than the limit of 100" in response.json()["error"]

    response = call(api, "t", "append_to_document", {"text": "z", "action_and_reasoning": WHY})
    assert response.status_code == 400
    assert "the document would have 101 characters" in response.json()["error"]
    assert stored("t") == {"title": "", "content": "x" * 100, "length": 100, "version": 1}


def test_title_of_255_characters_passes_and_256_fails(api):
    ok = call(api, "t", "update_document", {"content": "a", "title": "t" * 255, "action_and_reasoning": WHY})
    assert ok.status_code == 200
    too_long = call(api, "t", "update_document", {"content": "b", "title": "t" * 256, "action_and_reasoning": WHY})
    assert too_long.status_code == 400
    assert "argument 'title': String should have at most 255 characters" in too_long.json()["error"]
    assert stored("t")["content"] == "a"


BAD_THREAD_IDS = ["a%20b", "a%2Fb", "a/b", "x" * 129, "%C3%A9", "a%00b", "a%3Fb", "", "a%0Ab", "%0A", "a%0D%0Ab"]


@pytest.mark.parametrize("thread_id", BAD_THREAD_IDS)
def test_bad_thread_ids_are_400_on_the_tool_endpoint(api, thread_id):
    response = call(api, thread_id, "append_to_document", {"text": "x", "action_and_reasoning": WHY})
    assert response.status_code == 400
    envelope = response.json()
    assert envelope["success"] is False
    assert "invalid thread_id" in envelope["error"]


@pytest.mark.parametrize("thread_id", BAD_THREAD_IDS)
def test_bad_thread_ids_are_400_on_the_document_endpoint(api, thread_id):
    response = document(api, thread_id)
    assert response.status_code == 400
    assert "invalid thread_id" in response.json()["error"]


def test_a_thread_id_of_128_allowed_characters_works(api):
    thread_id = "A-z_0.9:" * 16
    response = call(api, thread_id, "append_to_document", {"text": "x", "action_and_reasoning": WHY})
    assert response.status_code == 200
    assert document(api, thread_id).json()["thread_id"] == thread_id


def test_a_document_at_the_limit_passes_in_the_widest_json_encoding(api):
    # ensure_ascii JSON (Python's default) spends 12 bytes on each emoji.
    content = "😀" * 1_000_000
    response = call(api, "wide", "update_document", {"content": content, "action_and_reasoning": WHY})
    assert response.status_code == 200, response.content[:300]
    assert response.json()["summary"] == "document updated (1000000 chars)"
    too_long = call(api, "wide", "append_to_document", {"text": "😀", "action_and_reasoning": WHY})
    assert too_long.status_code == 400
    assert "the document would have 1000001 characters" in too_long.json()["error"]


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_a_body_over_the_hosts_upload_limit_is_400_and_says_so(api):
    response = call(api, "t", "update_document", {"content": "x" * 2000, "action_and_reasoning": WHY})
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "error": "the request body is larger than this server accepts (DATA_UPLOAD_MAX_MEMORY_SIZE = 1000 bytes)",
    }
    assert stored("t") is None


def test_deeply_nested_json_is_400(api):
    nested = "[" * 100_000 + "]" * 100_000
    response = api.generic(
        "POST",
        "/api/workspace/threads/t/tools/update_document/",
        f'{{"content": {nested}, "action_and_reasoning": "x"}}',
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json() == {"success": False, "error": "the request body is nested too deeply"}


def test_a_post_without_the_trailing_slash_is_served(api):
    response = api.post(
        "/api/workspace/threads/t/tools/append_to_document", {"text": "x", "action_and_reasoning": WHY}, format="json"
    )
    assert response.status_code == 200
    assert api.get("/api/workspace/threads/t/document").json()["content"] == "x"


@pytest.mark.parametrize("name", ["", "a%2Fb", "update_document%0A"])
def test_odd_tool_names_are_404_with_the_envelope(api, name):
    response = call(api, "t", name, {"action_and_reasoning": WHY})
    assert response.status_code == 404
    assert response.json()["success"] is False
    assert "unknown tool" in response.json()["error"]


@pytest.mark.parametrize("accept", ["text/html", "text/event-stream", "application/xml"])
def test_answers_are_json_whatever_the_client_accepts(api, accept):
    response = api.post(
        "/api/workspace/threads/t/tools/append_to_document/",
        json.dumps({"text": "x", "action_and_reasoning": WHY}),
        content_type="application/json",
        HTTP_ACCEPT=accept,
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json()["success"] is True


def policy_raising_http404(user, thread_id):
    from django.http import Http404

    raise Http404("no such thread")


@override_settings(WORKSPACE_ACCESS_POLICY="tests.http.test_views.policy_raising_http404")
def test_a_policy_that_raises_http404_gives_404_on_every_endpoint(api):
    response = call(api, "t", "append_to_document", {"text": "x", "action_and_reasoning": WHY})
    assert response.status_code == 404
    assert response.json() == {"success": False, "error": "no such thread"}
    assert document(api, "t").status_code == 404
    assert stored("t") is None


@pytest.mark.parametrize(
    "content_type, body",
    [
        ("application/x-www-form-urlencoded", "text=hi&action_and_reasoning=why"),
        (
            "multipart/form-data; boundary=x",
            '--x\r\nContent-Disposition: form-data; name="text"\r\n\r\nhi\r\n--x--\r\n',
        ),
    ],
)
def test_a_form_body_is_told_to_send_json(api, content_type, body):
    response = api.generic(
        "POST", "/api/workspace/threads/t/tools/append_to_document/", body, content_type=content_type
    )
    assert response.status_code == 400
    assert response.json()["error"].startswith(
        "the request body must be a JSON object of the tool's arguments, sent with Content-Type: application/json"
    )
    assert stored("t") is None


def test_each_call_s_outcome_is_logged(api, caplog):
    import logging

    with caplog.at_level(logging.INFO, logger="workspace"):
        call(api, "big2", "update_document", {"content": "x" * 1_000_001, "action_and_reasoning": WHY})
        call(api, "big2", "update_document", {"content": "fine", "action_and_reasoning": WHY})
    assert "update_document on thread 'big2': failed (400)" in caplog.text
    assert "update_document on thread 'big2': ok (200)" in caplog.text


@pytest.mark.parametrize("shape", ["/tools/", "/document/", "/revisions/", "/events/", "/x/"])
def test_matching_a_long_path_costs_time_linear_in_its_length(shape):
    import time

    from django.urls import resolve

    def cost(repeats: int) -> float:
        path = "/api/workspace/threads/" + shape * repeats + "x"
        started = time.process_time()
        resolve(path)
        return time.process_time() - started

    cost(100)  # warm the resolver's caches
    # Quadratic matching (two lazy groups) took 0.29 s at 2,280 repeats (16 KB) and 4x that at twice the length.
    assert cost(4560) < 0.05


@pytest.mark.parametrize(
    "name, module",
    [
        ("IF_MATCH_PATTERN", "workspace.documents.preconditions"),
        ("MAX_IF_MATCH_CHARS", "workspace.documents.preconditions"),
        ("FailuresAsEnvelope", "workspace.http.failures"),
        ("AppOwnDefaults", "workspace.http.defaults"),
    ],
)
def test_names_moved_out_of_the_views_module_still_import_from_it_with_a_warning(name, module):
    import importlib

    from workspace.http import views

    with pytest.warns(DeprecationWarning, match=f"use {module}.{name}"):
        moved = getattr(views, name)
    assert moved is getattr(importlib.import_module(module), name)
