"""The live panel: one thread's document, rendered and kept current in the browser
over SSE, with its activity, history and (for those who may write) an editor.

The page's script is the built ES module workspace/static/workspace/panel-page.js
(from workspace/static_src/, ``npm run build``; docs/panel.md)."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import reverse

from .access import can_access
from .exceptions import InvalidThreadId
from .history.revisions import DIFF_MAX_LINES
from .http import content_security
from .validation import validate_thread_id


@login_required
def thread_panel(request: HttpRequest, thread_id: str) -> HttpResponse:
    """The panel of one thread, for a signed-in user the access policy lets in."""
    try:
        validate_thread_id(thread_id)
    except InvalidThreadId as error:
        return HttpResponseBadRequest(str(error), content_type="text/plain")
    if not can_access(request.user, thread_id, action="read"):
        raise PermissionDenied("You may not use this thread.")
    response = render(
        request,
        "workspace/panel.html",
        {
            "thread_id": thread_id,
            "document_url": reverse("workspace:document", args=[thread_id]),
            "events_url": reverse("workspace:events", args=[thread_id]),
            "revisions_url": reverse("workspace:revisions", args=[thread_id]),
            "proposals_url": reverse("workspace:proposals", args=[thread_id]),
            "can_write": can_access(request.user, thread_id, action="write"),
            "diff_max_lines": DIFF_MAX_LINES,  # the history's line diffs are bounded as the admin's
        },
    )
    response["Content-Security-Policy"] = content_security.PANEL
    return response
