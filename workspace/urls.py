from importlib import import_module

from django.db import transaction
from django.urls import path, re_path

from . import views

app_name = "workspace"

# Thread ids are captured permissively (empty, or holding a decoded "/" or a
# newline) and validated by the views, so that a bad id answers 400, never
# Django's HTML 404. One greedy group per route: matching stays linear in the
# path's length (two lazy groups made it quadratic, before authentication).
THREAD = r"^threads/(?P<thread_id>[\s\S]*)"


def thread_route(suffix: str, view, name: str) -> list:
    """The route as documented (trailing slash; what reverse() gives) and the
    same without the slash, so that a POST without it is not lost to a redirect."""
    return [re_path(f"{THREAD}{suffix}/$", view, name=name), re_path(f"{THREAD}{suffix}$", undocumented(view))]


def undocumented(view):
    """The same view, left out of OpenAPI schemas (their generators list DRF views only)."""

    def same_view(request, *args, **kwargs):
        return view(request, *args, **kwargs)

    same_view.csrf_exempt = True  # as DRF's views are
    if hasattr(view, "_non_atomic_requests"):
        same_view._non_atomic_requests = view._non_atomic_requests
    return same_view


def loaded_when_asked(name: str):
    """A view of workspace.openapi, imported at its first request: only the
    schema and docs pages load drf-spectacular."""

    def view(request, *args, **kwargs):
        return getattr(import_module(".openapi", __package__), name)(request, *args, **kwargs)

    view.csrf_exempt = True  # as DRF's views are
    return view


urlpatterns = [
    path("tools/", views.ToolListView.as_view(), name="tools"),
    path("schema/", loaded_when_asked("schema_view"), name="schema"),
    path("docs/", loaded_when_asked("docs_view"), name="docs"),
    *thread_route(r"/tools/(?P<name>[^/]*)", views.tool_call_view, "tool-call"),
    *thread_route("/document", views.DocumentView.as_view(), "document"),
    *thread_route("/revisions", views.RevisionListView.as_view(), "revisions"),
    *thread_route(r"/revisions/(?P<version>[^/]*)", views.RevisionDetailView.as_view(), "revision"),
    # Not in ATOMIC_REQUESTS' transaction: the stream gives its connection back.
    *thread_route("/events", transaction.non_atomic_requests(views.EventStreamView.as_view()), "events"),
    # MCP (JSON-RPC, not in the OpenAPI schema): served by workspace.mcp.asgi before Django sees it.
    re_path(f"{THREAD}/mcp/$", views.mcp_without_asgi, name="mcp"),
    re_path(f"{THREAD}/mcp$", views.mcp_without_asgi),
    re_path(r"^threads/(?P<rest>[\s\S]*)$", views.unrouted_thread_path),
]
