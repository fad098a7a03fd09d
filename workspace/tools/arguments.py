"""A tool's arguments: the pydantic model built from its signature, the check
of a call against it, and errors that say what to fix.

The model is the one definition of the arguments: it validates every call
and its JSON Schema is what every export shows to agents.
"""

import inspect
import re
import typing
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pydantic
from pydantic import AfterValidator, ConfigDict, Field

from ..exceptions import InvalidArguments
from ..validation import storage_problem

INJECTED_ARGUMENT = "action_and_reasoning"


# Not blank: at least one character other than ASCII white space. One pattern
# for the check here and for the schema shown to clients, whose regex
# dialects (Python's, ECMA's) disagree on what \s matches.
NOT_BLANK = r"[^ \t\n\r\x0b\x0c]"


def _not_blank(value: str) -> str:
    if not re.search(NOT_BLANK, value):
        raise ValueError("must say what you are doing and why; it is blank")
    return value


# Stored with every change and listed with the history: a few sentences.
ACTION_AND_REASONING_MAX_LENGTH = 4000

ActionAndReasoning = Annotated[
    str,
    Field(
        min_length=1,
        max_length=ACTION_AND_REASONING_MAX_LENGTH,
        description="What you are doing with this call and why.",
        json_schema_extra={"pattern": NOT_BLANK},  # checked by _not_blank, whose message says why
    ),
    AfterValidator(_not_blank),
]


