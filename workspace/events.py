"""Live events over Server-Sent Events: the only module that imports django-eventstream.

After a change commits, its ``document`` event goes to the thread's channel;
django-eventstream stores it (so a client reconnecting with ``Last-Event-ID``
gets what it missed) and, with Redis, fans it out to every server process.
"""

import asyncio
import json
import logging
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import close_old_connections, connections, router, transaction
from django.utils import timezone
from django.dispatch import receiver
from django_eventstream import eventstream as eventstream_module
from django_eventstream import send_event
from django_eventstream.channelmanager import ChannelManagerBase
from django_eventstream.event import Event
from django_eventstream.models import Event as StoredEvent
from django_eventstream.models import EventCounter
from django_eventstream.storage import EVENT_TIMEOUT, DjangoModelStorage
from django_eventstream.views import RedisListener, get_listener_manager
from django_eventstream.views import events as eventstream_view

from .access import can_access
from .exceptions import InvalidArguments, ServiceUnavailable
from .models import WorkingDocument
from .repository import DocumentChange
from .signals import artifact_produced, document_changed

logger = logging.getLogger(__name__)

CHANNEL_PREFIX = "workspace.thread."
DOCUMENT_RECEIVER = "workspace.events.document"
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


@receiver(document_changed, dispatch_uid=DOCUMENT_RECEIVER)
def _send_document_event(sender, change: DocumentChange, **kwargs) -> None:
    _send_after_commit(change.thread_id, "document", document_event(change))


@receiver(artifact_produced, dispatch_uid="workspace.events.artifact")
def _send_artifact_event(sender, thread_id: str, tool: str, artifact, **kwargs) -> None:
    _send_after_commit(thread_id, "artifact", {"tool": tool, "artifact": artifact})


def _send_after_commit(thread_id: str, event_type: str, data: dict) -> None:
    def send_committed_event():
        send_event(channel_for(thread_id), event_type, data)

    # robust: the change has committed; a failure to announce it (Redis down,
    # an artifact that is not JSON) is logged and must not turn the agent's
    # call into an error, or it would retry and write twice. Viewers find the
    # gap by version and refetch. (A named function: Django's robust handler
    # logs the callback's __qualname__, which a functools.partial lacks.)
    transaction.on_commit(send_committed_event, using=router.db_for_write(WorkingDocument), robust=True)


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
    """django-eventstream's database storage (same tables, same reads), with:

    - its connection given back after each read: an open stream would otherwise
      hold a pooled connection for as long as the browser stays, and a few
      dozen viewers would starve the API;
    - events stored in two statements instead of about seven, and events
      older than the library's EVENT_TIMEOUT (24 h) deleted in one statement
      at most once a minute per process, rather than looked for on every
      write and deleted row by row: the library's way cost a write 10 to
      15 ms here (``bench/append.py``, "tool + event").
    """

    TRIM_INTERVAL = timedelta(minutes=1)
    _next_trim = datetime.min.replace(tzinfo=dt_timezone.utc)  # per process, shared by instances

    def append_event(self, channel, event_type, data):
        connection = connections[router.db_for_write(StoredEvent)]
        counters = connection.ops.quote_name(EventCounter._meta.db_table)
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        with transaction.atomic(using=connection.alias):
            with connection.cursor() as cursor:
                # Takes the channel's counter row lock until commit, so ids
                # are given and become visible in order.
                cursor.execute(
                    f"INSERT INTO {counters} (name, value, updated) VALUES (%s, 1, %s) "
                    f"ON CONFLICT (name) DO UPDATE SET value = {counters}.value + 1, updated = %s "
                    "RETURNING value",
                    [channel, now, now],
                )
                (event_id,) = cursor.fetchone()
            rows = [StoredEvent(channel=channel, type=event_type, data=json.dumps(data, cls=DjangoJSONEncoder), eid=event_id)]
            if event_id == 1:  # the placeholder the library resumes a new channel from
                rows.insert(0, StoredEvent(channel=channel, eid=0))
            StoredEvent.objects.using(connection.alias).bulk_create(rows)
        self.trim_event_log()
        return Event(channel, event_type, data, id=event_id)

    def trim_event_log(self):
        now = timezone.now()
        if now < ThreadEventStorage._next_trim:
            return
        ThreadEventStorage._next_trim = now + self.TRIM_INTERVAL
        StoredEvent.objects.filter(created__lt=now - timedelta(minutes=EVENT_TIMEOUT)).delete()

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


