from django.db import models

from .validation import THREAD_ID_MAX_LENGTH


class WorkingDocument(models.Model):
    """The shared working document of one conversation thread (the "center panel").

    Written only through ``WorkspaceRepository``, which keeps ``length`` and
    ``version`` in step with ``content``.
    """

    thread_id = models.CharField(max_length=THREAD_ID_MAX_LENGTH, unique=True)
    title = models.CharField(max_length=255, blank=True, default="")
    content = models.TextField(blank=True, default="")
    # Stored so that appends and size checks never read the whole content back.
    length = models.PositiveIntegerField(default=0, help_text="Characters (code points) in content.")
    version = models.PositiveIntegerField(default=1, help_text="1 when created, +1 on every change.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "working document"
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title or self.thread_id
