"""``@workspace_tool``: one function signature gives a tool its argument
validation, the JSON Schema shown to agents, and the envelope it answers with.

A tool is a method of a collection bound to one thread (``DocumentTools``).
It returns ``(content, artifact)``; callers get
``{"success": true, "summary": content, "artifact": artifact}`` or, on any
error, ``{"success": false, "error": message}`` with nothing changed.
"""

import functools
import inspect
import logging
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import pydantic
from django.db import InterfaceError, OperationalError, router, transaction
from django.utils.module_loading import import_string
from pydantic import AfterValidator, ConfigDict, Field

from .. import idempotency
from ..calls import CallOptions, ToolCall, making
from ..conf import conf
from ..exceptions import DatabaseUnavailable, InvalidArguments, ToolFailed, UnknownTool, WorkspaceError
from ..models import WorkingDocument
from ..repository import check_precondition
from ..signals import artifact_produced
from ..validation import storage_problem, validate_thread_id

logger = logging.getLogger(__name__)

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


def _strings_in(value: Any):
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


@dataclass(frozen=True)
class ToolResult:
    envelope: dict
    status_code: int
    replayed: bool = False  # answered from an earlier call with the same Idempotency-Key

    @classmethod
    def success(cls, summary: str, artifact: Any) -> "ToolResult":
        return cls({"success": True, "summary": summary, "artifact": artifact}, 200)

    @classmethod
    def failure(cls, error: WorkspaceError) -> "ToolResult":
        return cls({**failure_envelope(str(error)), **error.envelope_extras()}, error.status_code)


def failure_envelope(error: str) -> dict:
    return {"success": False, "error": error}


class ToolSpec:
    """What ``@workspace_tool`` knows of one tool: name, description, arguments."""

    def __init__(self, function: Callable):
        self.function = function
        self.name = function.__name__
        self.description = inspect.getdoc(function) or ""
        if not self.description:
            raise TypeError(f"tool {self.name!r} needs a docstring: it is the description shown to the agent")
        signature = inspect.signature(function)
        parameters = list(signature.parameters.values())[1:]  # skip self
        if any(p.name == INJECTED_ARGUMENT for p in parameters):
            raise TypeError(f"tool {self.name!r} must not declare {INJECTED_ARGUMENT!r}: @workspace_tool injects it")
        hints = typing.get_type_hints(function, include_extras=True)
        fields = {}
        for parameter in parameters:
            if parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
                raise TypeError(f"tool {self.name!r}: *args and **kwargs cannot be described to an agent")
            if parameter.name not in hints:
                raise TypeError(f"tool {self.name!r}: argument {parameter.name!r} needs a type annotation")
            default = ... if parameter.default is parameter.empty else parameter.default
            fields[parameter.name] = (hints[parameter.name], default)
        fields[INJECTED_ARGUMENT] = (ActionAndReasoning, ...)
        self.positional_names = [p.name for p in parameters if p.kind == p.POSITIONAL_OR_KEYWORD]
        self.argument_names = list(fields)
        self.arguments_model = pydantic.create_model(f"{self.name}_arguments", __base__=ToolArguments, **fields)
        self.parameters_schema = _without_titles(self.arguments_model.model_json_schema())
        injected = inspect.Parameter(INJECTED_ARGUMENT, inspect.Parameter.KEYWORD_ONLY, annotation=str)
        self.signature = signature.replace(
            parameters=[*signature.parameters.values(), injected], return_annotation=dict
        )

    def describe(self) -> dict:
        return {"name": self.name, "description": self.description, "parameters": self.parameters_schema}

    def invoke(
        self, collection: Any, args: tuple = (), kwargs: dict | None = None, options: CallOptions | None = None
    ) -> ToolResult:
        """Validate, run in one transaction, and answer with the envelope; never raises.

        ``options`` (over HTTP, from the request) default to the collection's
        ``call_options`` (in Python, from its keywords)."""
        result = self._invoke(collection, args, kwargs, options)
        outcome = "replayed" if result.replayed else "ok" if result.status_code == 200 else "failed"
        logger.info(
            "%s on thread %.128r: %s (%d)",
            self.name,
            getattr(collection, "thread_id", None),
            outcome,
            result.status_code,
        )
        return result

    def _invoke(self, collection: Any, args: tuple, kwargs: dict | None, options: CallOptions | None) -> ToolResult:
        try:
            options = options or getattr(collection, "call_options", None) or CallOptions()
            thread_id = validate_thread_id(collection.thread_id)
            arguments = self.validate(args, kwargs or {})
            call = ToolCall(
                tool=self.name,
                reason=arguments[INJECTED_ARGUMENT],
                actor=options.actor,
                expected_version=options.expected_version,
            )
            with transaction.atomic(using=router.db_for_write(WorkingDocument)), making(call):
                claimed = None
                if options.idempotency_key is not None:
                    request = idempotency.fingerprint(thread_id, self.name, arguments)
                    claimed = idempotency.claim(options.actor or "", options.idempotency_key, request)
                    if claimed.envelope is not None:
                        return ToolResult(claimed.envelope, claimed.status_code, replayed=True)
                del arguments[INJECTED_ARGUMENT]
                summary, artifact = self.function(collection, **arguments)
                if call.expected_version is not None and not call.precondition_checked:
                    check_precondition(thread_id, call.expected_version)  # the tool wrote nothing
                result = ToolResult.success(summary, artifact)
                if artifact is not None:
                    artifact_produced.send(
                        sender=type(collection), thread_id=thread_id, tool=self.name, artifact=artifact
                    )
                if claimed is not None:
                    idempotency.store_answer(claimed, result.status_code, result.envelope)
        except WorkspaceError as error:
            return ToolResult.failure(error)
        except (OperationalError, InterfaceError):
            logger.exception(
                "tool %s failed on thread %r: the database failed", self.name, getattr(collection, "thread_id", None)
            )
            return ToolResult.failure(DatabaseUnavailable())
        except Exception:
            logger.exception("tool %s failed on thread %r", self.name, getattr(collection, "thread_id", None))
            return ToolResult.failure(ToolFailed(f"{self.name} failed because of an error on the server"))
        return result

    def validate(self, args: tuple, kwargs: dict) -> dict:
        """Map positional arguments to names, then check every argument against the model."""
        if len(args) > len(self.positional_names):
            raise InvalidArguments(
                f"{self.name} takes at most {len(self.positional_names)} positional arguments, got {len(args)}"
            )
        arguments = dict(zip(self.positional_names, args, strict=False))  # fewer args than names: the rest by keyword
        given_twice = sorted(arguments.keys() & kwargs.keys())
        if given_twice:
            raise InvalidArguments(f"argument {given_twice[0]!r} was given twice")
        arguments.update(kwargs)
        unknown = [name for name in arguments if name not in self.argument_names]
        if unknown:  # refused before validation, whose work and errors grow with their number
            listed = ", ".join(repr(shorten(str(name))) for name in unknown[:MAX_LISTED_PROBLEMS])
            more = f" and {len(unknown) - MAX_LISTED_PROBLEMS} more" if len(unknown) > MAX_LISTED_PROBLEMS else ""
            raise InvalidArguments(
                f"unknown argument{'s' if len(unknown) > 1 else ''} {listed}{more}; "
                f"the arguments are: {', '.join(self.argument_names)}"
            )
        try:
            validated = self.arguments_model.model_validate(arguments)
        except pydantic.ValidationError as error:
            raise InvalidArguments(_describe_errors(error, self.argument_names)) from None
        return {name: getattr(validated, name) for name in self.argument_names}


