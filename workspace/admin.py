from django.contrib import admin
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html

from .models import WorkingDocument


@admin.register(WorkingDocument)
class WorkingDocumentAdmin(admin.ModelAdmin):
    """Staff inspect documents here. Only agents write them, through the tools,
    so that every change bumps the version and reaches live viewers."""

    list_display = ["thread_id", "title", "length", "version", "updated_at"]
    search_fields = ["thread_id", "title"]
    list_filter = ["updated_at"]
    date_hierarchy = "updated_at"
    fields = ["thread_id", "title", "length", "version", "created_at", "updated_at", "live_panel", "content_as_text"]
    readonly_fields = fields

    def get_queryset(self, request):
        # The list never shows content; a page of 1 MB documents should not load it.
        return super().get_queryset(request).defer("content")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        # A document deleted and written again would restart at version 1,
        # and live viewers rely on versions only ever rising.
        return False

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
