"""ASGI entry point: ``uvicorn project.asgi:application``.

``workspace.asgi.with_workspace`` wraps Django's application: it holds the
event streams once Django has opened them, so that a viewer costs no more
than its stream, and serves each thread's MCP endpoint (owning the ASGI
lifespan, which uvicorn runs by default).
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

# The demo serves its own static files (the admin's CSS and JS); a production
# deployment runs collectstatic and lets its web server or CDN serve STATIC_ROOT.
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

django_application = ASGIStaticFilesHandler(get_asgi_application())

from workspace.asgi import with_workspace  # noqa: E402  (once Django is set up)

application = with_workspace(django_application)

# What is loaded by now lives as long as the process: out of the cyclic
# collector's sight, its full collections no longer stall the streams this
# process holds (bench/streams.py, 1,000 viewers, back-to-back runs: p99
# 457 -> 272 ms; later runs with it ranged 261-453 ms).
gc.freeze()
