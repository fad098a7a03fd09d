"""System checks for the ``WORKSPACE_*`` settings, and for the host's own
settings the app depends on (``python manage.py check``).

``WorkspaceConfig.ready`` registers ``check_settings``; importing this module
registers nothing."""

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from django.apps import AppConfig, apps
from django.conf import settings
from django.core import checks
from django.http import HttpRequest
from django.shortcuts import resolve_url
from django.urls import NoReverseMatch, reverse
from django.utils.module_loading import import_string
from rest_framework.authentication import TokenAuthentication
from rest_framework.settings import api_settings

from .conf import conf
from .events import CHANNEL_MANAGER, STORAGE
from .http.throttling import WorkspaceRateThrottle
from .tools import tools_of
from .tools.registry import load_tools

Messages = Iterator[checks.CheckMessage]


def check_settings(app_configs: Sequence[AppConfig] | None = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Every check of this module, as one system check (tag: compatibility)."""
    return [
        *_check_event_settings(),
        *_check_grip_settings(),
        *_check_integers(),
        *_check_rates(),
        *_check_request_size(),
        *_check_access_policy(),
        *_check_tool_collections(),
        *_check_token_authentication(),
        *_check_login_url(),
        *_check_redis_installed(),
    ]


def _check_event_settings() -> Messages:
    if not apps.is_installed("django_eventstream"):
        yield checks.Error(
            "'django_eventstream' is not in INSTALLED_APPS; live events need its tables.",
            hint="Add 'django_eventstream' to INSTALLED_APPS and run migrate.",
            id="workspace.E006",
        )
    if getattr(settings, "EVENTSTREAM_CHANNELMANAGER_CLASS", None) != CHANNEL_MANAGER:
        yield checks.Error(
            "EVENTSTREAM_CHANNELMANAGER_CLASS does not apply the workspace access policy to event streams.",
            hint=f"Set EVENTSTREAM_CHANNELMANAGER_CLASS = {CHANNEL_MANAGER!r}.",
            id="workspace.E007",
        )
    if getattr(settings, "EVENTSTREAM_STORAGE_CLASS", None) != STORAGE:
        yield checks.Error(
            "EVENTSTREAM_STORAGE_CLASS is not the workspace's storage: streams do not read document "
            "changes from the revision log, so viewers miss them.",
            hint=f"Set EVENTSTREAM_STORAGE_CLASS = {STORAGE!r}.",
            id="workspace.E010",
        )


def _check_grip_settings() -> Messages:
    """Behind Pushpin: its signature must be checked, or anyone could send the GRIP-only parameters."""
    if not getattr(settings, "GRIP_URL", None):
        return
    from gripcontrol import parse_grip_uri

    if "django_grip.GripMiddleware" not in settings.MIDDLEWARE:
        yield checks.Error(
            "GRIP_URL is set but django_grip.GripMiddleware is not in MIDDLEWARE: requests from Pushpin "
            "are not recognised, so the event streams it holds cannot start.",
            hint="Add 'django_grip.GripMiddleware' to MIDDLEWARE.",
            id="workspace.E013",
        )
    proxy = parse_grip_uri(settings.GRIP_URL)
    if not proxy.get("key"):  # (django-grip reads "key" even where a verify-key is given)
        yield checks.Error(
            "GRIP_URL names no key: django-grip would take any request with a Grip-Sig header as Pushpin's.",
            hint="Add ?key=<Pushpin's sig_key> to GRIP_URL (the demo: set GRIP_KEY).",
            id="workspace.E014",
        )
    if getattr(settings, "GRIP_PROXIES", None):
        yield checks.Error(
            "GRIP_PROXIES is set beside GRIP_URL: django-grip adds GRIP_URL to that list again on every request.",
            hint="Name Pushpin in GRIP_URL alone.",
            id="workspace.E015",
        )


class IntegerSetting(NamedTuple):
    name: str
    minimum: int  # 1: a positive integer; 0: a non-negative one
    none_allowed: bool
    hint: str
    id: str


INTEGER_SETTINGS = [
    IntegerSetting(
        "WORKSPACE_MAX_DOCUMENT_CHARS",
        1,
        False,
        "Set it to the most characters a document may hold, e.g. 1_000_000.",
        "workspace.E001",
    ),
    IntegerSetting(
        "WORKSPACE_EVENT_MAX_CHARS",
        0,
        False,
        "Set it to the longest text or content a live event carries, e.g. 65_536.",
        "workspace.E008",
    ),
    IntegerSetting(
        "WORKSPACE_REVISION_KEEP_DAYS",
        1,
        True,
        "Set it to the days of history prune_revisions keeps, or None to keep all.",
        "workspace.E009",
    ),
    IntegerSetting(
        "WORKSPACE_MAX_STREAMS_PER_USER",
        1,
        False,
        "Set it to the event streams one user may hold open, e.g. 20.",
        "workspace.E012",
    ),
    IntegerSetting(
        "WORKSPACE_MCP_MAX_SESSIONS_PER_USER",
        1,
        False,
        "Set it to the MCP sessions one user may hold open in one server process, e.g. 100.",
        "workspace.E016",
    ),
    IntegerSetting(
        "WORKSPACE_DRAFT_TIMEOUT",
        1,
        False,
        "Set it to the seconds a draft stays open without a new piece, e.g. 30.",
        "workspace.E019",
    ),
    IntegerSetting(
        "WORKSPACE_MAX_DRAFTS_PER_THREAD",
        1,
        False,
        "Set it to the drafts one thread may have open at once, e.g. 8.",
        "workspace.E020",
    ),
    IntegerSetting(
        "WORKSPACE_MAX_DRAFTS_PER_USER",
        1,
        False,
        "Set it to the drafts one user may have open at once, across threads, e.g. 100.",
        "workspace.E021",
    ),
]


def _check_integers() -> Messages:
    for setting in INTEGER_SETTINGS:
        value = getattr(conf, setting.name.removeprefix("WORKSPACE_"))
        if setting.none_allowed and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < setting.minimum:
            kind = "a positive integer" if setting.minimum == 1 else "a non-negative integer"
            if setting.none_allowed:
                kind = f"None or {kind}"
            yield checks.Error(f"{setting.name} must be {kind}, not {value!r}.", hint=setting.hint, id=setting.id)


def _check_rates() -> Messages:
    for name in ("WORKSPACE_RATE_WRITES", "WORKSPACE_RATE_READS", "WORKSPACE_RATE_DRAFTS"):
        value = getattr(conf, name.removeprefix("WORKSPACE_"))
        if value is not None and not _is_rate(value):
            yield checks.Error(
                f"{name} must be a rate such as '600/min' (per second, min, hour or day), or None; not {value!r}.",
                hint="Set it in DRF's notation: requests/period.",
                id="workspace.E011",
            )


# JSON's widest escape of one code point, \ud83d\ude00, is 12 bytes.
BYTES_PER_CHARACTER_IN_JSON = 12
ROOM_FOR_OTHER_ARGUMENTS = 64 * 1024


def needed_request_size(max_document_chars: int) -> int:
    """Bytes of a request body that carries a document at the size limit."""
    return BYTES_PER_CHARACTER_IN_JSON * max_document_chars + ROOM_FOR_OTHER_ARGUMENTS


def _is_rate(value: Any) -> bool:
    """Whether DRF's throttles read ``value`` as a rate of at least one request a period."""
    parser = WorkspaceRateThrottle.__new__(WorkspaceRateThrottle)  # parse_rate reads nothing of the throttle
    try:
        requests, _ = parser.parse_rate(value)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError):
        return False
    return requests is not None and requests > 0


