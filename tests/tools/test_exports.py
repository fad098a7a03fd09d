"""``GET tools/?format=...``: the same tools, in the shapes agent APIs take."""

import json
import re

import pytest

from tests.support import call_tool, stored

pytestmark = pytest.mark.django_db

WHY = "Trying the tools an OpenAI model would call."
TOOLS = "/api/workspace/tools/"
WITH_CHARTS = ["workspace.tools.documents.DocumentTools", "tests.export_tools.ChartTools"]
WITH_SHAPES = [*WITH_CHARTS, "tests.export_tools.ShapeTools"]
# What OpenAI's strict mode takes (its documentation's list, less the keywords
# it takes only for some types, which the export describes in words instead).
STRICT_MODE_KEYWORDS = {
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "$ref",
    "$defs",
}

REASON = {
    "description": "What you are doing with this call and why.",
    "maxLength": 4000,
    "minLength": 1,
    "pattern": "[^ \\t\\n\\r\\x0b\\x0c]",
    "type": "string",
}
# The seed's two tools, as agents have always seen them (GET tools/).
SEED_SCHEMAS = {
    "update_document": {
        "additionalProperties": False,
        "properties": {
            "content": {"description": "The whole new content of the document.", "type": "string"},
            "title": {
                "anyOf": [{"maxLength": 255, "type": "string"}, {"type": "null"}],
                "default": None,
                "description": "A new title; omit it or pass null to keep the current one.",
            },
            "action_and_reasoning": REASON,
        },
        "required": ["content", "action_and_reasoning"],
        "type": "object",
    },
    "append_to_document": {
        "additionalProperties": False,
        "properties": {
            "text": {"description": "The chunk of text to add at the end of the document.", "type": "string"},
            "action_and_reasoning": REASON,
        },
        "required": ["text", "action_and_reasoning"],
        "type": "object",
    },
}


def tool_list(api, format=None):
    response = api.get(TOOLS, {"format": format} if format else {})
    assert response.status_code == 200, response.content
    return response.json()


def test_the_plain_list_keeps_the_seed_tools_as_they_were(api):
    tools = {tool["name"]: tool for tool in tool_list(api)}
    assert tool_list(api, "plain") == list(tools.values())
    for name, schema in SEED_SCHEMAS.items():
        assert tools[name]["parameters"] == schema
    assert tools["update_document"]["description"] == "Replace the full content of the shared working document."
    assert tools["append_to_document"]["description"] == "Append a chunk of text to the shared working document."


def test_anthropic_gets_every_tool_with_its_schema_as_input_schema(api, settings):
    settings.WORKSPACE_TOOL_COLLECTIONS = WITH_CHARTS
    plain = tool_list(api)
    anthropic = tool_list(api, "anthropic")
    assert anthropic == [
        {"name": tool["name"], "description": tool["description"], "input_schema": tool["parameters"]} for tool in plain
    ]
    for tool in anthropic:
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,128}", tool["name"])
        assert tool["input_schema"]["type"] == "object"


def strict_mode_problems(schema, path="parameters", depth=0):
    """Every way ``schema`` breaks OpenAI's strict mode, as readable strings."""
    problems = []
    if not isinstance(schema, dict):
        return [f"{path}: not a schema"]
    if depth > 10:
        problems.append(f"{path}: nested deeper than 10 levels")
    problems += [f"{path}: keyword {key!r} is not supported" for key in schema if key not in STRICT_MODE_KEYWORDS]
    if not {"type", "anyOf", "$ref", "enum", "const"} & schema.keys():
        problems.append(f"{path}: says nothing of the value's type")
    if schema.get("type") == "array" and not isinstance(schema.get("items"), dict):
        problems.append(f"{path}: an array without items")
    if "$ref" in schema and len(schema) > 1:
        problems.append(f"{path}: $ref has neighbours {sorted(set(schema) - {'$ref'})}")
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            problems.append(f"{path}: additionalProperties is not false")
        if sorted(schema.get("required", [])) != sorted(schema.get("properties", {})):
            problems.append(f"{path}: not every property is required")
        for name, value in schema.get("properties", {}).items():
            problems += strict_mode_problems(value, f"{path}.{name}", depth + 1)
    if isinstance(schema.get("items"), dict):
        problems += strict_mode_problems(schema["items"], f"{path}[]", depth + 1)
    for index, option in enumerate(schema.get("anyOf", [])):
        problems += strict_mode_problems(option, f"{path}|{index}", depth)
    for name, definition in schema.get("$defs", {}).items():
        problems += strict_mode_problems(definition, f"$defs.{name}", 1)
    return problems


def admits_null(schema, defs):
    if "$ref" in schema:
        return admits_null(defs[schema["$ref"].split("/")[-1]], defs)
    kind = schema.get("type")
    return (
        kind == "null"
        or (isinstance(kind, list) and "null" in kind)
        or any(admits_null(option, defs) for option in schema.get("anyOf", []))
    )


