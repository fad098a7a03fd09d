"""WSGI entry point: ``gunicorn project.wsgi:application``.

Behind Pushpin (README, "Serving many viewers") this serves everything but
MCP, the event streams included; otherwise everything but those two.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

# The demo serves its own static files (the live panel's script, the admin's
# CSS and JS), as project.asgi does; a production deployment runs
# collectstatic and lets its web server or CDN serve STATIC_ROOT.
from django.contrib.staticfiles.handlers import StaticFilesHandler  # noqa: E402

application = StaticFilesHandler(get_wsgi_application())
