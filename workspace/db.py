"""Deprecated: ``workspace.db.as_request`` is ``workspace.async_bridge.as_async_request``."""

from .deprecation import moved_names

__getattr__ = moved_names(__name__, {"as_request": "workspace.async_bridge.as_async_request"})
