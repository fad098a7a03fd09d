"""Streams held by Pushpin (GRIP), when ``GRIP_URL`` names its publish endpoint.

Pushpin holds every client connection. Django answers each stream request
at once, as django-eventstream does behind a GRIP proxy: what the client
missed (read from the storage, as without Pushpin) and instructions to hold
the stream on the thread's channels from the ids it reached. After each
commit, this module publishes the change to Pushpin, which writes it to
every held stream whose last id is the change's previous id; a stream that
missed one (a publish lost, or two processes' publishes crossing) is
recovered by Pushpin asking Django for what follows its last id.

Only a request that Pushpin signed (``Grip-Sig``, checked by django-grip's
middleware against the key in ``GRIP_URL``) may use the GRIP-only parameters.

Publishing never holds a write: the request puts the event in a queue, and
a thread of the process posts it, in order, with short timeouts, retrying
while Pushpin is away; at most ``MAX_PENDING`` events wait (the oldest are
dropped: their streams recover them from storage at the next event).
"""

import json
import logging
import os
import threading
import time
from collections import deque

import jwt
from django.conf import settings
from django.contrib.auth import get_user_model
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed

from .library import Event, grip_item, link_user_key

logger = logging.getLogger(__name__)

TIMEOUT_SECONDS = 2.0
MAX_PENDING = 10_000
MAX_BATCH_BYTES = 256 * 1024  # Pushpin takes at most push_in_http_max_body_size (1 MB) a request


def enabled() -> bool:
    return bool(getattr(settings, "GRIP_URL", None))


def proxied(request) -> bool:
    """Whether Pushpin forwarded ``request``: it carries a ``Grip-Sig`` signed with the shared key."""
    grip = getattr(request, "grip", None)
    return bool(grip is not None and grip.proxied and grip.signed)


class LinkAuthentication(BaseAuthentication):
    """Pushpin's own requests for a held stream (to recover what it missed)
    carry none of the client's credentials: only the link Django gave it,
    whose signed ``es-meta`` names the stream's user."""

    def authenticate(self, request):
        if "es-meta" not in request.query_params:
            return None
        try:
            key = link_user_key(request.query_params["es-meta"])
        except (jwt.InvalidTokenError, KeyError):
            raise AuthenticationFailed("the stream's link is invalid or has expired; reconnect") from None
        user = get_user_model()._default_manager.filter(pk=key).first()
        if user is None or not getattr(user, "is_active", True):
            raise AuthenticationFailed("the stream's user is gone")
        return user, None


def publish_uri() -> str:
    from gripcontrol import parse_grip_uri

    return parse_grip_uri(settings.GRIP_URL)["control_uri"] + "/publish/"


class Publisher:
    """A thread per process that posts the queued events to Pushpin."""

    def __init__(self):
        self.changed = threading.Condition()
        self.pending: deque[str] = deque()  # items, as JSON
        self.pid = None

    def publish(self, item: dict) -> None:
        with self.changed:
            if len(self.pending) >= MAX_PENDING:
                self.pending.popleft()
                logger.warning("Pushpin is behind by %d events; dropped the oldest", MAX_PENDING)
            self.pending.append(json.dumps(item))
            if self.pid != os.getpid():  # first use in this process (or in a forked child)
                self.pid = os.getpid()
                threading.Thread(target=self._run, name="workspace-grip-publisher", daemon=True).start()
            self.changed.notify()

    def _next_batch(self) -> list[str]:
        """The oldest pending items, encoded, at most MAX_BATCH_BYTES together (at least one)."""
        with self.changed:
            while not self.pending:
                self.changed.wait()
            batch, size = [], 0
            while self.pending and (not batch or size + len(self.pending[0]) <= MAX_BATCH_BYTES):
                batch.append(self.pending.popleft())
                size += len(batch[-1])
            return batch

    def _run(self) -> None:
        import requests

        session = requests.Session()
        uri = publish_uri()
        delay = 0.0
        while True:
            batch = self._next_batch()
            try:
                response = session.post(
                    uri,
                    data='{"items": [' + ", ".join(batch) + "]}",
                    headers={"Content-Type": "application/json"},
                    timeout=TIMEOUT_SECONDS,
                )
            except requests.RequestException as error:
                response = error
            if isinstance(response, requests.Response) and response.ok:
                delay = 0.0
            elif isinstance(response, requests.Response) and 400 <= response.status_code < 500:
                # Refused as it is (too large for push_in_http_max_body_size?): sending it
                # again cannot help. Its streams recover it from storage at their next event.
                logger.error("Pushpin refused %d events: %s %s", len(batch), response.status_code, response.text[:200])
            else:
                delay = min(max(delay * 2, 0.25), 5.0)
                logger.warning("could not publish to Pushpin (%s); retrying in %.2f s", response, delay)
                with self.changed:
                    self.pending.extendleft(reversed(batch))
                    while len(self.pending) > MAX_PENDING:
                        self.pending.popleft()
                time.sleep(delay)


publisher = Publisher()


def publish(event: Event, previous_id: int | None) -> None:
    """Queue ``event`` (whose stream was at ``previous_id`` before it) for Pushpin."""
    publisher.publish(grip_item(event, previous_id))