def _check_request_size() -> Messages:
    max_chars = conf.MAX_DOCUMENT_CHARS
    accepted = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if isinstance(max_chars, int) and accepted is not None and accepted < needed_request_size(max_chars):
        yield checks.Warning(
            f"DATA_UPLOAD_MAX_MEMORY_SIZE ({accepted} bytes) is too small for a request that writes a "
            f"document of WORKSPACE_MAX_DOCUMENT_CHARS ({max_chars}) characters.",
            hint=f"Raise it to {needed_request_size(max_chars)} bytes, or agents' large documents are refused.",
            id="workspace.W002",
        )


def _check_access_policy() -> Messages:
    path = conf.ACCESS_POLICY
    try:
        policy = import_string(path) if isinstance(path, str) else None
    except ImportError as error:
        policy = None
        reason = str(error)
    else:
        reason = "it is not a callable" if policy is not None else "it is not a dotted path string"
    if not callable(policy):
        yield checks.Error(
            f"WORKSPACE_ACCESS_POLICY {path!r} does not name a callable: {reason}.",
            hint="Name a function (user, thread_id) -> bool, e.g. 'workspace.access.allow_authenticated'.",
            id="workspace.E002",
        )
    elif not conf.ACCESS_POLICY_IS_SET:
        yield checks.Warning(
            "WORKSPACE_ACCESS_POLICY is not set, so every request to the workspace API is denied.",
            hint="Name a function (user, thread_id) -> bool, e.g. 'workspace.access.allow_authenticated'.",
            id="workspace.W001",
        )


