"""One read of the storage for a stream: what follows its last ids on each of
the thread's channels (django-eventstream's ``get_events``), for a stream this
process holds (``stream_body``) and for each of Pushpin's requests (``stream``).

A read takes the channels in ``order``'s reading order, so that it never
sends a channel's event ahead of one it depends on (a committed draft's end
ahead of its document event), and answers them in the sending order. Where
a channel sent earlier has more events than one read takes, the channels
after it wait for the next read. A page of drafts that goes on
(``drafts.DraftEvents``) counts as more, like a page django-eventstream cut.

The events of proposals (``NOT_REPLAYED``) are news only while they are new:
a client that comes back with an id from before them reads the thread's
open proposals instead (``GET proposals/``). The stream knows where its
replay ends (``replayed_through``, each channel's newest id when the client
came back); a read sends each such event up to there as a ``keep-alive``
with the event's id, so that the client's last id still moves past it.
"""

from ..internals.django_eventstream import Event, EventRequest, EventResponse, get_events
from . import drafts
from .order import in_reading_order, in_sending_order

NOT_REPLAYED = frozenset({"proposal", "proposal-decided"})


def read(event_request: EventRequest, replayed_through: dict[str, int] | None = None) -> EventResponse:
    """What follows ``event_request``'s last ids, its channels in sending order;
    the events of ``NOT_REPLAYED`` up to ``replayed_through`` as keep-alives."""
    sending = in_sending_order(event_request.channels)
    event_request.channels = in_reading_order(sending)
    response = get_events(event_request)
    items = response.channel_items
    for channel, through in (replayed_through or {}).items():
        if channel in items:
            items[channel] = [_not_replayed(event, through) for event in items[channel]]
    for channel, events in items.items():
        if drafts.is_partial(events):  # a page of drafts that goes on: read on from its last event
            response.channel_more.add(channel)
            if events:
                event_request.channel_last_ids[channel] = events[-1].id
    response.channel_items = {channel: items[channel] for channel in sending}
    paged = [position for position, channel in enumerate(sending) if channel in response.channel_more]
    for channel in sending[paged[0] + 1 :] if paged else []:
        response.channel_items[channel] = []
        response.channel_more.discard(channel)
        if channel in response.channel_last_ids:  # where the read began (get_events moved it)
            event_request.channel_last_ids[channel] = response.channel_last_ids[channel]
    return response


def _not_replayed(event: Event, through: int) -> Event:
    if event.type in NOT_REPLAYED and event.id is not None and int(event.id) <= through:
        return Event(event.channel, "keep-alive", "", id=event.id)
    return event
