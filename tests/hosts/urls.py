from django.urls import include, path

from .drf import PingView

urlpatterns = [
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/v1/", include(([path("ping/", PingView.as_view(), name="ping")], "v1"))),
    path("api/workspace/", include("workspace.urls")),
    path("workspace/", include("workspace.panel_urls")),
]
