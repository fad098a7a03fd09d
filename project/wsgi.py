"""WSGI entry point: ``gunicorn project.wsgi:application``.

Behind Pushpin (docs/deployment.md, "Serving many viewers") this serves everything but
MCP, the event streams included; otherwise everything but those two.
"""

import gc
import os
import sys
from importlib.abc import MetaPathFinder


class WithoutCryptography(MetaPathFinder):
    """PyJWT, which django-eventstream loads in every process (through
    gripcontrol), imports cryptography whenever it is installed: 8 MB in each
    worker. It is installed for MCP (mcp requires pyjwt[crypto]), which WSGI
    never serves; the tokens these processes sign and check (GRIP, stream
    links) are HS256, which PyJWT computes with hashlib. So WSGI workers go
    without it, and code that imports it here is told why."""

    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] == "cryptography":
            raise ModuleNotFoundError(f"{name} is kept out of the WSGI workers: see project/wsgi.py", name=name)
        return None


sys.meta_path.insert(0, WithoutCryptography())

from django.core.wsgi import get_wsgi_application  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
# A WSGI server's threads live as long as its workers (runserver's, which
# do not, close their connections themselves): a connection each, kept.
os.environ.setdefault("DATABASE_CONNECTIONS", "persistent")

# The demo serves its own static files (the live panel's script, the admin's
# CSS and JS), as project.asgi does; a production deployment runs
# collectstatic and lets its web server or CDN serve STATIC_ROOT.
from django.contrib.staticfiles.handlers import StaticFilesHandler  # noqa: E402
from django.urls import get_resolver  # noqa: E402

application = StaticFilesHandler(get_wsgi_application())

# The URLconf (views, tools, their models) loaded now rather than at the
# first request, then everything loaded kept out of the cyclic collector's
# sight: its full collections otherwise walk all of it in some requests.
get_resolver().url_patterns  # noqa: B018
gc.freeze()
