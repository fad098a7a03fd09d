"""The HTTP API: thin DRF views over the tool registry and the repository."""

import logging

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework import permissions, serializers
from rest_framework.exceptions import APIException
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from . import events
from .access import can_access
from .exceptions import DocumentTooLarge, InvalidArguments, ToolFailed, WorkspaceError
from .repository import WorkspaceRepository
from .tools.registry import failure_envelope, get_tool, registered_tools
from .validation import validate_thread_id

logger = logging.getLogger(__name__)


class JSONOnly(BaseContentNegotiation):
    """Bodies are read as JSON and answers are JSON, whatever the client's
    Content-Type (or its absence) and Accept headers say."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class CanAccessThread(permissions.BasePermission):
    """A valid thread id (else 400), then the access policy (else 403)."""

    message = "You may not use this thread."

    def has_permission(self, request, view) -> bool:
        thread_id = validate_thread_id(view.kwargs["thread_id"])
        return can_access(request.user, thread_id)


class WorkspaceView(APIView):
    parser_classes = [JSONParser]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONOnly

    def handle_exception(self, exc):
        if isinstance(exc, WorkspaceError):
            exc = _as_api_exception(exc)
        return super().handle_exception(exc)


class ToolListView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated]

    def get(self, request):
        return Response([tool.spec.describe() for tool in registered_tools().values()])


class ToolCallView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]

    def post(self, request, thread_id: str, name: str):
        tool = get_tool(name)
        try:
            arguments = request.data
        except RecursionError:
            raise InvalidArguments("the request body is nested too deeply") from None
        except RequestDataTooBig:
            raise DocumentTooLarge(
                "the request body is larger than this server accepts "
                f"(DATA_UPLOAD_MAX_MEMORY_SIZE = {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes)"
            ) from None
        if not isinstance(arguments, dict):
            raise InvalidArguments("the request body must be a JSON object of the tool's arguments")
        result = tool.invoke(thread_id, arguments)
        return Response(result.envelope, status=result.status_code)

    def handle_exception(self, exc):
        """Whatever goes wrong, this endpoint answers with the failure envelope."""
        try:
            response = super().handle_exception(exc)
        except Exception:
            logger.exception("tool call failed outside the tool")
            response = super().handle_exception(_as_api_exception(ToolFailed("the server failed to handle this call")))
        response.data = failure_envelope(_detail_text(response.data))
        return response


class DocumentView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]

    class OutputSerializer(serializers.Serializer):
        thread_id = serializers.CharField()
        title = serializers.CharField()
        content = serializers.CharField()
        length = serializers.IntegerField()
        version = serializers.IntegerField()
        created_at = serializers.DateTimeField()
        updated_at = serializers.DateTimeField()

    def get(self, request, thread_id: str):
        document = WorkspaceRepository.get_document(thread_id)
        return Response(self.OutputSerializer(document).data)


class EventStreamView(WorkspaceView):
    """``text/event-stream`` of the thread's changes; the same authentication
    (a token for programs, the session cookie for the panel) and policy."""

    permission_classes = [permissions.IsAuthenticated, CanAccessThread]

    def get(self, request, thread_id: str):
        return events.stream_response(request._request, thread_id)


def _as_api_exception(error: WorkspaceError) -> APIException:
    exc = APIException(detail=str(error), code=error.default_code)
    exc.status_code = error.status_code
    return exc


def _detail_text(detail) -> str:
    """DRF's error detail (``{"detail": "..."}``, or a list or dict of them) as one line."""
    if isinstance(detail, dict):
        if set(detail) == {"detail"}:
            return _detail_text(detail["detail"])
        return "; ".join(f"{key}: {_detail_text(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return "; ".join(_detail_text(item) for item in detail)
    return str(detail)
