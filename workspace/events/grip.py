"""Deprecated: ``workspace.events.grip`` was split in two. Publishing to Pushpin
is ``workspace.events.transports.pushpin``; who may use Pushpin's links is
``workspace.events.link_authentication``. The old names still work here, with
a ``DeprecationWarning``."""

import importlib
import warnings
from typing import Any

_MOVED = {
    "proxied": "workspace.events.link_authentication",
    "LinkAuthentication": "workspace.events.link_authentication",
    "enabled": "workspace.events.transports.pushpin",
    "publish_uri": "workspace.events.transports.pushpin",
    "TIMEOUT_SECONDS": "workspace.events.transports.pushpin",
    "MAX_PENDING": "workspace.events.transports.pushpin",
    "MAX_BATCH_BYTES": "workspace.events.transports.pushpin",
}


def __getattr__(name: str) -> Any:
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"workspace.events.grip.{name} is deprecated: use {_MOVED[name]}.{name}", DeprecationWarning, stacklevel=2
    )
    return getattr(importlib.import_module(_MOVED[name]), name)
