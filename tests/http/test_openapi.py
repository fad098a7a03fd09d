"""GET schema/ and docs/: every endpoint described, each tool's body from its own signature."""

import os
import re
import subprocess
import sys

import pytest
from drf_spectacular.settings import patched_settings

from tests.support.live import REPOSITORY
from workspace.tools.registry import registered_tools

pytestmark = pytest.mark.django_db


def test_the_schema_describes_every_endpoint_and_each_tool_s_body(api):
    response = api.get("/api/workspace/schema/")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert schema["servers"] == [{"url": "/api/workspace"}]
    tools = {f"/threads/{{thread_id}}/tools/{name}/": tool for name, tool in registered_tools().items()}
    assert set(schema["paths"]) == {
        "/tools/",
        "/threads/{thread_id}/document/",
        "/threads/{thread_id}/revisions/",
        "/threads/{thread_id}/revisions/{version}/",
        "/threads/{thread_id}/revisions/{version}/restore/",
        "/threads/{thread_id}/drafts/{call_id}/",
        "/threads/{thread_id}/proposals/",
        "/threads/{thread_id}/proposals/{proposal_id}/",
        "/threads/{thread_id}/proposals/{proposal_id}/decision/",
        "/threads/{thread_id}/events/",
        "/threads/{thread_id}/mcp/",
        *tools,
    }
    document = schema["paths"]["/threads/{thread_id}/document/"]["get"]["responses"]["200"]
    assert set(document["headers"]) == {"ETag"}  # what If-Match sends back
    events = schema["paths"]["/threads/{thread_id}/events/"]["get"]["responses"]
    assert set(events["200"]["content"]) == {"text/event-stream"}
    assert set(events["401"]["content"]) == {"application/json"}
    assert "requestBody" in schema["paths"]["/threads/{thread_id}/mcp/"]["post"]
    for path, tool in tools.items():
        operation = schema["paths"][path]["post"]
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        assert body == tool.spec.parameters_schema  # the schema that validates the call
        assert {"200", "400", "401", "404", "409", "412", "422", "429", "503"} <= set(operation["responses"])
        assert {parameter["name"] for parameter in operation["parameters"]} == {
            "thread_id",
            "If-Match",
            "Idempotency-Key",
            "Draft-Id",
        }
        # Found by schemathesis: without these, values the API refuses passed for valid ones.
        patterns = {parameter["name"]: parameter["schema"].get("pattern") for parameter in operation["parameters"]}
        if_match = re.compile(patterns.pop("If-Match"))
        assert patterns == {
            "thread_id": "^[A-Za-z0-9._:-]{1,128}$",
            "Idempotency-Key": "^[ -~]{1,255}$",
            "Draft-Id": "^[A-Za-z0-9_-]{1,64}$",
        }
        accepted = ['"7"', '"0"', "*", 'W/"7"', '"7", "8"', 'W/"6", "7"', ', "7" ,']
        assert all(if_match.search(value) for value in accepted)
        refused = ['"x"', '*, "7"', '""', ", ,", '"7" "8"', "7", '"07"', '"0001"']
        assert not any(if_match.search(value) for value in refused)
    assert set(schema["components"]["securitySchemes"]) >= {"tokenAuth"}


