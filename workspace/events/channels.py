"""A thread's stream carries two django-eventstream channels: its document
changes (event ids are the document's versions, read from the revision log)
and its artifacts (stored in django-eventstream's own tables). Both are
readable only by whom the access policy allows."""

from typing import Any

from django.http import HttpRequest
from django_eventstream.channelmanager import ChannelManagerBase

from ..access import can_access

DOCUMENT_PREFIX = "workspace.thread."
ARTIFACT_PREFIX = "workspace.artifacts."


def document_channel(thread_id: str) -> str:
    return DOCUMENT_PREFIX + thread_id


def artifact_channel(thread_id: str) -> str:
    return ARTIFACT_PREFIX + thread_id


def channels_of(thread_id: str) -> list[str]:
    return [document_channel(thread_id), artifact_channel(thread_id)]


def thread_of(channel: str) -> str | None:
    for prefix in (DOCUMENT_PREFIX, ARTIFACT_PREFIX):
        if channel.startswith(prefix):
            return channel.removeprefix(prefix)
    return None


class ThreadChannelManager(ChannelManagerBase):
    """django-eventstream's channel manager (``EVENTSTREAM_CHANNELMANAGER_CLASS``):
    the channels the view names, readable as the access policy allows."""

    def get_channels_for_request(self, request: HttpRequest, view_kwargs: dict[str, Any]) -> set[str]:
        return set(view_kwargs["channels"])

    def can_read_channel(self, user: Any, channel: str) -> bool:
        thread_id = thread_of(channel)
        return user is not None and thread_id is not None and can_access(user, thread_id)

    def is_channel_reliable(self, channel: str) -> bool:
        return True
