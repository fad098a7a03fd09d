"""The app's HTTP routes, for a host to include (``path("api/workspace/", include("workspace.urls"))``).

Views come from ``workspace.http.views``; the schema and docs pages from
``workspace.http.openapi``, imported at their first request only.
"""

from collections.abc import Callable
from functools import cache
from importlib import import_module
from typing import Any

from django.db import transaction
from django.http import HttpRequest, HttpResponseBase
from django.urls import URLPattern, path, re_path
from django.views.decorators.csrf import csrf_exempt

from .http import views
from .review import views as review_views

app_name = "workspace"

# Thread ids are captured permissively (empty, or holding a decoded "/" or a
# newline) and validated by the views, so that a bad id answers 400, never
# Django's HTML 404. One greedy group per route: matching stays linear in the
# path's length (two lazy groups made it quadratic, before authentication).
THREAD = r"^threads/(?P<thread_id>[\s\S]*)"

View = Callable[..., HttpResponseBase]


def thread_route(suffix: str, view: View, name: str, *, in_request_transaction: bool = True) -> list[URLPattern]:
    """The route as documented (trailing slash; what reverse() gives) and the
    same without the slash, so that a POST without it is not lost to a redirect.
    ``in_request_transaction=False``: both outside ATOMIC_REQUESTS' transaction."""
    without_slash = undocumented(view)
    if not in_request_transaction:
        view, without_slash = transaction.non_atomic_requests(view), transaction.non_atomic_requests(without_slash)
    return [re_path(f"{THREAD}{suffix}/$", view, name=name), re_path(f"{THREAD}{suffix}$", without_slash)]


def undocumented(view: View) -> View:
    """The same view, left out of OpenAPI schemas (their generators list DRF views only)."""

    @csrf_exempt  # as DRF's views are
    def same_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        return view(request, *args, **kwargs)

    return same_view


def loaded_when_asked(view_class: str, **initkwargs: Any) -> View:
    """A view class of workspace.http.openapi, imported and made at its first request:
    only the schema and docs pages load drf-spectacular."""

    @cache
    def loaded() -> View:
        return getattr(import_module(".http.openapi", __package__), view_class).as_view(**initkwargs)

    @csrf_exempt  # as DRF's views are
    def view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        return loaded()(request, *args, **kwargs)

    return view


urlpatterns = [
    path("tools/", views.ToolListView.as_view(), name="tools"),
    path("schema/", loaded_when_asked("WorkspaceSchemaView", urlconf=__name__), name="schema"),
    path("docs/", loaded_when_asked("WorkspaceDocsView"), name="docs"),
    *thread_route(r"/tools/(?P<name>[^/]*)", views.tool_call_view, "tool-call"),
    *thread_route("/document", views.DocumentView.as_view(), "document"),
    *thread_route("/revisions", views.RevisionListView.as_view(), "revisions"),
    *thread_route(r"/revisions/(?P<version>[^/]*)", views.RevisionDetailView.as_view(), "revision"),
    *thread_route(r"/revisions/(?P<version>[^/]*)/restore", views.RevisionRestoreView.as_view(), "revision-restore"),
    *thread_route("/proposals", review_views.ProposalListView.as_view(), "proposals"),
    *thread_route(r"/proposals/(?P<proposal_id>[^/]*)", review_views.ProposalDetailView.as_view(), "proposal"),
    *thread_route(
        r"/proposals/(?P<proposal_id>[^/]*)/decision", review_views.DecisionView.as_view(), "proposal-decision"
    ),
    # Not in ATOMIC_REQUESTS' transaction: a draft's first piece opens it in a
    # transaction of its own, and a failure that ends it must commit.
    *thread_route(r"/drafts/(?P<call_id>[^/]*)", views.DraftView.as_view(), "draft", in_request_transaction=False),
    # Not in ATOMIC_REQUESTS' transaction: the stream gives its connection back.
    *thread_route("/events", views.EventStreamView.as_view(), "events", in_request_transaction=False),
    # MCP (JSON-RPC, not in the OpenAPI schema): served by workspace.asgi.with_workspace before Django sees it.
    re_path(f"{THREAD}/mcp/$", views.mcp_without_asgi, name="mcp"),
    re_path(f"{THREAD}/mcp$", views.mcp_without_asgi),
    re_path(r"^threads/(?P<rest>[\s\S]*)$", views.unrouted_thread_path),
]
