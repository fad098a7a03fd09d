"""django-eventstream's channel manager (``EVENTSTREAM_CHANNELMANAGER_CLASS``,
``workspace.events.ThreadChannelManager``): a stream's channels in the
order it sends them, each readable as the access policy allows."""

from typing import Any

from django.http import HttpRequest
from django_eventstream.channelmanager import ChannelManagerBase

from ..access import can_access
from .channels import thread_of
from .order import in_sending_order


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
