"""A thread's stream carries three django-eventstream channels: its document
changes (event ids are the document's versions, read from the revision log),
its artifacts (stored in django-eventstream's own tables) and its live drafts
(read from the drafts' tables, ``events.drafts``). All are readable only by
whom the access policy allows. A stream sends what its channels read in this
order: a committed draft's end after that version's document event."""

from typing import Any

from django.http import HttpRequest
from django_eventstream.channelmanager import ChannelManagerBase

from ..access import can_access

DOCUMENT_PREFIX = "workspace.thread."
ARTIFACT_PREFIX = "workspace.artifacts."
DRAFT_PREFIX = "workspace.drafts."
PREFIXES = (DOCUMENT_PREFIX, ARTIFACT_PREFIX, DRAFT_PREFIX)  # the order a stream sends them in


def document_channel(thread_id: str) -> str:
    return DOCUMENT_PREFIX + thread_id


def artifact_channel(thread_id: str) -> str:
    return ARTIFACT_PREFIX + thread_id


def draft_channel(thread_id: str) -> str:
    return DRAFT_PREFIX + thread_id


def channels_of(thread_id: str) -> list[str]:
    return [document_channel(thread_id), artifact_channel(thread_id), draft_channel(thread_id)]


def in_sending_order(channels: "set[str] | list[str]") -> list[str]:
    """``channels`` in the order a stream sends what they read (``PREFIXES``)."""
    return sorted(channels, key=lambda channel: next(i for i, p in enumerate(PREFIXES) if channel.startswith(p)))


def thread_of(channel: str) -> str | None:
    for prefix in PREFIXES:
        if channel.startswith(prefix):
            return channel.removeprefix(prefix)
    return None


class ThreadChannelManager(ChannelManagerBase):
    """django-eventstream's channel manager (``EVENTSTREAM_CHANNELMANAGER_CLASS``):
    the channels the view names, readable as the access policy allows."""

    def get_channels_for_request(self, request: HttpRequest, view_kwargs: dict[str, Any]) -> list[str]:
        return in_sending_order(view_kwargs["channels"])  # the order its links name them in

    def can_read_channel(self, user: Any, channel: str) -> bool:
        thread_id = thread_of(channel)
        return user is not None and thread_id is not None and can_access(user, thread_id)

    def is_channel_reliable(self, channel: str) -> bool:
        return True
