"""Every failure of the app's DRF views answered with the failure envelope:
the app's errors with their status, the database's faults as 503 with
Retry-After, any other error logged with its traceback and answered 500."""

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404
from rest_framework import permissions
from rest_framework.exceptions import APIException
from rest_framework.response import Response
from rest_framework.views import APIView

from ..exceptions import DatabaseUnavailable, ToolFailed, WorkspaceError
from ..tools.envelope import failure_envelope

logger = logging.getLogger(__name__)


# For a DRF view: every failure answered with the envelope. (A comment, not
# a docstring: schema generators would show a docstring as each endpoint's description.)
class FailuresAsEnvelope(APIView):
    def handle_exception(self, exc: Exception) -> Response:
        """The app's errors with their status; the database's faults as 503 with
        Retry-After; any other error logged with its traceback and answered 500;
        all of them with the failure envelope."""
        if isinstance(exc, (OperationalError, InterfaceError)):
            logger.exception("the database failed during %s %s", self.request.method, self.request.path)
            exc = DatabaseUnavailable(writing=self.may_write())
        elif not isinstance(exc, (WorkspaceError, APIException, Http404, PermissionDenied)):
            logger.exception("%s %s failed", self.request.method, self.request.path)
            exc = ToolFailed("the server failed to handle this request")
        retry_after = getattr(exc, "retry_after", None)
        extras = exc.envelope_extras() if isinstance(exc, WorkspaceError) else {}
        if isinstance(exc, WorkspaceError):
            exc = as_api_exception(exc)
        response = super().handle_exception(exc)
        if retry_after and not response.has_header("Retry-After"):
            response["Retry-After"] = str(retry_after)
        # One shape for every failure, with what the error adds (a 412's current_version).
        response.data = {**failure_envelope(detail_text(response.data)), **extras}
        return response

    def may_write(self) -> bool:
        """Whether this request may change something (and a retry could apply it twice)."""
        return self.request.method not in permissions.SAFE_METHODS


def as_api_exception(error: WorkspaceError) -> APIException:
    """The app's error as DRF's exception of the same status, code and text."""
    exc = APIException(detail=str(error), code=error.default_code)
    exc.status_code = error.status_code
    return exc


def detail_text(detail: Any) -> str:
    """DRF's error detail (``{"detail": "..."}``, or a list or dict of them) as one line."""
    if isinstance(detail, dict):
        if set(detail) == {"detail"}:
            return detail_text(detail["detail"])
        return "; ".join(f"{key}: {detail_text(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return "; ".join(detail_text(item) for item in detail)
    return str(detail)
