"""ASGI entry point: ``uvicorn project.asgi:application``."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

# The demo serves its own static files (the admin's CSS and JS); a production
# deployment runs collectstatic and lets its web server or CDN serve STATIC_ROOT.
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

application = ASGIStaticFilesHandler(get_asgi_application())
