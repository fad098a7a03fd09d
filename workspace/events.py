"""Live events over Server-Sent Events: the only module that imports django-eventstream.

After a change commits, its ``document`` event goes to the thread's channel;
django-eventstream stores it (so a client reconnecting with ``Last-Event-ID``
gets what it missed) and, with Redis, fans it out to every server process.
"""

import functools
import logging

from django.db import close_old_connections, router, transaction
from django.dispatch import receiver
from django_eventstream import send_event
from django_eventstream.channelmanager import ChannelManagerBase
from django_eventstream.storage import DjangoModelStorage
from django_eventstream.views import events as eventstream_view

from .access import can_access
from .models import WorkingDocument
from .repository import DocumentChange
from .signals import artifact_produced, document_changed

logger = logging.getLogger(__name__)

CHANNEL_PREFIX = "workspace.thread."
CHANNEL_MANAGER = "workspace.events.ThreadChannelManager"
STORAGE = "workspace.events.ThreadEventStorage"


def channel_for(thread_id: str) -> str:
    return CHANNEL_PREFIX + thread_id


def thread_of(channel: str) -> str | None:
    return channel.removeprefix(CHANNEL_PREFIX) if channel.startswith(CHANNEL_PREFIX) else None


def document_event(change: DocumentChange) -> dict:
    data = {
        "thread_id": change.thread_id,
        "version": change.version,
        "op": change.op,
        "title": change.title,
        "length": change.length,
    }
    data["text" if change.op == "append" else "content"] = change.text
    return data


@receiver(document_changed, dispatch_uid="workspace.events.document")
def _send_document_event(sender, change: DocumentChange, **kwargs) -> None:
    _send_after_commit(change.thread_id, "document", document_event(change))


@receiver(artifact_produced, dispatch_uid="workspace.events.artifact")
def _send_artifact_event(sender, thread_id: str, tool: str, artifact, **kwargs) -> None:
    _send_after_commit(thread_id, "artifact", {"tool": tool, "artifact": artifact})


def _send_after_commit(thread_id: str, event_type: str, data: dict) -> None:
    # robust: the change has committed; a failure to announce it must not turn
    # the agent's call into an error (it would retry and write twice). Viewers
    # find the gap by version and refetch.
    transaction.on_commit(
        functools.partial(send_event, channel_for(thread_id), event_type, data),
        using=router.db_for_write(WorkingDocument),
        robust=True,
    )


class ThreadChannelManager(ChannelManagerBase):
    """One channel per thread, readable only by whom the access policy allows."""

    def get_channels_for_request(self, request, view_kwargs):
        return set(view_kwargs["channels"])

    def can_read_channel(self, user, channel: str) -> bool:
        thread_id = thread_of(channel)
        return user is not None and thread_id is not None and can_access(user, thread_id)

    def is_channel_reliable(self, channel: str) -> bool:
        return True


class ThreadEventStorage(DjangoModelStorage):
    """django-eventstream's database storage, giving its connection back after
    each read: an open stream would otherwise hold a pooled connection for as
    long as the browser stays, and a few dozen viewers would starve the API."""

    def get_events(self, channel, last_id, limit=100):
        try:
            return super().get_events(channel, last_id, limit=limit)
        finally:
            close_old_connections()

    def get_current_id(self, channel):
        try:
            return super().get_current_id(channel)
        finally:
            close_old_connections()


def stream_response(request, thread_id: str):
    """The ``text/event-stream`` response of one thread's channel, for an
    authenticated Django request whose access was already checked."""
    response = eventstream_view(request, channels=[channel_for(thread_id)])
    close_old_connections()  # authentication is done; the stream reads through the storage
    return response
