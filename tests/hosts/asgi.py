"""The host's ASGI entry, as the docs tell a host to write it: its own
application with the workspace's streams and MCP around it."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.hosts.settings")

django_application = get_asgi_application()

from workspace.asgi import with_workspace  # noqa: E402  (once Django is set up)

application = with_workspace(django_application)
