"""System checks for the ``WORKSPACE_*`` settings (``python manage.py check``)."""

from django.core import checks
from django.utils.module_loading import import_string

from .conf import conf


@checks.register(checks.Tags.compatibility)
def check_settings(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    return [*_check_max_document_chars(), *_check_access_policy(), *_check_tool_collections()]


def _check_max_document_chars():
    value = conf.MAX_DOCUMENT_CHARS
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        yield checks.Error(
            f"WORKSPACE_MAX_DOCUMENT_CHARS must be a positive integer, not {value!r}.",
            hint="Set it to the most characters a document may hold, e.g. 1_000_000.",
            id="workspace.E001",
        )


def _check_access_policy():
    path = conf.ACCESS_POLICY
    try:
        policy = import_string(path) if isinstance(path, str) else None
    except ImportError as error:
        policy = None
        reason = str(error)
    else:
        reason = "it is not a callable" if policy is not None else "it is not a dotted path string"
    if not callable(policy):
        yield checks.Error(
            f"WORKSPACE_ACCESS_POLICY {path!r} does not name a callable: {reason}.",
            hint="Name a function (user, thread_id) -> bool, e.g. 'workspace.access.allow_authenticated'.",
            id="workspace.E002",
        )
    elif not conf.ACCESS_POLICY_IS_SET:
        yield checks.Warning(
            "WORKSPACE_ACCESS_POLICY is not set, so every request to the workspace API is denied.",
            hint="Name a function (user, thread_id) -> bool, e.g. 'workspace.access.allow_authenticated'.",
            id="workspace.W001",
        )


def _check_tool_collections():
    from .tools.registry import _registry, tools_of

    paths = conf.TOOL_COLLECTIONS
    if not isinstance(paths, (list, tuple)) or not all(isinstance(path, str) for path in paths):
        yield checks.Error(
            f"WORKSPACE_TOOL_COLLECTIONS must be a list of dotted paths, not {paths!r}.",
            hint="e.g. ['workspace.tools.documents.DocumentTools'].",
            id="workspace.E003",
        )
        return
    importable = True
    for path in paths:
        try:
            collection = import_string(path)
        except ImportError as error:
            yield checks.Error(
                f"WORKSPACE_TOOL_COLLECTIONS names {path!r}, which cannot be imported: {error}.",
                hint="Name a class whose methods are declared with @workspace_tool.",
                id="workspace.E004",
            )
            importable = False
            continue
        if not isinstance(collection, type) or not tools_of(collection):
            yield checks.Error(
                f"WORKSPACE_TOOL_COLLECTIONS names {path!r}, which is not a class with tools.",
                hint="Name a class whose methods are declared with @workspace_tool.",
                id="workspace.E004",
            )
            importable = False
    if not importable:
        return
    try:
        _registry(tuple(paths))
    except ValueError as error:
        yield checks.Error(
            f"WORKSPACE_TOOL_COLLECTIONS declares a tool twice: {error}.",
            hint="Give every tool a unique name across the collections.",
            id="workspace.E005",
        )