def test_the_schema_describes_a_persons_edit_and_restore(api):
    paths = api.get("/api/workspace/schema/").json()["paths"]
    edit = paths["/threads/{thread_id}/document/"]["put"]
    assert {"200", "400", "403", "409", "412", "422", "428", "429"} <= set(edit["responses"])
    assert edit["requestBody"]["required"] is True
    body = edit["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["content"] and set(body["properties"]) == {"content", "title", "action_and_reasoning"}
    if_match = next(parameter for parameter in edit["parameters"] if parameter["name"] == "If-Match")
    assert if_match["required"] is True
    assert re.search(if_match["schema"]["pattern"], '"7"') and not re.search(if_match["schema"]["pattern"], "*")
    conflict = edit["responses"]["409"]["content"]["application/json"]["schema"]
    items = conflict["properties"]["conflicts"]["items"]
    assert set(items["properties"]) == {"base", "current", "yours", "truncated"}
    assert items["required"] == ["base", "current", "yours"]
    assert set(paths["/threads/{thread_id}/document/"]) == {"get", "put", "patch"}
    restore = paths["/threads/{thread_id}/revisions/{version}/restore/"]
    assert set(restore) == {"post"}
    assert {"200", "403", "404", "412"} <= set(restore["post"]["responses"])
    restore_body = restore["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert set(restore_body["properties"]) == {"action_and_reasoning"}
    assert restore_body["additionalProperties"] is False and "required" not in restore_body


@pytest.mark.parametrize("accept", ["application/json", "application/vnd.oai.openapi+json", "*/*"])
def test_the_schema_is_served_as_json_to_whoever_asks_for_json(api, accept):
    response = api.get("/api/workspace/schema/", HTTP_ACCEPT=accept)
    assert response.status_code == 200
    assert response.json()["openapi"].startswith("3.")


def test_the_docs_page_loads_nothing_from_elsewhere(api, client, user):
    client.force_login(user)
    response = client.get("/api/workspace/docs/")
    page = response.content.decode()
    assert 'data-spec-url="/api/workspace/schema/"' in page
    scripts = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert scripts and all(url.startswith("/") for url in scripts), scripts
    # Redoc's own requests too (its logo from a CDN): the browser is told to make none elsewhere.
    policy = dict(directive.strip().split(" ", 1) for directive in response["Content-Security-Policy"].split(";"))
    assert policy["default-src"] == "'none'"
    assert policy["img-src"] == "'self' data:"
    assert policy["connect-src"] == "'self'"
    assert policy["script-src"] == "'self'"  # no inline script: the page's own starts Redoc
    assert not re.search(r"<script>", page)


def test_the_docs_page_hands_the_hosts_redoc_settings_to_its_script(client, user):
    client.force_login(user)
    with patched_settings({"REDOC_UI_SETTINGS": {"hideDownloadButton": True}}):  # the host's SPECTACULAR_SETTINGS
        page = client.get("/api/workspace/docs/").content.decode()
    assert "&quot;hideDownloadButton&quot;: true" in re.search(r'data-settings="([^"]*)"', page).group(1)


def test_the_schema_and_docs_need_credentials_as_every_endpoint_does_and_say_so(api, client, user):
    # Anonymous callers learn nothing, not even the tools (GET tools/ is closed to them too).
    for path in ("/api/workspace/schema/", "/api/workspace/docs/"):
        refused = client.get(path)
        assert refused.status_code == 401 and b"tool" not in refused.content
    assert client.get("/api/workspace/schema/").json() == {
        "success": False,
        "error": "Authentication credentials were not provided.",
    }
    schema = api.get("/api/workspace/schema/").json()
    operation = schema["paths"]["/threads/{thread_id}/document/"]["get"]
    assert {"tokenAuth": []} in operation["security"] and {} not in operation["security"]
    client.force_login(user)  # a browser signed in: the docs page and the schema it loads
    assert client.get("/api/workspace/docs/").status_code == 200
    assert client.get("/api/workspace/schema/").status_code == 200


SERVE_THEN_DOCUMENT = """
import sys
import django
django.setup()
from django.test import Client
client = Client(HTTP_HOST="localhost")
served = [client.get(path).status_code for path in ("/api/workspace/tools/", "/api/workspace/threads/t/document/")]
loaded_by_serving = "drf_spectacular.openapi" in sys.modules
schema = client.get("/api/workspace/schema/")
print(served, loaded_by_serving, schema.status_code, "drf_spectacular.openapi" in sys.modules)
"""


def test_serving_the_api_leaves_drf_spectacular_unloaded_until_the_schema_is_asked_for():
    """It costs each server process 5 MB; only the schema and docs pages use it."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "project.settings"}
    env.pop("DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "-c", SERVE_THEN_DOCUMENT], cwd=REPOSITORY, env=env, capture_output=True, text=True
    )
    assert result.stdout.split("\n")[-2] == "[401, 401] False 401 True", result.stdout + result.stderr


def test_the_schema_shows_the_idempotency_key_rule_the_calls_apply():
    from workspace.documents.calls import IDEMPOTENCY_KEY_PATTERN
    from workspace.documents.preconditions import IDEMPOTENCY_KEY_SCHEMA_PATTERN

    shown = re.compile(IDEMPOTENCY_KEY_SCHEMA_PATTERN)
    for value in [chr(code) for code in range(0x3000)] + ["a" * 255, "a" * 256, ""]:
        assert bool(shown.search(value)) == bool(IDEMPOTENCY_KEY_PATTERN.fullmatch(value)), repr(value)


def test_other_schema_generators_leave_the_app_s_views_out_and_complain_of_nothing():
    """drf-spectacular's deploy check and a host's own schema generate over the
    whole urlconf: the app's views say ``schema = None``; schema/ describes them."""
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    GENERATOR_STATS.reset()
    with GENERATOR_STATS.silence():
        schema = SchemaGenerator().get_schema(request=None, public=True)
    assert not any(path.startswith("/api/workspace/") for path in schema["paths"])
    assert not GENERATOR_STATS


def test_the_old_names_of_the_two_pages_views_still_serve_them_with_a_warning(api):
    from django.urls import path

    from workspace.http import openapi

    with pytest.warns(DeprecationWarning, match="WorkspaceSchemaView"):
        schema_view = openapi.schema_view
    with pytest.warns(DeprecationWarning, match="WorkspaceDocsView"):
        assert callable(openapi.docs_view)
    assert path("schema/", schema_view).callback is schema_view


def test_the_schema_describes_the_review_of_agents_changes(api):
    paths = api.get("/api/workspace/schema/").json()["paths"]
    mode = paths["/threads/{thread_id}/document/"]["patch"]
    assert mode["requestBody"]["content"]["application/json"]["schema"]["required"] == ["review"]
    decision = paths["/threads/{thread_id}/proposals/{proposal_id}/decision/"]["post"]
    assert {"200", "400", "403", "404", "409", "412", "422", "429"} <= set(decision["responses"])
    assert {"accept", "note"} == set(decision["requestBody"]["content"]["application/json"]["schema"]["properties"])
    assert "conflicts" in decision["responses"]["409"]["content"]["application/json"]["schema"]["properties"]
    listed = paths["/threads/{thread_id}/proposals/"]["get"]
    assert {parameter["name"] for parameter in listed["parameters"]} == {"thread_id", "status", "before", "limit"}
