"""A host project unlike the demo: its own user model (a UUID key; an email
address of up to 254 characters as the username) and its own REST_FRAMEWORK
defaults, each of which a host may well have. AUTH_USER_MODEL cannot change
within one process, so tests/app/test_host_settings.py runs tests/hosts/suite.py
under these settings in a process of its own."""

from tests.settings import *  # noqa: F401,F403  (the test database, fast hashing)
from tests.settings import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "tests.hosts.accounts"]
AUTH_USER_MODEL = "accounts.User"
ROOT_URLCONF = "tests.hosts.urls"

HOST_RATE = "2/min"  # low enough that a third request of anything the host's throttles count is 429
REST_FRAMEWORK = {
    # Session first, as a site whose API serves its own pages lists them.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "workspace.authentication.TokenAuthentication",
    ],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {"anon": HOST_RATE, "user": HOST_RATE},
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 1,
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.BrowsableAPIRenderer",
        "rest_framework.renderers.JSONRenderer",
    ],
    "EXCEPTION_HANDLER": "tests.hosts.drf.host_exception_handler",
    "DEFAULT_VERSIONING_CLASS": "rest_framework.versioning.NamespaceVersioning",
    "ALLOWED_VERSIONS": ["v1"],
    "DATETIME_FORMAT": "%d.%m.%Y %H:%M",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
# The host's own schema shows each user what they may use; the app's shows every endpoint.
SPECTACULAR_SETTINGS = {"SERVE_PUBLIC": False}
