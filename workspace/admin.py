"""Django admin for working documents: the list, each document, its history,
a revision with a line diff, and restoring a version.

The access policy applies here as in the API: staff see only the documents
it lets them ``"read"``, and restore only where it lets them ``"write"``.
"""

import difflib
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from .access import access_checker, can_access
from .documents.repository import WorkspaceRepository
from .exceptions import RevisionNotFound, WorkspaceError
from .history.revisions import DIFF_MAX_LINES, content_at, revision_with_content
from .models import Proposal, Revision, WorkingDocument

REVISIONS_PER_PAGE = 100
MAX_VERSION = 2**63 - 1
DOCUMENT_FIELDS = (
    "thread_id",
    "title",
    "length",
    "version",
    "review",
    "created_at",
    "updated_at",
    "history",
    "proposals",
    "live_panel",
    "content_as_text",
)
NO_VALUE_CHOICE = "(none)"  # the history filter's choice for "no actor", "no tool" or "no reviewer"
HISTORY_FILTERS = ("actor", "tool", "reviewed_by", "source")
PROPOSALS_SHOWN = 50


@admin.register(WorkingDocument)
class WorkingDocumentAdmin(admin.ModelAdmin):
    """Staff inspect documents and their history here. Only agents write them,
    through the tools, so that every change is a revision that reaches live
    viewers; staff with the change permission may restore an earlier version,
    which is a new revision too. Each page asks the access policy first."""

    list_display = ["thread_id", "title", "length", "version", "updated_at"]
    search_fields = ["thread_id", "title"]
    list_filter = ["updated_at"]
    date_hierarchy = "updated_at"
    fields = DOCUMENT_FIELDS
    readonly_fields = DOCUMENT_FIELDS
    # The count of every document would tell of those the policy hides.
    show_full_result_count = False

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return ReadableChangeList

    def get_object(self, request: HttpRequest, object_id: str, from_field: str | None = None) -> WorkingDocument | None:
        """The document, or None when there is none with that id (a malformed
        id included); PermissionDenied when the policy does not let the user read it."""
        document = super().get_object(request, object_id, from_field)
        if document is not None and not can_access(request.user, document.thread_id, "read"):
            raise PermissionDenied("The access policy does not let you read this document.")
        return document

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        # Django redirects an id it cannot find to the admin index; one no
        # document can have (not a number) is not a redirect but a 404.
        key = unquote(object_id)
        if not (key.isascii() and key.isdigit()):
            raise Http404(f"No working document has the id {object_id[:40]!r}.")
        return super().change_view(request, object_id, form_url, extra_context)

    def get_queryset(self, request: HttpRequest) -> QuerySet[WorkingDocument]:
        # The list never shows content; a page of 1 MB documents should not load it.
        return super().get_queryset(request).defer("content")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: WorkingDocument | None = None) -> bool:
        # The form stays read-only; the change permission allows restores (may_restore).
        return False

    def has_delete_permission(self, request: HttpRequest, obj: WorkingDocument | None = None) -> bool:
        # A document deleted and written again would restart at version 1,
        # and live viewers rely on versions only ever rising.
        return False

    def may_restore(self, request: HttpRequest, document: WorkingDocument) -> bool:
        return request.user.has_perm(f"{self.opts.app_label}.change_{self.opts.model_name}") and can_access(
            request.user, document.thread_id, "write"
        )

    def get_urls(self) -> list[URLPattern]:
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        return [
            path(
                "<path:object_id>/revisions/<str:version>/",
                self.admin_site.admin_view(self.revision_view),
                name=f"{name}_revision",
            ),
            path(
                "<path:object_id>/revisions/<str:version>/restore/",
                self.admin_site.admin_view(self.restore_view),
                name=f"{name}_restore",
            ),
            *super().get_urls(),
        ]

    @admin.display(description="history")
    def history(self, document: WorkingDocument) -> str:
        url = reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_history", args=[document.pk])
        return format_html(
            '<a href="{}">{} revisions: who changed it, when and why</a>', url, document.revisions.count()
        )

    @admin.display(description="proposals")
    def proposals(self, document: WorkingDocument) -> str:
        """The newest of the agents' proposals for this thread: who, why, and what became of each."""
        newest = Proposal.objects.filter(thread_id=document.thread_id).defer("content", "text").order_by("-id")
        shown = list(newest[:PROPOSALS_SHOWN])
        if not shown:
            return "None: agents' changes have all applied directly."
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{} ({})</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    p.pk,
                    p.status,
                    p.actor or "—",
                    p.tool,
                    p.action_and_reasoning[:300],
                    p.decided_by or "—",
                    p.version or "—",
                )
                for p in shown
            ),
        )
        return format_html(
            "<table><thead><tr><th>Id</th><th>Status</th><th>By</th><th>Why</th><th>Decided by</th>"
            "<th>Version</th></tr></thead><tbody>{}</tbody></table>",
            rows,
        )

    @admin.display(description="live panel")
    def live_panel(self, document: WorkingDocument) -> str:
        try:
            url = reverse("workspace_panel:thread", args=[document.thread_id])
        except NoReverseMatch:  # the host did not include workspace.panel_urls
            return "-"
        return format_html('<a href="{}">Watch this document live</a>', url)

    @admin.display(description="content")
    def content_as_text(self, document: WorkingDocument) -> str:
        # Agents write documents, so they are untrusted: shown as escaped text.
        return format_html('<pre style="white-space: pre-wrap; margin: 0">{}</pre>', document.content)

    def history_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> TemplateResponse:
        """The document's revisions, newest first, filtered by actor, tool, reviewer and source."""
        document = self._document(request, object_id)
        revisions = document.revisions.defer("text").order_by("-version")
        filters = {name: request.GET[name] for name in HISTORY_FILTERS if request.GET.get(name)}
        for name, value in filters.items():
            revisions = revisions.filter(**{name: None if value == NO_VALUE_CHOICE else value})
        page = Paginator(revisions, REVISIONS_PER_PAGE).get_page(request.GET.get("p"))
        choices: dict[str, Any] = {
            name: document.revisions.order_by(name).values_list(name, flat=True).distinct()[:50]
            for name in ("actor", "tool", "reviewed_by")
        }
        choices["source"] = Revision.Source.values
        context = {
            **self.admin_site.each_context(request),
            "title": f"History of {document}",
            "opts": self.opts,
            "document": document,
            "page": page,
            "filters": filters,
            "choices": choices,
            "none": NO_VALUE_CHOICE,
        }
        return TemplateResponse(request, "admin/workspace/workingdocument/revisions.html", context)

    def revision_view(self, request: HttpRequest, object_id: str, version: str) -> TemplateResponse:
        """The content at one revision, and a line diff with the one before it."""
        number = _version_number(version)
        document = self._document(request, object_id)
        revision, content = self._revision(document, number)
        previous = Revision.objects.filter(document=document, version=number - 1).first()
        before = content_at(previous) if previous else ""
        diff = line_diff(before, content, previous is not None)
        context = {
            **self.admin_site.each_context(request),
            "title": f"{document}, version {number}",
            "opts": self.opts,
            "document": document,
            "revision": revision,
            "content": content,
            "diff": diff,
            "diff_max_lines": DIFF_MAX_LINES,
            # Without a line diff, the version before is shown whole beside this one.
            "before": before if diff is None and previous is not None else None,
            "has_previous": previous is not None,
            "may_restore": self.may_restore(request, document) and number != document.version,
        }
        return TemplateResponse(request, "admin/workspace/workingdocument/revision.html", context)

    def restore_view(self, request: HttpRequest, object_id: str, version: str) -> HttpResponseRedirect:
        number = _version_number(version)
        if request.method != "POST":
            return HttpResponseRedirect(self._revision_url(object_id, number))
        document = self._document(request, object_id)
        if not self.may_restore(request, document):
            raise PermissionDenied(
                "Restoring needs the permission to change working documents, and the access policy's "
                "permission to write this one."
            )
        try:
            change = WorkspaceRepository.restore(
                document.thread_id,
                number,
                actor=request.user.get_username(),
                reason=f"Restored version {number} in the admin.",
                source=Revision.Source.PERSON,
            )
        except WorkspaceError as error:
            messages.error(request, str(error))
            return HttpResponseRedirect(self._revision_url(object_id, number))
        if change.version == document.version:
            messages.info(request, f"Version {number} has the current content and title already; nothing changed.")
        else:
            messages.success(request, f"Version {number} restored as version {change.version}.")
        return HttpResponseRedirect(
            reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_history", args=[document.pk])
        )

    def _document(self, request: HttpRequest, object_id: str) -> WorkingDocument:
        """The document the URL names, which the user may view and read: else 404 or 403."""
        document = self.get_object(request, unquote(object_id))
        if document is None:
            raise Http404(f"No working document has the id {object_id[:40]!r}.")
        if not self.has_view_permission(request, document):
            raise PermissionDenied
        return document

    def _revision(self, document: WorkingDocument, version: int) -> tuple[Revision, str]:
        try:
            return revision_with_content(document, version)
        except RevisionNotFound as error:
            raise Http404(str(error)) from None

    def _revision_url(self, object_id: str, version: int) -> str:
        return reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_revision", args=[object_id, version])