# Parameters meant for a GRIP proxy (Pushpin), which this app does not use;
# django-eventstream would answer "recover" and a bad "es-meta" with a 500.
PROXY_ONLY_PARAMETERS = ("recover", "es-meta", "link")


def stream_response(request, thread_id: str):
    """The ``text/event-stream`` response of one thread's channel, for an
    authenticated Django request whose access was already checked. Refuses,
    before streaming, what django-eventstream would fail on mid-stream."""
    proxy_only = [name for name in PROXY_ONLY_PARAMETERS if name in request.GET]
    if proxy_only:
        raise InvalidArguments(f"unsupported query parameter {proxy_only[0]!r}")
    _check_last_event_id(request.headers.get("Last-Event-ID") or request.GET.get("lastEventId"))
    if not isinstance(request, ASGIRequest):
        # Under WSGI the endless stream would hold a sync worker for good.
        raise ServiceUnavailable("event streams are served by the ASGI server; route /events/ there")
    response = eventstream_view(request, channels=[channel_for(thread_id)])
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


# Redis fan-out. django-eventstream publishes every event of every deployment
# on one fixed pub/sub channel, which Redis shares across database numbers, and
# its subscriber task ends for good at the first lost connection. The two
# classes below mend both; install_redis_fanout() puts them in its place.

LIBRARY_REDIS_CHANNEL = "events_channel"


def redis_channel() -> str:
    """One pub/sub channel per Redis database number, so that deployments that
    share a Redis server on different databases never hear each other."""
    return f"workspace-events:{settings.EVENTSTREAM_REDIS.get('db', 0)}"


class ChannelRenamingPublisher:
    """Stands in for django-eventstream's Redis client: publishes on our channel."""

    def __init__(self, client):
        self.client = client

    def publish(self, channel: str, message: str):
        return self.client.publish(redis_channel() if channel == LIBRARY_REDIS_CHANNEL else channel, message)


class ResilientRedisListener(RedisListener):
    """Resubscribes, with backoff, whenever Redis goes away, then has every open
    stream re-read the storage for what was published meanwhile."""

    async def listen(self):
        delay = 0.5
        while True:
            try:
                self.pubsub = self.redis_client.pubsub()
                await self.pubsub.subscribe(redis_channel())
                # redis-py may reconnect (and resubscribe) by itself, without
                # raising: catch up then too.
                self.pubsub.connection.register_connect_callback(self._caught_up_after_reconnect)
                delay = 0.5
                _streams_catch_up()
                async for message in self.pubsub.listen():
                    if message["type"] == "message":
                        _deliver(json.loads(message["data"]))
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("lost the Redis subscription; retrying in %.1f s", delay, exc_info=True)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10)

    def _caught_up_after_reconnect(self, connection) -> None:
        _streams_catch_up()


def _deliver(message: dict) -> None:
    event = Event(message["channel"], message["event_type"], message["data"], id=message["pub_id"])
    get_listener_manager().add_to_queues(message["channel"], event)


def _streams_catch_up() -> None:
    """Wake every stream of this process as if its queue had overflowed: it then
    reads what it missed from the storage."""
    manager = get_listener_manager()
    with manager.lock:
        listeners = {listener for members in manager.listeners_by_channel.values() for listener in members}
        for listener in listeners:
            listener.overflow = True
    for listener in listeners:
        listener.wake_threadsafe()


def install_redis_fanout() -> None:
    if getattr(settings, "EVENTSTREAM_REDIS", None) is None:
        return
    if not isinstance(eventstream_module.redis_client, (ChannelRenamingPublisher, type(None))):
        eventstream_module.redis_client = ChannelRenamingPublisher(eventstream_module.redis_client)
    manager = get_listener_manager()
    if manager.redis_listener is not None and not isinstance(manager.redis_listener, ResilientRedisListener):
        manager.redis_listener = ResilientRedisListener()
