"""The demo's ASGI application as an install without the ``mcp`` extra serves
it: the ``mcp`` package cannot be found, nor imported."""

import sys

sys.modules["mcp"] = None  # as importlib answers for a package that is not installed

from project.asgi import application  # noqa: E402

__all__ = ["application"]
