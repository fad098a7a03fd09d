"""Per-user rates for tool calls (writes), reads and the pieces of drafts, in DRF's
notation (``WORKSPACE_RATE_WRITES``, ``WORKSPACE_RATE_READS``, ``WORKSPACE_RATE_DRAFTS``), counted in Django's
default cache: shared by every server process when that cache is shared
(Redis), per process otherwise. Over the rate: 429 with ``Retry-After``."""

import logging
from types import SimpleNamespace
from typing import Any, cast

from rest_framework.request import Request
from rest_framework.throttling import UserRateThrottle
from rest_framework.views import APIView

from .conf import conf

logger = logging.getLogger(__name__)


class WorkspaceRateThrottle(UserRateThrottle):
    rate_setting: str  # the name of the rate's setting on workspace.conf

    def get_rate(self) -> str | None:
        return getattr(conf, self.rate_setting)  # read on every request: override_settings just works

    def allow_request(self, request: Request, view: APIView) -> bool:
        try:
            return super().allow_request(request, view)
        except Exception:
            # A cache that is down must not take the API with it: let the call through.
            logger.warning("could not count %s for the rate limit; allowed", self.scope, exc_info=True)
            return True

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
