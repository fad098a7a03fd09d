"""The host's own DRF code: its exception handler, and one view of its API
(which the host's REST_FRAMEWORK defaults do govern)."""

from rest_framework.response import Response
from rest_framework.views import APIView, exception_handler


def host_exception_handler(exc, context):
    """Answers in the host's own shape, which is not the app's envelope."""
    response = exception_handler(exc, context)
    if response is not None:
        response.data = {"host_error": True, "detail": response.data}
    return response


class PingView(APIView):
    def get(self, request, *args, **kwargs):
        return Response({"pong": True, "version": request.version})
