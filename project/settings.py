"""The demo project that hosts the ``workspace`` app. Configured from the
environment (see docs/configuration.md); defaults suit development."""

import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off", ""):
        return False
    raise ImproperlyConfigured(f"{name} must be 1/0 or true/false, not {value!r}")


DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or ("django-insecure-development-only-key" if DEBUG else None)
if not SECRET_KEY:
    raise ImproperlyConfigured("Set DJANGO_SECRET_KEY when DJANGO_DEBUG is off.")
ALLOWED_HOSTS = [
    host.strip() for host in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1").split(",") if host.strip()
]

# Behind HTTPS (a TLS proxy that sets X-Forwarded-Proto): secure cookies,
# HSTS and a redirect to HTTPS, so that `check --deploy` reports no issue.
if env_bool("DJANGO_HTTPS", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", str(365 * 24 * 3600)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_eventstream",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # the docs page's script, served from static files
    "workspace",
    "project",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "project.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]
WSGI_APPLICATION = "project.wsgi.application"
ASGI_APPLICATION = "project.asgi.application"


# Behind Pushpin (docs/deployment.md, "Serving many viewers"): Pushpin holds the event
# streams; GRIP_URL is its publish endpoint, GRIP_KEY its sig_key, with which
# it signs every request it forwards.
if os.environ.get("GRIP_URL"):
    if not os.environ.get("GRIP_KEY"):
        raise ImproperlyConfigured("Set GRIP_KEY (Pushpin's sig_key) with GRIP_URL.")
    GRIP_URL = f"{os.environ['GRIP_URL']}?{urlencode({'key': os.environ['GRIP_KEY']})}"
    MIDDLEWARE.insert(1, "django_grip.GripMiddleware")

# Seconds a write waits for another's lock (SQLite: for the database) and a
# statement may run (PostgreSQL) before giving up; 0 turns the second off.
LOCK_TIMEOUT_SECONDS = int(os.environ.get("DATABASE_LOCK_TIMEOUT", "5"))
STATEMENT_TIMEOUT_SECONDS = int(os.environ.get("DATABASE_STATEMENT_TIMEOUT", "30"))

PERSISTENT_CONNECTION_SECONDS = 600
POOL_MAX_SIZE = int(os.environ.get("DATABASE_POOL_MAX_SIZE", "20"))


def database_from_url(url: str, connections: str = "pool") -> dict[str, Any]:
    """The database of ``url``; on PostgreSQL, with ``connections`` "pool" (a
    connection pool per process) or "persistent" (a connection per thread,
    kept between requests: project/wsgi.py chooses it for WSGI workers)."""
    database: dict[str, Any] = dict(dj_database_url.parse(url))
    if database["ENGINE"] == "django.db.backends.sqlite3":
        # WAL lets readers work beside the writer; IMMEDIATE takes the write
        # lock at BEGIN, so concurrent writers wait (up to the timeout)
        # instead of failing with "database is locked" halfway through.
        database["OPTIONS"] = {
            "transaction_mode": "IMMEDIATE",
            "timeout": LOCK_TIMEOUT_SECONDS,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            **database.get("OPTIONS", {}),  # what the URL's query string says wins
        }
    elif database["ENGINE"] == "django.db.backends.postgresql":
        if connections not in ("pool", "persistent"):
            raise ImproperlyConfigured(f"DATABASE_CONNECTIONS must be pool or persistent, not {connections!r}")
        # Under ASGI each request runs in a new thread, so persistent
        # connections would leak; a pool hands connections back instead.
        # A WSGI worker's threads live as long as it does (gunicorn's sync
        # worker: one), so each keeps its connection, which Django checks
        # before a request reuses it: a connection killed while idle is
        # replaced, not failed, and no request pays the pool's checkout and
        # return (0.7 ms of CPU, bench/call_profile.py).
        persistent = connections == "persistent"
        database["ENGINE"] = "project.postgresql"  # its health check costs no round trip
        database["CONN_MAX_AGE"] = PERSISTENT_CONNECTION_SECONDS if persistent else 0
        database["CONN_HEALTH_CHECKS"] = persistent
        # Server-side binding and prepared statements (after 5 runs of a query
        # on a connection) save the database parsing and planning every append
        # again: bench/append.py measured 0.3 ms a call. Neither works behind
        # PgBouncer in transaction mode.
        database["OPTIONS"] = {
            # A stuck lock or a runaway query must not hold a worker for good:
            # both end in an error, which the API answers with 503.
            "options": (
                f"-c lock_timeout={LOCK_TIMEOUT_SECONDS * 1000} -c statement_timeout={STATEMENT_TIMEOUT_SECONDS * 1000}"
            ),
            "server_side_binding": True,
            "prepare_threshold": 5,
            "connect_timeout": 10,  # seconds, as the pool waits for a connection
            **({} if persistent else {"pool": {"min_size": 2, "max_size": POOL_MAX_SIZE, "timeout": 10}}),
            **database.get("OPTIONS", {}),  # sslmode and the like, from the URL's query string
        }
    return database


DATABASES = {
    "default": database_from_url(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        os.environ.get("DATABASE_CONNECTIONS", "pool"),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first, so that an unauthenticated request gets 401 with a
        # WWW-Authenticate header rather than 403; the app's drop-in for DRF's
        # own, whose lookup costs a quarter of a tool call (workspace/authentication.py).
        "workspace.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",  # drf-spectacular's own check asks for it
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

WORKSPACE_ACCESS_POLICY = os.environ.get("WORKSPACE_ACCESS_POLICY", "workspace.access.allow_authenticated")
for _rate in ("WORKSPACE_RATE_WRITES", "WORKSPACE_RATE_READS", "WORKSPACE_RATE_DRAFTS"):  # "off": no limit
    if os.environ.get(_rate):
        globals()[_rate] = None if os.environ[_rate] == "off" else os.environ[_rate]
if os.environ.get("WORKSPACE_MAX_STREAMS_PER_USER"):
    WORKSPACE_MAX_STREAMS_PER_USER = int(os.environ["WORKSPACE_MAX_STREAMS_PER_USER"])
if os.environ.get("WORKSPACE_MCP_MAX_SESSIONS_PER_USER"):
    WORKSPACE_MCP_MAX_SESSIONS_PER_USER = int(os.environ["WORKSPACE_MCP_MAX_SESSIONS_PER_USER"])
if os.environ.get("WORKSPACE_EVENT_MAX_CHARS"):
    WORKSPACE_EVENT_MAX_CHARS = int(os.environ["WORKSPACE_EVENT_MAX_CHARS"])
if os.environ.get("WORKSPACE_REVISION_KEEP_DAYS"):
    WORKSPACE_REVISION_KEEP_DAYS = int(os.environ["WORKSPACE_REVISION_KEEP_DAYS"])
if os.environ.get("WORKSPACE_DRAFT_TIMEOUT"):
    WORKSPACE_DRAFT_TIMEOUT = int(os.environ["WORKSPACE_DRAFT_TIMEOUT"])
if os.environ.get("WORKSPACE_MAX_DRAFTS_PER_THREAD"):
    WORKSPACE_MAX_DRAFTS_PER_THREAD = int(os.environ["WORKSPACE_MAX_DRAFTS_PER_THREAD"])
if os.environ.get("WORKSPACE_MAX_DRAFTS_PER_USER"):
    WORKSPACE_MAX_DRAFTS_PER_USER = int(os.environ["WORKSPACE_MAX_DRAFTS_PER_USER"])
LOGIN_URL = "workspace_panel:login"  # the panel's own sign-in page, for every user (the admin's admits staff only)

# Live events: one channel per thread, stored so that a reconnecting browser
# gets what it missed, and fanned out through Redis when REDIS_URL is set.
EVENTSTREAM_CHANNELMANAGER_CLASS = "workspace.events.ThreadChannelManager"
EVENTSTREAM_STORAGE_CLASS = "workspace.events.ThreadEventStorage"


def redis_from_url(url: str) -> dict:
    """redis.Redis() keyword arguments from a redis:// or rediss:// URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss"):
        raise ImproperlyConfigured(f"REDIS_URL must start with redis:// or rediss://, not {url!r}")
    options = {"host": parts.hostname or "localhost", "port": parts.port or 6379}
    if parts.path.strip("/"):
        options["db"] = int(parts.path.strip("/"))
    if parts.username:
        options["username"] = unquote(parts.username)
    if parts.password:
        options["password"] = unquote(parts.password)
    if parts.scheme == "rediss":
        options["ssl"] = True
    return options


if os.environ.get("REDIS_URL"):
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    EVENTSTREAM_REDIS = redis_from_url(os.environ["REDIS_URL"])
    # The cache counts each user's calls against the rates, shared by every
    # process; a slow or absent Redis costs a request half a second at most.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25, "retry": Retry(NoBackoff(), 0)},
        }
    }
# Room for a document of 1,000,000 characters (the default limit) in a JSON
# body, even when every character is escaped as \ud83d\ude00 (12 bytes).
DATA_UPLOAD_MAX_MEMORY_SIZE = 12 * 1_000_000 + 1024 * 1024

# Every error reaches the console with its traceback, whatever DEBUG says
# (Django's own logging prints only while DEBUG is on, and mails otherwise).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "django": {"handlers": [], "level": "WARNING"},  # to the root's console, not only while DEBUG
        "workspace": {"level": "INFO"},
        "django_eventstream": {"level": os.environ.get("DJANGO_EVENTSTREAM_LOG_LEVEL", "WARNING")},
    },
}
