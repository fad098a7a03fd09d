"""ASGI entry point: ``uvicorn project.asgi:application``.

``workspace.mcp.asgi`` serves each thread's MCP endpoint and hands everything
else on; it owns the ASGI lifespan, which uvicorn runs by default.
``workspace.events.handover.streams`` holds the event streams once Django
has opened them, so that a viewer costs no more than its stream.
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

# The demo serves its own static files (the admin's CSS and JS); a production
# deployment runs collectstatic and lets its web server or CDN serve STATIC_ROOT.
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

django_application = ASGIStaticFilesHandler(get_asgi_application())

from workspace.events.handover import streams  # noqa: E402  (once Django is set up)
from workspace.mcp import asgi  # noqa: E402

application = asgi(streams(django_application))

# What is loaded by now lives as long as the process: out of the cyclic
# collector's sight, its full collections no longer stall the streams this
# process holds (bench/streams.py, 1,000 viewers, back-to-back runs: p99
# 457 -> 272 ms; later runs with it ranged 261-453 ms).
gc.freeze()
