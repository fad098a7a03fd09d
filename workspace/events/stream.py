"""The ``text/event-stream`` response of one thread."""

from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections
from django_eventstream.views import events as eventstream_view

from ..exceptions import InvalidArguments, ServiceUnavailable
from .channels import channels_of

# Parameters meant for a GRIP proxy (Pushpin), which this app does not use;
# django-eventstream would answer "recover" and a bad "es-meta" with a 500.
PROXY_ONLY_PARAMETERS = ("recover", "es-meta", "link")


def stream_response(request, thread_id: str):
    """The stream of one thread's channels, for an authenticated Django request
    whose access was already checked. Refuses, before streaming, what
    django-eventstream would fail on mid-stream."""
    proxy_only = [name for name in PROXY_ONLY_PARAMETERS if name in request.GET]
    if proxy_only:
        raise InvalidArguments(f"unsupported query parameter {proxy_only[0]!r}")
    _check_last_event_id(request.headers.get("Last-Event-ID") or request.GET.get("lastEventId"))
    if not isinstance(request, ASGIRequest):
        # Under WSGI the endless stream would hold a sync worker for good.
        raise ServiceUnavailable("event streams are served by the ASGI server; route /events/ there")
    response = eventstream_view(request, channels=channels_of(thread_id))
    close_old_connections()  # authentication is done; the stream reads through the storage
    return response


def _check_last_event_id(last_event_id: str | None) -> None:
    """``channel:number[,channel:number...]``, as this stream hands them out."""
    if not last_event_id:
        return
    for part in last_event_id.split(","):
        channel, separator, number = part.rpartition(":")
        if not (separator and channel and number.isdigit()):
            raise InvalidArguments(f"Last-Event-ID {last_event_id[:200]!r} is not one of this stream's event ids")
