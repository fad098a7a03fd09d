"""The app's tables: the working documents, their revisions and snapshots, the
agents' proposals waiting for review, the idempotency records, and the drafts
of tool calls still being generated."""

from collections.abc import Collection
from typing import Any

from django.db import models

from .validation import THREAD_ID_MAX_LENGTH, TITLE_MAX_LENGTH


class WorkingDocument(models.Model):
    """The shared working document of one conversation thread (the "center panel").

    Written only through ``WorkspaceRepository``, which keeps ``length`` and
    ``version`` in step with ``content`` and records a ``Revision`` of every change.

    The row's ``content`` column holds the content at ``content_version``; the
    appends made since are held in their revisions alone, so that an append
    writes its chunk and not the whole document again (``docs/architecture.md``).
    A document loaded with its content has them joined on (``from_db``): its
    ``content`` is the content at its ``version``, whichever way it was read.
    """

    thread_id = models.CharField(max_length=THREAD_ID_MAX_LENGTH, unique=True)
    title = models.CharField(max_length=TITLE_MAX_LENGTH, blank=True, default="")
    content = models.TextField(blank=True, default="")
    # The version the content column holds; the appends after it are their revisions' text.
    # A database default too: raw INSERTs (bench/append.py) need not name it.
    content_version = models.PositiveIntegerField(default=1, db_default=1)
    # Stored so that appends and size checks never read the whole content back.
    length = models.PositiveIntegerField(default=0, help_text="Characters (code points) in content.")
    version = models.PositiveIntegerField(default=1, help_text="1 when created, +1 on every change.")
    # The newest version whose whole content history holds (a revision that
    # holds it whole, or a snapshot), the length then, and the characters the
    # revisions since it store: later versions are rebuilt from it, and a new
    # whole copy is taken when the changes since it grow too many or too large.
    base_version = models.PositiveIntegerField(default=1)
    base_length = models.PositiveIntegerField(default=0)
    # A database default too: raw INSERTs (bench/append.py) need not name it.
    stored_since_base = models.PositiveIntegerField(default=0, db_default=0)
    # On: an agent's writing tool call stores a Proposal instead of changing the content.
    review = models.BooleanField(default=False, db_default=False, help_text="Agents' changes wait for review.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "working document"
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.title or self.thread_id

    @classmethod
    def from_db(
        cls, db: str | None, field_names: Collection[str], values: Collection[Any], **kwargs: Any
    ) -> "WorkingDocument":
        document = super().from_db(db, field_names, values, **kwargs)
        if "content" not in field_names:
            return document
        for _ in range(3):
            if document.content_version == document.version:
                return document
            appended = appended_between(db, document.pk, document.content_version, document.version)
            if appended is not None:
                document.content += appended
                document.content_version = document.version  # what this instance holds now
                return document
            # Read outside a transaction, and folded and pruned in between: read it again.
            again = cls.objects.using(db).filter(pk=document.pk).values_list(*field_names).get()
            document = super().from_db(db, field_names, again, **kwargs)
        raise RuntimeError(f"document {document.pk}: the appends its content lacks are not kept")

    def save(self, *args: Any, **kwargs: Any) -> None:
        """As ``Model.save``; saving the content saves it as the content at ``version``."""
        update_fields = kwargs.get("update_fields")
        loaded = "content" not in self.get_deferred_fields()  # not loaded, not saved: the column stays as it is
        if loaded and (update_fields is None or "content" in update_fields):
            self.content_version = self.version
            if update_fields is not None:
                kwargs["update_fields"] = {*update_fields, "content_version"}
        super().save(*args, **kwargs)


def appended_between(using: str | None, document_id: int, start: int, end: int) -> str | None:
    """The text the document's appends after version ``start`` up to ``end``
    added, joined in order; None when some of them are no longer kept."""
    rows = Revision.objects.using(using).filter(document_id=document_id, version__gt=start, version__lte=end)
    appended = list(rows.order_by("version").values_list("text", flat=True))
    return "".join(appended) if len(appended) == end - start else None


class Revision(models.Model):
    """One committed change of a document, written in the change's own transaction.

    ``text`` is what changed: the appended chunk for ``append``; for the other
    ops either the whole new content (``splice_line`` null) or, as a
    ``workspace.history.splices.Splice`` of the content before it, the inserted text.
    The content at a version that is not a whole copy is the content at
    ``base_version`` (a whole-content revision or a snapshot) with the changes
    after it applied in order.
    """

    class Op(models.TextChoices):
        UPDATE = "update"
        APPEND = "append"
        EDIT = "edit"
        RESTORE = "restore"

    class Source(models.TextChoices):
        """Who made a change: an agent (a tool call) or a person (the person's
        endpoints, the panel, the admin)."""

        AGENT = "agent"
        PERSON = "person"

    document = models.ForeignKey(WorkingDocument, on_delete=models.CASCADE, related_name="revisions")
    version = models.PositiveIntegerField()
    op = models.CharField(max_length=16, choices=Op.choices)
    title = models.CharField(
        max_length=TITLE_MAX_LENGTH, blank=True, default="", help_text="The title after this change."
    )
    length = models.PositiveIntegerField(help_text="Characters in the document after this change.")
    text = models.TextField(
        blank=True, default="", help_text="The appended chunk, the whole new content, or a splice's inserted text."
    )
    action_and_reasoning = models.TextField(blank=True, default="")
    # Text, not a CharField of Django's 150: a host's user model may name its
    # users by longer usernames (an email address holds up to 254 characters).
    actor = models.TextField(null=True, blank=True, help_text="Who made the change: the user's username.")
    tool = models.CharField(max_length=128, null=True, blank=True, help_text="The tool that made it.")
    # A database default too: raw INSERTs (bench/append.py) need not name it.
    source = models.CharField(
        max_length=8,
        choices=Source.choices,
        default=Source.AGENT,
        db_default=Source.AGENT,
        help_text="Agent or person.",
    )
    restored_from = models.PositiveIntegerField(null=True, blank=True)
    review = models.BooleanField(default=False, db_default=False, help_text="The document's review mode then.")
    reviewed_by = models.TextField(null=True, blank=True, help_text="Who accepted the proposal it applies.")
    proposal = models.PositiveBigIntegerField(null=True, blank=True, help_text="The proposal it applies.")
    # A change stored as a splice: where it starts in the content before it
    # (0-based line, split at "\n", and column) and how many characters it removed.
    splice_line = models.PositiveIntegerField(null=True, blank=True)
    splice_column = models.PositiveIntegerField(null=True, blank=True)
    splice_removed = models.PositiveIntegerField(null=True, blank=True)
    base_version = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["document", "version"]
        constraints = [
            models.UniqueConstraint(fields=["document", "version"], name="workspace_revision_unique_version")
        ]
        indexes = [models.Index(fields=["created_at"], name="workspace_revision_created")]

    def __str__(self) -> str:
        return f"version {self.version} ({self.op})"


class Snapshot(models.Model):
    """The whole content of a document at an append's version, so that
    rebuilding a version never reads more than a bounded run of appends."""

    document = models.ForeignKey(WorkingDocument, on_delete=models.CASCADE, related_name="snapshots")
    version = models.PositiveIntegerField()
    content = models.TextField(blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["document", "version"], name="workspace_snapshot_unique_version")
        ]