def _check_tool_collections() -> Messages:
    paths = conf.TOOL_COLLECTIONS
    if not isinstance(paths, (list, tuple)) or not all(isinstance(path, str) for path in paths):
        yield checks.Error(
            f"WORKSPACE_TOOL_COLLECTIONS must be a list of dotted paths, not {paths!r}.",
            hint="e.g. ['workspace.tools.documents.DocumentTools'].",
            id="workspace.E003",
        )
        return
    importable = True
    for path in paths:
        try:
            collection = import_string(path)
        except ImportError as error:
            yield checks.Error(
                f"WORKSPACE_TOOL_COLLECTIONS names {path!r}, which cannot be imported: {error}.",
                hint="Name a class whose methods are declared with @workspace_tool.",
                id="workspace.E004",
            )
            importable = False
            continue
        if not isinstance(collection, type) or not tools_of(collection):
            yield checks.Error(
                f"WORKSPACE_TOOL_COLLECTIONS names {path!r}, which is not a class with tools.",
                hint="Name a class whose methods are declared with @workspace_tool.",
                id="workspace.E004",
            )
            importable = False
    if not importable:
        return
    try:
        load_tools(tuple(paths))
    except ValueError as error:
        yield checks.Error(
            f"WORKSPACE_TOOL_COLLECTIONS declares a tool twice: {error}.",
            hint="Give every tool a unique name across the collections.",
            id="workspace.E005",
        )


def _check_token_authentication() -> Messages:
    """Agents sign in with a token in the Authorization header; session cookies are for browsers."""
    try:
        classes = api_settings.DEFAULT_AUTHENTICATION_CLASSES
    except ImportError:
        return  # DRF's own error names the class it cannot import, at the first request
    if not any(_reads_the_authorization_header(authentication) for authentication in classes):
        yield checks.Warning(
            "None of REST_FRAMEWORK's DEFAULT_AUTHENTICATION_CLASSES reads API tokens: agents cannot "
            "authenticate (a request with Authorization: Token ... is refused as if it had no credentials).",
            hint="Add 'workspace.authentication.TokenAuthentication' (DRF's TokenAuthentication, looked up "
            "faster) to DEFAULT_AUTHENTICATION_CLASSES and 'rest_framework.authtoken' to INSTALLED_APPS.",
            id="workspace.W003",
        )


def _reads_the_authorization_header(authentication: Any) -> bool:
    """DRF's token authentication, or any class that challenges a client with a
    WWW-Authenticate scheme other than Basic (a bearer token, say): one an
    agent can answer with a token. (Basic, in DRF's defaults, takes passwords.)"""
    if isinstance(authentication, type) and issubclass(authentication, TokenAuthentication):
        return True
    try:
        challenge = authentication().authenticate_header(HttpRequest())
    except Exception:  # a host's class that needs more than this to answer: not known to read tokens
        return False
    return bool(challenge) and challenge.split()[0].lower() != "basic"


def _check_login_url() -> Messages:
    """The panel sends a signed-out visitor to LOGIN_URL; a name that reverses nowhere is a 500 there."""
    try:
        reverse("workspace_panel:thread", args=["thread"])
    except Exception:  # the panel is not served (or the URLconf is broken, which Django's own check reports)
        return
    try:
        resolve_url(settings.LOGIN_URL)
    except NoReverseMatch:
        yield checks.Error(
            f"LOGIN_URL {settings.LOGIN_URL!r} names no URL while the panel's urls are included: a signed-out "
            "visitor to the panel gets a server error (NoReverseMatch) instead of a sign-in page.",
            hint="Include a login view (path('accounts/', include('django.contrib.auth.urls')) gives one named "
            "'login') and set LOGIN_URL to its name or its path, e.g. '/accounts/login/'.",
            id="workspace.E017",
        )


REDIS_CACHE = "django.core.cache.backends.redis.RedisCache"


def _check_redis_installed() -> Messages:
    """EVENTSTREAM_REDIS and Django's Redis cache need the redis package. (django-eventstream 5.3 stops
    the process with its own ImportError first when EVENTSTREAM_REDIS is set; a Redis cache would
    fail only at its first use.)"""
    users = ["EVENTSTREAM_REDIS"] if getattr(settings, "EVENTSTREAM_REDIS", None) is not None else []
    users += [f"CACHES[{alias!r}]" for alias, cache in settings.CACHES.items() if cache.get("BACKEND") == REDIS_CACHE]
    if not users:
        return
    try:
        import redis  # noqa: F401
    except ImportError:
        yield checks.Error(
            f"Redis is configured ({', '.join(users)}), but the redis package is not installed.",
            hint="Install it: pip install 'django-workspace[redis]' (or pip install redis).",
            id="workspace.E018",
        )
