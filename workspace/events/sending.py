"""After a change commits, its streams are told to read it.

Nothing is sent inside the writing transaction: a change's event is its
revision, and an artifact's event is stored by the tool's transaction. Once
that commits, the streams of this process are told (``watchers``, ``feed``)
and, with Redis, those of the others (``fanout``); they read from the
storage what they have not sent yet. Behind Pushpin (``grip``) the event is
also published to it, for the streams it holds. A commit that is never
announced (the process died) is found by the next announcement on the
thread, or by a reconnecting client.
"""

from django.db import router, transaction
from django.dispatch import receiver

from ..models import WorkingDocument
from ..signals import DocumentChange, artifact_produced, document_changed
from . import fanout, grip
from .channels import artifact_channel, document_channel
from .storage import ThreadEventStorage, fits
from .watchers import channel_changed


@receiver(document_changed, dispatch_uid="workspace.events.document")
def _announce_document_change(sender, change: DocumentChange, **kwargs) -> None:
    def publish_to_pushpin():
        found = ThreadEventStorage().document_event(change)  # its id is known once committed
        if found is not None:
            grip.publish(*found)

    _announce_after_commit(document_channel(change.thread_id), publish_to_pushpin)


@receiver(artifact_produced, dispatch_uid="workspace.events.artifact")
def _store_artifact_event(sender, thread_id: str, tool: str, artifact, **kwargs) -> None:
    data = {"tool": tool, "artifact": artifact} if fits(artifact) else {"tool": tool, "omitted": True}
    channel = artifact_channel(thread_id)
    event = ThreadEventStorage().append_event(channel, "artifact", data)
    _announce_after_commit(channel, lambda: grip.publish(event, event.id - 1))


def _announce_after_commit(channel: str, publish_to_pushpin) -> None:
    def announce_committed_change():
        channel_changed(channel)
        fanout.publish(channel)
        if grip.enabled():
            publish_to_pushpin()

    # robust: the change has committed; a failure to announce it must not
    # turn the call into an error, or the caller would retry and write twice.
    # (A named function: Django's robust handler logs the callback's __qualname__.)
    transaction.on_commit(announce_committed_change, using=router.db_for_write(WorkingDocument), robust=True)
