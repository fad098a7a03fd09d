"""The ``text/event-stream`` response of one thread: a stream this process
holds (``stream_body``), or, to a request from Pushpin, an answer at once
(behind Pushpin: ``transports.pushpin``, ``link_authentication``)."""

import re
from collections.abc import AsyncGenerator
from typing import Any
from urllib.parse import unquote

from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase

from ..exceptions import InvalidArguments, ServiceUnavailable, TooManyStreams
from ..internals.django_eventstream import (
    EventPermissionError,
    EventRequest,
    add_default_headers,
    make_id,
    sse_encode_error,
)
from . import drafts, handover, reading, slots
from .channels import artifact_channel, channels_of, draft_channel
from .link_authentication import proxied
from .storage import ThreadEventStorage
from .stream_body import stream_body

# Parameters of the links django-eventstream gives Pushpin; from
# anyone else they are refused (django-eventstream would trust "es-meta"'s
# user, and answer "recover" without Pushpin with a 500).
REPLAYED_THROUGH = "replayed"  # in the links given to Pushpin: where the client's replay ended
PROXY_ONLY_PARAMETERS = ("recover", "es-meta", "link", REPLAYED_THROUGH)


def stream_response(request: HttpRequest, thread_id: str) -> HttpResponseBase:
    """The stream of one thread's channels, for an authenticated Django request
    whose access was already checked. Refuses, before streaming, what
    django-eventstream would fail on mid-stream."""
    if proxied(request):
        return _grip_response(request, thread_id)
    proxy_only = [name for name in PROXY_ONLY_PARAMETERS if name in request.GET]
    if proxy_only:
        raise InvalidArguments(f"unsupported query parameter {proxy_only[0]!r}")
    if not isinstance(request, ASGIRequest):
        # Under WSGI the endless stream would hold a sync worker for good.
        raise ServiceUnavailable("event streams are served by the ASGI server or through Pushpin; route /events/ there")
    replayed_through = _fix_where_it_starts(request, thread_id, _check_last_event_id(request, thread_id))
    slot = slots.acquire(request.user)
    if slot is None:
        raise TooManyStreams(slots.limit_reached())
    try:
        event_request = EventRequest(request, view_kwargs={"channels": channels_of(thread_id)})
    except EventRequest.Error as error:
        slots.release(slot)
        raise InvalidArguments(str(error)) from None
    close_old_connections()  # authentication is done; the stream reads through the storage
    held = request.scope.get(handover.SCOPE_KEY)
    if held is None:
        response = StreamingHttpResponse(
            stream_body(event_request, slot, replayed_through), content_type="text/event-stream"
        )
    else:  # the headers through Django, the body after it (handover.HeldStreams)
        held.body = stream_body(event_request, slot, replayed_through)
        response = StreamingHttpResponse(_no_body(), content_type="text/event-stream")
    add_default_headers(response, request=request)
    return response


async def _no_body() -> AsyncGenerator[bytes, None]:
    return
    yield


def _grip_response(request: Any, thread_id: str) -> HttpResponseBase:
    """Pushpin's request: what the client missed, and how to hold its stream."""
    if "link" in request.GET:  # one of the links given to Pushpin: they carry where the replay ended
        replayed_through = _replayed_through(request, thread_id)
    else:  # the client's own request: where its replay ends goes into the links given to Pushpin
        replayed_through = _fix_where_it_starts(request, thread_id, _check_last_event_id(request, thread_id))
        request.GET = request.GET.copy()
        request.GET.setlist(REPLAYED_THROUGH, [make_id(replayed_through)] if replayed_through else [])
    if any(not EVENT_NUMBER.fullmatch(last) for last in request.grip.last.values()):
        raise InvalidArguments("Grip-Last holds an id this stream never gave")
    try:
        event_request = EventRequest(request, view_kwargs={"channels": channels_of(thread_id)})
    except EventRequest.Error as error:
        raise InvalidArguments(str(error)) from None
    try:
        response: HttpResponseBase = reading.read(event_request, replayed_through).to_grip_response(request)
    except EventPermissionError as error:
        error_event = sse_encode_error("forbidden", str(error), extra={"channels": error.channels})
        response = HttpResponse(error_event, content_type="text/event-stream")
    finally:
        close_old_connections()
    add_default_headers(response, request=request)
    return response


EVENT_NUMBER = re.compile(r"[0-9]{1,18}")
EVENT_ID_PART = re.compile(rf"([^,:]+):({EVENT_NUMBER.pattern})")


def _fix_where_it_starts(request: HttpRequest, thread_id: str, given: dict[str, int]) -> dict[str, int]:
    """Where the stream starts, fixed before its response begins and given to
    django-eventstream as the client's Last-Event-ID: the ids the client gave;
    for a channel it gave none, the newest id now, so that every change
    committed once the response began is sent (django-eventstream would take
    the newest id at its first read, a moment later, and count a change made
    in between as past); and the drafts channel where every open draft comes
    whole (``events.drafts.resume_id``), whatever id the client had.
    Returns where the replay of the artifact channel ends, when the client
    gave its id: its newest id now (``reading.read``'s ``replayed_through``)."""
    channels, artifacts = channels_of(thread_id), artifact_channel(thread_id)
    start = given | {draft_channel(thread_id): drafts.resume_id(thread_id)}
    newest = ThreadEventStorage().current_ids(
        [channel for channel in channels if channel not in start or channel == artifacts]
    )
    start = newest | start
    request.META["HTTP_LAST_EVENT_ID"] = make_id({channel: start[channel] for channel in channels})
    return {artifacts: newest[artifacts]} if artifacts in given else {}


def _replayed_through(request: Any, thread_id: str) -> dict[str, int]:
    """Where the replay ended, as a link given to Pushpin carries it (``channel:number,...``)."""
    channels = set(channels_of(thread_id))
    through: dict[str, int] = {}
    for part in filter(None, request.GET.get(REPLAYED_THROUGH, "").split(",")):
        match = EVENT_ID_PART.fullmatch(part)
        if match is None or unquote(match.group(1)) not in channels:
            raise InvalidArguments(f"{REPLAYED_THROUGH!r} holds an id this stream never gave")
        through[unquote(match.group(1))] = int(match.group(2))
    return through


def _check_last_event_id(request: HttpRequest, thread_id: str) -> dict[str, int]:
    """At most one ``Last-Event-ID`` (header or ``lastEventId`` parameter), and
    only as this stream hands them out: ``channel:number[,channel:number]``
    with the thread's own channels, each once, and numbers they may have given."""
    given = request.GET.getlist("lastEventId")
    if "Last-Event-ID" in request.headers:
        given.append(request.headers["Last-Event-ID"])
    if not given:
        return {}
    if len(given) > 1:
        raise InvalidArguments("give the last event id once: the Last-Event-ID header or one lastEventId parameter")
    channels = set(channels_of(thread_id))
    seen: dict[str, int] = {}
    for part in given[0].split(","):
        match = EVENT_ID_PART.fullmatch(part)
        if match is None:
            raise _not_handed_out(given[0])
        channel = unquote(match.group(1))
        if channel not in channels or channel in seen:
            raise _not_handed_out(given[0])
        seen[channel] = int(match.group(2))
    storage = ThreadEventStorage()
    if any(storage.never_handed_out(channel, event_id) for channel, event_id in seen.items()):
        raise _not_handed_out(given[0])
    return seen


def _not_handed_out(last_event_id: str) -> InvalidArguments:
    return InvalidArguments(f"Last-Event-ID {last_event_id[:200]!r} is not one of this stream's event ids")
