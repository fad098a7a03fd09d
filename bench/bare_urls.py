from django.urls import path
from rest_framework.authentication import TokenAuthentication
from rest_framework.response import Response
from rest_framework.views import APIView

from project.urls import urlpatterns as project_urlpatterns


class BareView(APIView):
    authentication_classes = [TokenAuthentication]  # DRF's own, not the project's

    def post(self, request):
        return Response({"success": True, "summary": f"read {len(request.data)} arguments", "artifact": None})


urlpatterns = [*project_urlpatterns, path("bench/bare/", BareView.as_view())]
