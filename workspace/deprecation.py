"""The old paths of names that moved, still answered for a while with a
``DeprecationWarning`` naming the new path: a name that moved out of a module
(``moved_names``, a module's ``__getattr__``), and a module that moved
(``moved_modules``, an import hook).
"""

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import warnings
from collections.abc import Callable
from importlib import import_module
from typing import Any

from django.utils.module_loading import import_string


def moved_names(module: str, moved: dict[str, str]) -> Callable[[str], Any]:
    """A module-level ``__getattr__`` (PEP 562) for ``module``: each old name in
    ``moved`` gives the dotted path it moved to, imported when first asked for.

    ``__getattr__ = moved_names(__name__, {"making": "workspace.documents.calls.calling"})``
    """

    def __getattr__(name: str) -> Any:
        if name not in moved:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(f"{module}.{name} is deprecated: use {moved[name]}", DeprecationWarning, stacklevel=2)
        return import_string(moved[name])

    return __getattr__


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The finder and loader of the old paths of modules that moved (``moved_modules``)."""

    def __init__(self, moved: dict[str, str | dict[str, str]]) -> None:
        self.moved = moved

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        return importlib.util.spec_from_loader(fullname, self) if fullname in self.moved else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        new = self.moved[spec.name]
        module = types.ModuleType(spec.name, f"Deprecated: the module moved ({new}).")
        names = new if isinstance(new, dict) else _AllNamesOf(new)
        module.__getattr__ = moved_names(spec.name, names)  # type: ignore[method-assign]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class _AllNamesOf(dict[str, str]):
    """Every name ``module`` has, as ``moved_names`` takes them: the name's path there."""

    def __init__(self, module: str) -> None:
        super().__init__()
        self.module = module

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and not name.startswith("__") and hasattr(import_module(self.module), name)

    def __getitem__(self, name: str) -> str:
        return f"{self.module}.{name}"


def moved_modules(moved: dict[str, str | dict[str, str]]) -> None:
    """Let each old module path in ``moved`` still import: every name of the
    module it moved to (``old: "new.module"``), or the names listed (``old:
    {name: "new.path"}``), each with a ``DeprecationWarning`` naming the new
    path when read. Only a path no module answers any more is found here:
    this hook is the last the import system asks."""
    sys.meta_path.append(_MovedModules(moved))