def workspace_tool(function: Callable | None = None) -> Callable:
    """Declare a method of a tool collection as a tool; use it bare: ``@workspace_tool``."""
    if not callable(function):
        raise TypeError("@workspace_tool takes no arguments: write @workspace_tool, not @workspace_tool(...)")
    spec = ToolSpec(function)

    @functools.wraps(function)
    def call(self, *args, **kwargs) -> dict:
        return spec.invoke(self, args, kwargs).envelope

    call.__signature__ = spec.signature
    call.workspace_tool = spec
    return call


def tools_of(collection: type) -> dict[str, ToolSpec]:
    """The tools a collection class declares (or inherits), by name, in declaration order."""
    members = {}
    for klass in reversed(collection.__mro__):
        members.update(vars(klass))
    return {
        member.workspace_tool.name: member.workspace_tool
        for member in members.values()
        if isinstance(getattr(member, "workspace_tool", None), ToolSpec)
    }


@dataclass(frozen=True)
class RegisteredTool:
    collection: type
    spec: ToolSpec

    def invoke(self, thread_id: str, arguments: dict, options: CallOptions | None = None) -> ToolResult:
        return self.spec.invoke(self.collection(thread_id), (), arguments, options)


def registered_tools() -> dict[str, RegisteredTool]:
    """Every tool of ``WORKSPACE_TOOL_COLLECTIONS``, by name; duplicates are refused."""
    return load_tools(tuple(conf.TOOL_COLLECTIONS))


@functools.lru_cache(maxsize=8)
def load_tools(paths: tuple[str, ...]) -> dict[str, RegisteredTool]:
    registry: dict[str, RegisteredTool] = {}
    for path in paths:
        collection = import_string(path)
        for name, spec in tools_of(collection).items():
            if name in registry:
                raise ValueError(
                    f"tool {name!r} is declared by both {registry[name].collection.__qualname__} "
                    f"and {collection.__qualname__}"
                )
            registry[name] = RegisteredTool(collection, spec)
    return registry


def get_tool(name: str) -> RegisteredTool:
    try:
        return registered_tools()[name]
    except KeyError:
        raise UnknownTool(
            f"unknown tool {shorten(name)!r}; the tools are: {', '.join(sorted(registered_tools()))}"
        ) from None


# An error names at most this many problems, each echoed value shortened:
# an answer of a few kilobytes, however wrong the request.
MAX_LISTED_PROBLEMS = 10
MAX_ECHOED_CHARS = 60


def shorten(text: str) -> str:
    return text if len(text) <= MAX_ECHOED_CHARS else text[: MAX_ECHOED_CHARS - 1] + "…"


def _describe_errors(error: pydantic.ValidationError, order: list[str]) -> str:
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


def _without_titles(schema: Any) -> Any:
    """Pydantic titles every model and property after its name; agents gain nothing from them."""
    if isinstance(schema, dict):
        schema.pop("title", None)
        for key, value in schema.items():
            if key == "properties":
                for prop in value.values():
                    _without_titles(prop)
            else:
                _without_titles(value)
    elif isinstance(schema, list):
        for item in schema:
            _without_titles(item)
    return schema
