"""Deprecated: ``workspace.db.as_request`` is ``workspace.async_bridge.as_async_request``."""

import warnings
from typing import Any


def __getattr__(name: str) -> Any:
    if name == "as_request":
        warnings.warn(
            "workspace.db.as_request is deprecated: use workspace.async_bridge.as_async_request",
            DeprecationWarning,
            stacklevel=2,
        )
        from .async_bridge import as_async_request

        return as_async_request
    raise AttributeError(f"module 'workspace.db' has no attribute {name!r}")
