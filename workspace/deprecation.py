"""The old paths of names that moved: a module's ``__getattr__`` that still
answers them, with a ``DeprecationWarning`` naming the new path."""

import warnings
from collections.abc import Callable
from typing import Any


def moved_names(module: str, moved: dict[str, tuple[str, Any]]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` (PEP 562) for ``module``: each old name in
    ``moved`` gives its new dotted path and the value it has there.

    ``__getattr__ = moved_names(__name__, {"making": ("workspace.calls.calling", calling)})``
    """

    def __getattr__(name: str) -> Any:
        if name not in moved:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        path, value = moved[name]
        warnings.warn(f"{module}.{name} is deprecated: use {path}", DeprecationWarning, stacklevel=2)
        return value

    return __getattr__
