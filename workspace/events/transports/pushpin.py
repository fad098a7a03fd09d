"""Publishing to Pushpin (GRIP), when ``GRIP_URL`` names its publish endpoint.

Pushpin holds every client connection. Django answers each stream request
at once, as django-eventstream does behind a GRIP proxy: what the client
missed (read from the storage, as without Pushpin) and instructions to hold
the stream on the thread's channels from the ids it reached (``stream``;
who may ask that: ``link_authentication``). After each commit, this module
publishes the change to Pushpin, which writes it to every held stream whose
last id is the change's previous id; a stream that missed one (a publish
lost, or two processes' publishes crossing) is recovered by Pushpin asking
Django for what follows its last id.

Publishing never holds a write: the request queues the event in the
background publisher (``events.publisher``), which posts it, in order, with
short timeouts, retrying while Pushpin is away; at most ``MAX_PENDING``
events wait (the oldest are dropped: their streams recover them from
storage at the next event). Draft events are published by
``pushpin_drafts``, coalesced.
"""

import json

from django.conf import settings

from ...internals.django_eventstream import grip_item
from ..channels import DRAFT_PREFIX
from ..publisher import BackgroundPublisher, Refused, Send
from .base import CommittedChange, Transport
from .pushpin_drafts import DraftPublishing

TIMEOUT_SECONDS = 2.0
MAX_PENDING = 10_000
MAX_BATCH_BYTES = 256 * 1024  # Pushpin takes at most push_in_http_max_body_size (1 MB) a request


def enabled() -> bool:
    return bool(getattr(settings, "GRIP_URL", None))


def publish_uri() -> str:
    from gripcontrol import parse_grip_uri  # only behind Pushpin

    return str(parse_grip_uri(settings.GRIP_URL)["control_uri"]) + "/publish/"


def _connect_publisher() -> Send:
    import requests  # only behind Pushpin (the WSGI workers need not load it otherwise)

    session = requests.Session()

    def send(items: list[str]) -> None:
        response = session.post(
            publish_uri(),  # the settings at each send, as everywhere (override_settings reaches it)
            data='{"items": [' + ", ".join(items) + "]}",
            headers={"Content-Type": "application/json"},
            timeout=TIMEOUT_SECONDS,
        )
        if 400 <= response.status_code < 500:
            # Refused as it is (too large for push_in_http_max_body_size?): sending it
            # again cannot help. Its streams recover it from storage at their next event.
            raise Refused(f"{response.status_code} {response.text[:200]}")
        response.raise_for_status()

    return send


class PushpinTransport(Transport):
    def __init__(self) -> None:
        self.publisher = BackgroundPublisher(
            "Pushpin", _connect_publisher, max_pending=MAX_PENDING, max_batch_chars=MAX_BATCH_BYTES
        )
        self.drafts = DraftPublishing(self.publisher.publish)

    def before_commit(self, change: CommittedChange) -> None:
        if change.channel.startswith(DRAFT_PREFIX):
            self.drafts.claim_with_the_end(change.channel.removeprefix(DRAFT_PREFIX))

    def announce(self, change: CommittedChange) -> None:
        if change.channel.startswith(DRAFT_PREFIX):
            self.drafts.schedule(change.channel.removeprefix(DRAFT_PREFIX))
            return
        found = change.find_event()
        if found is not None:
            self.publisher.publish(json.dumps(grip_item(*found)))


transport = PushpinTransport()