def test_openai_gets_strict_function_tools_that_lose_no_constraint(api, settings):
    settings.WORKSPACE_TOOL_COLLECTIONS = WITH_CHARTS
    plain = {tool["name"]: tool for tool in tool_list(api)}
    openai = tool_list(api, "openai")
    assert [tool["function"]["name"] for tool in openai] == list(plain)
    for tool in openai:
        assert tool["type"] == "function"
        function = tool["function"]
        assert set(function) == {"name", "description", "parameters", "strict"}
        assert function["strict"] is True, function["name"]
        assert function["description"] == plain[function["name"]]["description"]
        parameters = function["parameters"]
        assert parameters["type"] == "object"
        assert strict_mode_problems(parameters) == [], function["name"]
        # an argument the model may leave out, it may send as null; no other may be null
        original = plain[function["name"]]["parameters"]
        for name, value in parameters["properties"].items():
            assert admits_null(value, parameters.get("$defs", {})) is (name not in original["required"]), name
        for name, definition in parameters.get("$defs", {}).items():
            for field, value in definition["properties"].items():
                was = original["$defs"][name]["properties"][field]
                assert admits_null(value, parameters["$defs"]) is admits_null(was, original["$defs"]), field
    # the constraints live on, in words
    described = json.dumps(openai)
    for words in [
        "at most 4000 character(s)",  # action_and_reasoning
        "at least 1 character(s)",
        "at most 255 character(s)",  # title
        "at least -100",  # Point.x, nested in $defs
        "at most 100",
        "at most 20 character(s)",  # Point.label, optional inside a nested model
        "at least 1 item(s)",  # Chart.points
        "at most 50 item(s)",
        "at least 2 character(s)",  # each tag
        "at most 5 item(s)",
        "more than 0",  # scale
        "matches the regular expression ^[a-z]+$",  # note
        'default \\"line\\"',
        "default 0",  # Point.y: required in strict mode, its default said
    ]:
        assert words in described, words


def test_openai_keeps_the_description_beside_the_constraints(api):
    tools = {tool["function"]["name"]: tool["function"] for tool in tool_list(api, "openai")}
    reason = tools["update_document"]["parameters"]["properties"]["action_and_reasoning"]
    assert reason["description"].startswith("What you are doing with this call and why. (")
    assert reason["type"] == "string"


def test_the_arguments_an_openai_model_sends_are_accepted(api):
    """Strict mode sends every argument, null for the ones it would leave out."""
    body = {"content": "alpha\nbeta\n", "title": None, "action_and_reasoning": WHY}
    assert call_tool(api, "t-1", "update_document", body).status_code == 200
    body = {"start_line": None, "end_line": None, "action_and_reasoning": WHY}
    assert call_tool(api, "t-1", "read_document", body).json()["summary"].startswith("version 1, 11 chars, lines 1-2")
    body = {"old_str": "beta", "new_str": "gamma", "replace_all": None, "expected_version": None}
    response = call_tool(api, "t-1", "edit_document", {**body, "action_and_reasoning": WHY})
    assert response.status_code == 200, response.json()
    assert stored("t-1")["content"] == "alpha\ngamma\n"


def test_null_for_an_optional_argument_means_its_default(settings):
    from workspace.tools.registry import get_tool

    settings.WORKSPACE_TOOL_COLLECTIONS = WITH_CHARTS
    chart = {"points": [{"x": 1, "y": 2, "label": None}], "origin": None}
    result = get_tool("plot").invoke(
        "t-1", {"chart": chart, "kind": None, "tags": None, "scale": None, "note": None, "action_and_reasoning": WHY}
    )
    assert result.envelope["artifact"] == {"kind": "line", "tags": [], "scale": 1.0, "note": "chart", "origin": None}


def test_an_unknown_format_is_400_and_names_the_formats(api):
    response = api.get(TOOLS, {"format": "gemini"})
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "error": "unknown format 'gemini'; the formats are: plain, openai, anthropic",
    }


def test_a_tool_that_strict_mode_cannot_express_is_exported_as_is_and_not_strict(api, settings):
    settings.WORKSPACE_TOOL_COLLECTIONS = WITH_SHAPES
    plain = {tool["name"]: tool for tool in tool_list(api)}
    openai = {tool["function"]["name"]: tool["function"] for tool in tool_list(api, "openai")}
    for name in ("tally", "area"):  # a map; a discriminated union (oneOf)
        assert openai[name]["strict"] is False
        assert openai[name]["parameters"] == plain[name]["parameters"]
    assert {name for name, function in openai.items() if function["strict"]} == {
        "update_document",
        "append_to_document",
        "read_document",
        "edit_document",
        "plot",
    }
