"""After a change commits, its streams are told to read it.

Nothing is sent inside the writing transaction: a change's event is its
revision, and the events of a thread that are not changes of its text (an
artifact, its review mode, a proposal stored or decided) are stored by the
writing transaction, on the thread's artifact channel. Once
that commits, every configured transport (``transports``) is told: the
fan-out wakes the streams of this process (``watchers``, ``feed``) and,
with Redis, those of the others; they read from the storage what they have
not sent yet. A change of a thread's drafts is announced the same way.
Behind Pushpin the event is also published to it, for the streams it holds.
A commit that is never announced (the process died) is found by the next
announcement on the thread, or by a reconnecting client. A draft's end is
also shown to the transports inside its transaction (``before_commit``):
Pushpin's claims it there, so that no other process publishes it before
the change it commits with (the order of a thread's events: ``order``).

``connect()`` (from ``events.install``, in ``AppConfig.ready``) connects the
receivers; importing this module connects nothing.
"""

from typing import Any

from django.db import router, transaction

from ..conf import conf
from ..models import WorkingDocument
from ..signals import (
    DocumentChange,
    artifact_produced,
    document_changed,
    draft_changed,
    proposal_decided,
    proposal_stored,
    review_changed,
)
from .channels import artifact_channel, document_channel, draft_channel
from .replay import EVENT_REASON_CHARS
from .storage import ThreadEventStorage, fits
from .transports import CommittedChange, transports
from .transports.base import FoundEvent

DOCUMENT_UID = "workspace.events.document"
ARTIFACT_UID = "workspace.events.artifact"
DRAFT_UID = "workspace.events.draft"
REVIEW_UID = "workspace.events.review"
PROPOSAL_UID = "workspace.events.proposal"
DECISION_UID = "workspace.events.proposal-decided"


def connect() -> None:
    """Announce every document change and draft change, and store every artifact's event."""
    document_changed.connect(announce_document_change, dispatch_uid=DOCUMENT_UID)
    artifact_produced.connect(store_artifact_event, dispatch_uid=ARTIFACT_UID)
    draft_changed.connect(announce_draft_change, dispatch_uid=DRAFT_UID)
    review_changed.connect(store_review_event, dispatch_uid=REVIEW_UID)
    proposal_stored.connect(store_proposal_event, dispatch_uid=PROPOSAL_UID)
    proposal_decided.connect(store_decision_event, dispatch_uid=DECISION_UID)


def announce_document_change(sender: Any, change: DocumentChange, **kwargs: Any) -> None:
    def find_event() -> FoundEvent | None:
        return ThreadEventStorage().document_event(change)  # its id is known once committed

    _announce_after_commit(CommittedChange(document_channel(change.thread_id), find_event))


def store_artifact_event(sender: Any, thread_id: str, tool: str, artifact: Any, **kwargs: Any) -> None:
    data = {"tool": tool, "artifact": artifact} if fits(artifact) else {"tool": tool, "omitted": True}
    _store_thread_event(thread_id, "artifact", data)


def store_review_event(sender: Any, thread_id: str, review: bool, actor: str | None, **kwargs: Any) -> None:
    _store_thread_event(thread_id, "review", {"thread_id": thread_id, "review": review, "actor": actor})


def store_proposal_event(sender: Any, thread_id: str, data: dict, **kwargs: Any) -> None:
    """A ``proposal`` event: its reason cut as a document event's, its hunks left out when too long to carry."""
    data = {**data, "action_and_reasoning": data["action_and_reasoning"][:EVENT_REASON_CHARS]}
    if sum(len(hunk["old"]) + len(hunk["new"]) for hunk in data["hunks"]) > conf.EVENT_MAX_CHARS:
        data |= {"hunks": None, "omitted": True}
    _store_thread_event(thread_id, "proposal", data)


def store_decision_event(sender: Any, thread_id: str, data: dict, **kwargs: Any) -> None:
    _store_thread_event(thread_id, "proposal-decided", data)


def _store_thread_event(thread_id: str, event_type: str, data: dict) -> None:
    """Store an event of the thread that is not a change of its text (an
    artifact, a review mode, a proposal, a decision) in the writing
    transaction, on the thread's artifact channel; announced once it commits."""
    channel = artifact_channel(thread_id)
    event = ThreadEventStorage().append_event(channel, event_type, data)
    _announce_after_commit(CommittedChange(channel, lambda: (event, event.id - 1)))


def announce_draft_change(sender: Any, thread_id: str, ended: bool = False, **kwargs: Any) -> None:
    # Its events are read from the drafts' tables (Pushpin's transport claims and publishes them).
    change = CommittedChange(draft_channel(thread_id), lambda: None)
    if ended:  # a draft's end commits with the change it ends on (a tool call's): announced after it
        for transport in transports():
            transport.before_commit(change)
    _announce_after_commit(change)


def _announce_after_commit(change: CommittedChange) -> None:
    def announce_committed_change() -> None:
        for transport in transports():
            transport.announce(change)

    # robust: the change has committed; a failure to announce it must not
    # turn the call into an error, or the caller would retry and write twice.
    # (A named function: Django's robust handler logs the callback's __qualname__.)
    transaction.on_commit(announce_committed_change, using=router.db_for_write(WorkingDocument), robust=True)