class ToolArguments(pydantic.BaseModel):
    """Base of every tool's argument model: exact types, no unknown arguments,
    and no string, however deep, that a database cannot store."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @pydantic.field_validator("*")
    @classmethod
    def _storable(cls, value: Any) -> Any:
        for text in _strings_in(value):
            problem = storage_problem(text)
            if problem:
                raise ValueError(problem)
        return value


def _strings_in(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings_in(key)
            yield from _strings_in(item)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _strings_in(item)
    elif isinstance(value, pydantic.BaseModel):
        yield from _strings_in(value.model_dump())


class Arguments:
    """The arguments of one tool function (its parameters after ``self``,
    plus the injected ``action_and_reasoning``)."""

    def __init__(self, tool_name: str, function: Callable):
        self.tool_name = tool_name
        signature = inspect.signature(function)
        parameters = list(signature.parameters.values())[1:]  # skip self
        if any(p.name == INJECTED_ARGUMENT for p in parameters):
            raise TypeError(f"tool {tool_name!r} must not declare {INJECTED_ARGUMENT!r}: @workspace_tool injects it")
        hints = typing.get_type_hints(function, include_extras=True)
        fields: dict[str, Any] = {}
        self.defaults_for_null = {}  # optional arguments whose type refuses null: null means the default
        for parameter in parameters:
            if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
                raise TypeError(f"tool {tool_name!r}: *args and **kwargs cannot be described to an agent")
            if parameter.name not in hints:
                raise TypeError(f"tool {tool_name!r}: argument {parameter.name!r} needs a type annotation")
            annotation, default = hints[parameter.name], parameter.default
            if default is parameter.empty:
                default = ...
            elif default is not None and not _admits_none(annotation):
                annotation = _or_none(annotation)
                self.defaults_for_null[parameter.name] = default
            fields[parameter.name] = (annotation, default)
        fields[INJECTED_ARGUMENT] = (ActionAndReasoning, ...)
        self.positional_names = [p.name for p in parameters if p.kind == p.POSITIONAL_OR_KEYWORD]
        self.names = list(fields)
        self.model = pydantic.create_model(f"{tool_name}_arguments", __base__=ToolArguments, **fields)
        self.schema = without_titles(self.model.model_json_schema())
        injected = inspect.Parameter(INJECTED_ARGUMENT, inspect.Parameter.KEYWORD_ONLY, annotation=str)
        self.signature = signature.replace(
            parameters=[*signature.parameters.values(), injected], return_annotation=dict
        )

    def validate(self, args: tuple, kwargs: dict) -> dict:
        """Map positional arguments to names, then check every argument against the model."""
        if len(args) > len(self.positional_names):
            raise InvalidArguments(
                f"{self.tool_name} takes at most {len(self.positional_names)} positional arguments, got {len(args)}"
            )
        arguments = dict(zip(self.positional_names, args, strict=False))  # fewer args than names: the rest by keyword
        given_twice = sorted(arguments.keys() & kwargs.keys())
        if given_twice:
            raise InvalidArguments(f"argument {given_twice[0]!r} was given twice")
        arguments.update(kwargs)
        unknown = [name for name in arguments if name not in self.names]
        if unknown:  # refused before validation, whose work and errors grow with their number
            listed = ", ".join(repr(shorten(str(name))) for name in unknown[:MAX_LISTED_PROBLEMS])
            more = f" and {len(unknown) - MAX_LISTED_PROBLEMS} more" if len(unknown) > MAX_LISTED_PROBLEMS else ""
            raise InvalidArguments(
                f"unknown argument{'s' if len(unknown) > 1 else ''} {listed}{more}; "
                f"the arguments are: {', '.join(self.names)}"
            )
        try:
            validated = self.model.model_validate(arguments)
        except pydantic.ValidationError as error:
            raise InvalidArguments(describe_errors(error, self.names)) from None
        arguments = {name: getattr(validated, name) for name in self.names}
        for name, default in self.defaults_for_null.items():
            if arguments[name] is None:
                arguments[name] = default
        return arguments


# Every optional argument takes null for "omitted": what the strict exports
# (every property required, optional ones nullable) send for an argument the
# model leaves out.
def _admits_none(annotation: Any) -> bool:
    if typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation is None or type(None) in typing.get_args(annotation) or annotation is Any


def _or_none(annotation: Any) -> Any:
    if typing.get_origin(annotation) is Annotated:
        inner, *metadata = typing.get_args(annotation)
        return Annotated[(inner | None, *metadata)]
    return annotation | None


# An error names at most this many problems, each echoed value shortened:
# an answer of a few kilobytes, however wrong the request.
MAX_LISTED_PROBLEMS = 10
MAX_ECHOED_CHARS = 60


def shorten(text: str) -> str:
    return text if len(text) <= MAX_ECHOED_CHARS else text[: MAX_ECHOED_CHARS - 1] + "…"


def describe_errors(error: pydantic.ValidationError, order: list[str]) -> str:
    messages = []
    problems = error.errors(include_url=False)
    for item in problems[:MAX_LISTED_PROBLEMS]:
        name = shorten(".".join(str(part) for part in item["loc"])) if item["loc"] else "arguments"
        if item["type"] == "missing":
            messages.append(f"missing required argument {name!r}")
        elif item["type"] == "extra_forbidden":
            messages.append(f"unknown argument {name!r}; the arguments are: {', '.join(order)}")
        else:
            message = shorten(item["msg"].removeprefix("Value error, "))
            if item["type"].endswith("_type"):
                message += f", got {_type_name(item['input'])}"
            messages.append(f"argument {name!r}: {message}")
    if len(problems) > MAX_LISTED_PROBLEMS:
        messages.append(f"and {len(problems) - MAX_LISTED_PROBLEMS} more problems")
    return "; ".join(messages)


def _type_name(value: Any) -> str:
    names = {
        type(None): "null",
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
    }
    return names.get(type(value), type(value).__name__)


def without_titles(schema: Any) -> Any:
    """Pydantic titles every model and property after its name; agents gain nothing from them."""
    if isinstance(schema, dict):
        schema.pop("title", None)
        for key, value in schema.items():
            if key == "properties":
                for prop in value.values():
                    without_titles(prop)
            else:
                without_titles(value)
    elif isinstance(schema, list):
        for item in schema:
            without_titles(item)
    return schema