def _version_number(version: str) -> int:
    """The version an admin URL names; 404 for one no revision can have (the
    URL takes any text, the database integers of 64 bits)."""
    if not (version.isascii() and version.isdigit() and len(version) <= 19 and int(version) <= MAX_VERSION):
        raise Http404(f"the document has no revision {version[:40]!r}")
    return int(version)


class ReadableChangeList(ChangeList):
    """The list of documents, searched and filtered as usual, then narrowed to
    those the access policy lets the user read. The policy is a Python
    callable, so it is asked once per document that the search and filters leave."""

    def get_queryset(
        self, request: HttpRequest, exclude_parameters: list[str | None] | None = None
    ) -> QuerySet[WorkingDocument]:
        documents = super().get_queryset(request, exclude_parameters)
        may_read = access_checker(request.user, "read")
        readable: list[int] = []
        hidden: list[int] = []
        for pk, thread_id in documents.values_list("pk", "thread_id").iterator(chunk_size=2000):
            (readable if may_read(thread_id) else hidden).append(pk)
        # The shorter list of keys makes the shorter query.
        if len(hidden) <= len(readable):
            return documents.exclude(pk__in=hidden) if hidden else documents
        return documents.filter(pk__in=readable)


def line_diff(before: str, after: str, has_before: bool) -> list[tuple[str, str]] | None:
    """(kind, line) pairs of a unified diff, kind being "add", "remove", "hunk"
    or "same"; None when a side has more than DIFF_MAX_LINES lines."""
    if _line_count(before) > DIFF_MAX_LINES or _line_count(after) > DIFF_MAX_LINES:
        return None  # counted before splitting: a million short lines would be a million strings
    # Lines end at "\n" only, as the tools number them.
    old, new = before.split("\n") if before else [], after.split("\n") if after else []
    kinds = {"+": "add", "-": "remove", "@": "hunk", " ": "same"}
    lines = difflib.unified_diff(old, new, "before" if has_before else "(no document)", "after", lineterm="", n=3)
    return [(kinds.get(line[:1], "same"), line) for line in lines][2:]  # without the ---/+++ header


def _line_count(text: str) -> int:
    """The lines of ``text`` as the panel counts them: a last line needs no "\n"."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)
