"""The old paths of names that moved: a module's ``__getattr__`` that still
answers them, with a ``DeprecationWarning`` naming the new path."""

import warnings
from collections.abc import Callable
from typing import Any

from django.utils.module_loading import import_string


def moved_names(module: str, moved: dict[str, str]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` (PEP 562) for ``module``: each old name in
    ``moved`` gives the dotted path it moved to, imported when first asked for.

    ``__getattr__ = moved_names(__name__, {"making": "workspace.calls.calling"})``
    """

    def __getattr__(name: str) -> Any:
        if name not in moved:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(f"{module}.{name} is deprecated: use {moved[name]}", DeprecationWarning, stacklevel=2)
        return import_string(moved[name])

    return __getattr__
