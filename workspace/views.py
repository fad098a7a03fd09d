"""The HTTP API: thin DRF views over the tool registry and the repository."""

import logging

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework import permissions, serializers
from rest_framework.exceptions import APIException
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from .access import can_access
from .exceptions import DocumentTooLarge, InvalidArguments, ToolFailed, WorkspaceError
from .repository import WorkspaceRepository
from .tools.registry import get_tool, registered_tools
from .validation import validate_thread_id

logger = logging.getLogger(__name__)


class CanAccessThread(permissions.BasePermission):
    """A valid thread id (else 400), then the access policy (else 403)."""

    message = "You may not use this thread."

    def has_permission(self, request, view) -> bool:
        thread_id = validate_thread_id(view.kwargs["thread_id"])
        return can_access(request.user, thread_id)


class ThreadView(APIView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]

    def handle_exception(self, exc):
        if isinstance(exc, WorkspaceError):
            exc = _as_api_exception(exc)
        return super().handle_exception(exc)


class ToolListView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    def get(self, request):
        return Response([tool.spec.describe() for tool in registered_tools().values()])


class AlwaysJSONBody(DefaultContentNegotiation):
    """Tool bodies are JSON whatever Content-Type the client sent (or forgot)."""

    def select_parser(self, request, parsers):
        return parsers[0]


class ToolCallView(ThreadView):
    parser_classes = [JSONParser]
    content_negotiation_class = AlwaysJSONBody

    def post(self, request, thread_id: str, name: str):
        tool = get_tool(name)
        if not isinstance(request.data, dict):
            raise InvalidArguments("the request body must be a JSON object of the tool's arguments")
        result = tool.invoke(thread_id, request.data)
        return Response(result.envelope, status=result.status_code)

    def handle_exception(self, exc):
        """Whatever goes wrong, this endpoint answers with the failure envelope."""
        if isinstance(exc, RequestDataTooBig):
            exc = DocumentTooLarge(
                "the request body is larger than this server accepts "
                f"(DATA_UPLOAD_MAX_MEMORY_SIZE = {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes)"
            )
        if isinstance(exc, WorkspaceError):
            exc = _as_api_exception(exc)
        if not isinstance(exc, APIException):
            logger.exception("tool call failed outside the tool", exc_info=exc)
            exc = _as_api_exception(ToolFailed("the server failed to handle this call"))
        response = super().handle_exception(exc)
        response.data = {"success": False, "error": _detail_text(exc.detail)}
        return response


class DocumentView(ThreadView):
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


def _as_api_exception(error: WorkspaceError) -> APIException:
    exc = APIException(detail=str(error), code=error.default_code)
    exc.status_code = error.status_code
    return exc


def _detail_text(detail) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{key}: {_detail_text(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return "; ".join(_detail_text(item) for item in detail)
    return str(detail)
