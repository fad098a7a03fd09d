import difflib

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, path, reverse
from django.utils.html import format_html

from . import history
from .exceptions import RevisionNotFound, WorkspaceError
from .models import Revision, WorkingDocument
from .repository import WorkspaceRepository

REVISIONS_PER_PAGE = 100
# difflib compares lines pairwise in the worst case: past this product of
# the two sides' line counts (about a second of work), no line diff is shown.
DIFF_MAX_LINE_PAIRS = 1_000_000
NONE = "(none)"  # the history filter's value for "no actor" or "no tool"


@admin.register(WorkingDocument)
class WorkingDocumentAdmin(admin.ModelAdmin):
    """Staff inspect documents and their history here. Only agents write them,
    through the tools, so that every change is a revision that reaches live
    viewers; staff with the change permission may restore an earlier version,
    which is a new revision too."""

    list_display = ["thread_id", "title", "length", "version", "updated_at"]
    search_fields = ["thread_id", "title"]
    list_filter = ["updated_at"]
    date_hierarchy = "updated_at"
    fields = [
        "thread_id",
        "title",
        "length",
        "version",
        "created_at",
        "updated_at",
        "history",
        "live_panel",
        "content_as_text",
    ]
    readonly_fields = fields

    def get_queryset(self, request):
        # The list never shows content; a page of 1 MB documents should not load it.
        return super().get_queryset(request).defer("content")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        # The form stays read-only; the change permission allows restores (may_restore).
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        # A document deleted and written again would restart at version 1,
        # and live viewers rely on versions only ever rising.
        return False

    def may_restore(self, request) -> bool:
        return request.user.has_perm(f"{self.opts.app_label}.change_{self.opts.model_name}")

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        return [
            path(
                "<path:object_id>/revisions/<int:version>/",
                self.admin_site.admin_view(self.revision_view),
                name=f"{name}_revision",
            ),
            path(
                "<path:object_id>/revisions/<int:version>/restore/",
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

    def history_view(self, request, object_id, extra_context=None):
        """The document's revisions, newest first, filtered by actor and tool."""
        document = self._document(request, object_id)
        revisions = document.revisions.defer("text").order_by("-version")
        filters = {name: request.GET[name] for name in ("actor", "tool") if request.GET.get(name)}
        for name, value in filters.items():
            revisions = revisions.filter(**{name: None if value == NONE else value})
        page = Paginator(revisions, REVISIONS_PER_PAGE).get_page(request.GET.get("p"))
        choices = {
            name: document.revisions.order_by(name).values_list(name, flat=True).distinct()[:50]
            for name in ("actor", "tool")
        }
        context = {
            **self.admin_site.each_context(request),
            "title": f"History of {document}",
            "opts": self.opts,
            "document": document,
            "page": page,
            "filters": filters,
            "choices": choices,
            "none": NONE,
        }
        return TemplateResponse(request, "admin/workspace/workingdocument/revisions.html", context)

    def revision_view(self, request, object_id, version):
        """The content at one revision, and a line diff with the one before it."""
        document = self._document(request, object_id)
        revision, content = self._revision(document, version)
        previous = Revision.objects.filter(document=document, version=version - 1).first()
        before = history.content_at(previous) if previous else ""
        context = {
            **self.admin_site.each_context(request),
            "title": f"{document}, version {version}",
            "opts": self.opts,
            "document": document,
            "revision": revision,
            "content": content,
            "diff": line_diff(before, content, previous is not None),
            "has_previous": previous is not None,
            "may_restore": self.may_restore(request) and version != document.version,
        }
        return TemplateResponse(request, "admin/workspace/workingdocument/revision.html", context)

    def restore_view(self, request, object_id, version):
        if request.method != "POST":
            return HttpResponseRedirect(self._revision_url(object_id, version))
        if not self.may_restore(request):
            raise PermissionDenied("Restoring needs the permission to change working documents.")
        document = self._document(request, object_id)
        try:
            change = WorkspaceRepository.restore(
                document.thread_id,
                version,
                actor=request.user.get_username(),
                reason=f"Restored version {version} in the admin.",
            )
        except WorkspaceError as error:
            messages.error(request, str(error))
            return HttpResponseRedirect(self._revision_url(object_id, version))
        messages.success(request, f"Version {version} restored as version {change.version}.")
        return HttpResponseRedirect(
            reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_history", args=[document.pk])
        )

    def _document(self, request, object_id) -> WorkingDocument:
        document = get_object_or_404(WorkingDocument.objects.defer("content"), pk=object_id)
        if not self.has_view_permission(request, document):
            raise PermissionDenied
        return document

    def _revision(self, document, version):
        try:
            return history.revision_with_content(document, version)
        except RevisionNotFound as error:
            raise Http404(str(error)) from None

    def _revision_url(self, object_id, version) -> str:
        return reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_revision", args=[object_id, version])


def line_diff(before: str, after: str, has_before: bool) -> list[tuple[str, str]] | None:
    """(kind, line) pairs of a unified diff, kind being "add", "remove", "hunk"
    or "same"; None when a side has too many lines to compare here."""
    old, new = before.splitlines(), after.splitlines()
    if len(old) * len(new) > DIFF_MAX_LINE_PAIRS:
        return None
    kinds = {"+": "add", "-": "remove", "@": "hunk", " ": "same"}
    lines = difflib.unified_diff(old, new, "before" if has_before else "(no document)", "after", lineterm="", n=3)
    return [(kinds.get(line[:1], "same"), line) for line in lines][2:]  # without the ---/+++ header
