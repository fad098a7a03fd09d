"""The tool list in the shapes agent APIs take, each made from the one
argument schema of every tool (``ToolSpec.parameters_schema``).

- ``plain``: ``{name, description, parameters}`` (the schema as is);
- ``anthropic``: ``{name, description, input_schema}`` (the schema as is);
- ``openai``: function tools in strict mode. Strict mode wants every
  property required, ``additionalProperties: false`` on every object, and a
  few keywords only; so ``strict_schema`` lists every property in
  ``required`` and moves every other keyword (``minLength``, ``maxLength``,
  ``pattern``, ``minimum``, ``default``...) into the description as text;
  the server still enforces all of them. An optional argument of a tool
  already admits null (read as "omitted", see ``arguments``), so the model
  may send null for it; a field of a nested model with a default is
  required, its default described. A tool whose arguments take a shape
  strict mode cannot express (a map, ``oneOf``, a tuple...) is exported
  with ``"strict": false`` and its plain schema.
"""

import copy
import json
from typing import Any

from .registry import RegisteredTool

# What OpenAI's strict mode accepts in a schema; everything else is described.
STRICT_KEYWORDS = {
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


# Shapes strict mode cannot express: a tool using one is not exported as strict.
UNSUPPORTED = {
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "prefixItems",
    "patternProperties",
    "dependentSchemas",
    "dependentRequired",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
}
MAX_NESTING = 10


class NotStrict(ValueError):
    pass


def plain(tool: RegisteredTool) -> dict:
    return tool.spec.describe()


def anthropic(tool: RegisteredTool) -> dict:
    return {"name": tool.spec.name, "description": tool.spec.description, "input_schema": tool.spec.parameters_schema}


def openai(tool: RegisteredTool) -> dict:
    try:
        parameters, strict = strict_schema(tool.spec.parameters_schema), True
    except NotStrict:
        parameters, strict = tool.spec.parameters_schema, False
    return {
        "type": "function",
        "function": {
            "name": tool.spec.name,
            "description": tool.spec.description,
            "parameters": parameters,
            "strict": strict,
        },
    }


FORMATS = {"plain": plain, "openai": openai, "anthropic": anthropic}


def strict_schema(schema: dict) -> dict:
    """``schema`` rewritten for OpenAI's strict mode, with no constraint lost
    (see above); ``NotStrict`` if strict mode cannot express it."""
    return _strict(copy.deepcopy(schema), 0)


def _strict(schema: Any, depth: int) -> Any:
    if not isinstance(schema, dict):
        return schema
    unsupported = UNSUPPORTED & schema.keys()
    if unsupported or depth > MAX_NESTING:
        raise NotStrict(f"strict mode cannot express {sorted(unsupported) or 'this nesting'}")
    is_map = schema.get("additionalProperties", False) is not False or (
        schema.get("type") == "object" and "properties" not in schema
    )
    if is_map or (schema.get("type") == "array" and "items" not in schema):
        raise NotStrict("strict mode cannot express a map or an array without items")
    constraints = {key: schema.pop(key) for key in list(schema) if key not in STRICT_KEYWORDS}
    if isinstance(schema.get("items"), dict):
        schema["items"] = _strict(schema["items"], depth + 1)
    if "anyOf" in schema:
        schema["anyOf"] = [_strict(option, depth) for option in schema["anyOf"]]
    if "$defs" in schema:
        schema["$defs"] = {name: _strict(definition, 1) for name, definition in schema["$defs"].items()}
    if "properties" in schema:
        properties = schema["properties"]
        for name, value in properties.items():
            properties[name] = _strict(value, depth + 1)
        schema["required"] = list(properties)
        schema["additionalProperties"] = False
    if "$ref" in schema and len(schema) > 1:  # a reference stands alone; its neighbours go around it
        schema["anyOf"] = [{"$ref": schema.pop("$ref")}]
    if constraints:
        described = "; ".join(_describe(key, value) for key, value in constraints.items())
        schema["description"] = f"{schema['description']} ({described})" if "description" in schema else described
    return schema


WORDS = {
    "minLength": "at least {} character(s)",
    "maxLength": "at most {} character(s)",
    "minimum": "at least {}",
    "maximum": "at most {}",
    "exclusiveMinimum": "more than {}",
    "exclusiveMaximum": "less than {}",
    "multipleOf": "a multiple of {}",
    "minItems": "at least {} item(s)",
    "maxItems": "at most {} item(s)",
    "uniqueItems": "items unique: {}",
    "pattern": "matches the regular expression {}",
    "format": "format {}",
    "default": "default {}",
}


def _describe(keyword: str, value: Any) -> str:
    text = value if keyword in ("pattern", "format") else json.dumps(value, ensure_ascii=False)
    return WORDS[keyword].format(text) if keyword in WORDS else f"{keyword}: {text}"
