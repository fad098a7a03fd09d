"""The demo project's settings, plus tools that only tests serve (for server processes)."""

from project.settings import *  # noqa: F401,F403

WORKSPACE_TOOL_COLLECTIONS = [
    "workspace.tools.documents.DocumentTools",
    "tests.server_tools.DyingTools",
    "tests.server_tools.ChartTools",
]
