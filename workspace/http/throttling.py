"""Per-user rates for tool calls (writes), reads and the pieces of drafts, in DRF's
notation (``WORKSPACE_RATE_WRITES``, ``WORKSPACE_RATE_READS``, ``WORKSPACE_RATE_DRAFTS``), counted in Django's
default cache: shared by every server process when that cache is shared
(Redis), per process otherwise. Over the rate: 429 with ``Retry-After``.

Counted as a sliding window of two fixed ones: a counter per user and
window of the rate's length, taken with the cache's atomic ``incr``, and the
previous window's count weighted by how much of it still overlaps the last
``duration`` seconds. DRF's own throttle reads a list of every call's time
and writes it back, so concurrent calls each read the same list and all
pass (8 clients made 665 writes through a rate of 600/min), and it stores
and unpickles one timestamp per call allowed. ``incr`` is atomic in Redis,
Memcached and the local-memory cache; the database and file caches count
with a read and a write, as DRF does.
"""

import logging
from types import SimpleNamespace
from typing import Any, cast

from rest_framework.request import Request
from rest_framework.throttling import UserRateThrottle
from rest_framework.views import APIView

from ..conf import conf

logger = logging.getLogger(__name__)


class WorkspaceRateThrottle(UserRateThrottle):
    rate_setting: str  # the name of the rate's setting on workspace.conf
    retry_after: float | None = None

    def get_rate(self) -> str | None:
        return getattr(conf, self.rate_setting)  # read on every request: override_settings just works

    def allow_request(self, request: Request, view: APIView) -> bool:
        limit, duration = self.parse_rate(self.rate)
        key = self.get_cache_key(request, view)
        if limit is None or duration is None or key is None:
            return True
        try:
            return self._count(key, limit, duration)
        except Exception:
            # A cache that is down must not take the API with it: let the call through.
            logger.warning("could not count %s for the rate limit; allowed", self.scope, exc_info=True)
            return True

    def _count(self, key: str, limit: int, duration: int) -> bool:
        """Count this call in its window; False (uncounted) when it would pass the rate."""
        now = self.timer()
        window, elapsed = divmod(now, duration)
        current = f"{key}:{int(window)}"
        self.cache.add(current, 0, timeout=2 * duration)  # kept while it is the previous window too
        count = self.cache.incr(current)
        previous = self.cache.get(f"{key}:{int(window) - 1}", 0)
        overlap = 1 - elapsed / duration  # of the previous window, within the last `duration` seconds
        if previous * overlap + count <= limit:
            return True
        self.cache.decr(current)
        count -= 1
        # Seconds until one more call fits: the previous window's share shrinks as time goes on.
        room = limit - count - 1
        if room >= 0 and previous:
            self.retry_after = max(duration * (1 - room / previous) - elapsed, 0)
        else:
            self.retry_after = duration - elapsed
        return False

    def wait(self) -> float | None:
        return None if self.retry_after is None else max(self.retry_after, 1)

    def allow_user(self, user: Any) -> bool:
        """The same count for a caller outside DRF (MCP): by its user alone."""
        request = cast(Request, SimpleNamespace(user=user, META={}))
        return self.allow_request(request, cast(APIView, None))


class WriteRateThrottle(WorkspaceRateThrottle):
    scope = "workspace_writes"
    rate_setting = "RATE_WRITES"


class ReadRateThrottle(WorkspaceRateThrottle):
    scope = "workspace_reads"
    rate_setting = "RATE_READS"


class DraftRateThrottle(WorkspaceRateThrottle):
    scope = "workspace_drafts"
    rate_setting = "RATE_DRAFTS"