class Proposal(models.Model):
    """A change an agent's tool call made while its document was in review:
    stored instead of applied, until a person accepts all, some or none of
    its hunks (``workspace.documents.decisions``). ``content`` and ``title``
    are the document as the change would leave it, made on ``base_version``
    (0: the thread had no document); ``text`` is an append's chunk."""

    class Status(models.TextChoices):
        OPEN = "open"
        ACCEPTED = "accepted"
        PARTIAL = "partial"
        REJECTED = "rejected"

    thread_id = models.CharField(max_length=THREAD_ID_MAX_LENGTH)
    base_version = models.PositiveIntegerField()
    base_title = models.CharField(max_length=TITLE_MAX_LENGTH, blank=True, default="")
    tool = models.CharField(max_length=128)
    op = models.CharField(max_length=16, choices=Revision.Op.choices)
    actor = models.TextField(null=True, blank=True)
    action_and_reasoning = models.TextField(blank=True, default="")
    title = models.CharField(max_length=TITLE_MAX_LENGTH, blank=True, default="")
    content = models.TextField(blank=True, default="")
    text = models.TextField(null=True, blank=True, help_text="An append's chunk.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    accepted = models.JSONField(null=True, blank=True, help_text="The indexes of the hunks accepted.")
    rejected = models.JSONField(null=True, blank=True, help_text="The indexes of the hunks rejected.")
    decided_by = models.TextField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(null=True, blank=True)
    version = models.PositiveIntegerField(null=True, blank=True, help_text="The version its acceptance made.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["thread_id", "status", "id"], name="workspace_proposal_status")]

    def __str__(self) -> str:
        return f"proposal {self.pk} of {self.thread_id} ({self.status})"


class IdempotencyRecord(models.Model):
    """The answer to a tool call made with an ``Idempotency-Key``, stored in the
    call's own transaction, so that a retry is answered from here."""

    owner = models.TextField(help_text="The caller's username, of any length; '' for anonymous calls.")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the thread, tool and arguments.")
    status_code = models.PositiveSmallIntegerField(help_text="0 while the call runs.")
    envelope = models.TextField(help_text="The envelope answered, as JSON; '' while the call runs.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "key"], name="workspace_idempotency_unique_key")]
        indexes = [models.Index(fields=["created_at"], name="workspace_idempotency_created")]


class DraftCounter(models.Model):
    """The event ids of one thread's drafts: each row of text
    (``DraftPiece``) and each end takes the next id under this row's lock,
    so the ids commit in order. ``published_id``: the last id a process
    claimed to publish to Pushpin (each range is published once).

    A thread's counter is deleted once the thread has no draft left
    (``draft_store.delete_ended``), and the row of thread id ``FLOOR`` (no
    thread's: a thread id is never empty) keeps the highest id any deleted
    counter reached. A thread with no counter stands at the floor, and a new
    counter starts there: a thread's ids never go backwards, so a stream (or
    Pushpin) that knows id N never misses a later draft as already seen."""

    FLOOR = ""

    thread_id = models.CharField(max_length=THREAD_ID_MAX_LENGTH, unique=True)
    last_id = models.PositiveBigIntegerField(default=0)
    published_id = models.PositiveBigIntegerField(default=0)

    @classmethod
    def newest_id(cls, thread_id: str, using: str | None = None) -> int:
        """The thread's newest draft event id: its counter's, else the floor (0 before any)."""
        ids: dict[str, int] = dict(
            cls.objects.using(using).filter(thread_id__in=[thread_id, cls.FLOOR]).values_list("thread_id", "last_id")
        )
        return ids.get(thread_id, ids.get(cls.FLOOR, 0))


class Draft(models.Model):
    """A tool call still being generated, whose arguments arrive piece by piece.

    Not a revision: its pieces are deleted when it ends; the row stays a while
    (``outcome`` set) so that late pieces are refused and streams hear of the end.
    ``parser_state`` is the partial-JSON parser's state between pieces
    (``workspace.drafts.partial_json``); never the text itself."""

    class Outcome(models.TextChoices):
        COMMITTED = "committed"
        FAILED = "failed"
        CANCELLED = "cancelled"
        EXPIRED = "expired"
        PROPOSED = "proposed"

    thread_id = models.CharField(max_length=THREAD_ID_MAX_LENGTH)
    call_id = models.CharField(max_length=64)
    tool = models.CharField(max_length=128)
    field = models.CharField(max_length=32, help_text="The tool's text argument shown to viewers.")
    actor = models.TextField(null=True, blank=True)
    base_version = models.PositiveIntegerField(null=True, blank=True, help_text="The document's version at the start.")
    received = models.PositiveBigIntegerField(default=0, help_text="Characters of arguments received.")
    text_length = models.PositiveBigIntegerField(default=0, help_text="Characters of the field's text so far.")
    title = models.CharField(max_length=TITLE_MAX_LENGTH, null=True, blank=True)
    parser_state = models.JSONField(default=dict)
    opened_id = models.PositiveBigIntegerField(help_text="The event id the draft opened at.")
    touched_at = models.DateTimeField(help_text="When its last piece arrived.")
    outcome = models.CharField(max_length=16, choices=Outcome.choices, null=True, blank=True)
    ended_id = models.PositiveBigIntegerField(null=True, blank=True)
    version = models.PositiveIntegerField(null=True, blank=True, help_text="The version a committed call made.")
    proposal = models.PositiveBigIntegerField(null=True, blank=True, help_text="The proposal a proposed call made.")
    # Which of its WORKSPACE_MAX_DRAFTS_PER_USER places the draft takes among its
    # user's open drafts: one open draft a place, whichever thread or process opens it.
    slot = models.PositiveIntegerField(null=True, blank=True, help_text="Its place among its user's open drafts.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["thread_id", "call_id"], name="workspace_draft_unique_call"),
            models.UniqueConstraint(
                fields=["actor", "slot"], condition=models.Q(outcome__isnull=True), name="workspace_draft_user_slot"
            ),
        ]
        indexes = [
            models.Index(fields=["outcome", "touched_at"], name="workspace_draft_due"),
            models.Index(fields=["thread_id", "ended_id"], name="workspace_draft_ended"),
        ]

    def __str__(self) -> str:
        return f"draft {self.call_id} of {self.thread_id}"


class DraftPiece(models.Model):
    """Characters a piece of a draft added to its text, at ``offset``, under
    its own event id: one row per piece, or several for a piece longer than
    ``WORKSPACE_EVENT_MAX_CHARS`` (each row at most that long), so that a
    piece costs the same at the start of a long draft as at its end
    (appending to one text column rewrites it whole), and a read of the
    drafts channel takes a bounded page of rows. Within a draft, offsets rise
    with event ids."""

    # Its index is the first column of the two below.
    draft = models.ForeignKey(Draft, on_delete=models.CASCADE, related_name="pieces", db_index=False)
    event_id = models.PositiveBigIntegerField()
    offset = models.PositiveBigIntegerField()
    text = models.TextField()

    class Meta:
        indexes = [
            models.Index(fields=["draft", "event_id"], name="workspace_draftpiece_after"),  # what follows an id
            models.Index(fields=["draft", "offset"], name="workspace_draftpiece_opening"),  # a draft's first text
        ]
