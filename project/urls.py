from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
    # Pages without an icon of their own (the admin's) ask for /favicon.ico: the app's icon.
    path("favicon.ico", RedirectView.as_view(url=static("workspace/favicon.svg"), permanent=False)),
    path("admin/", admin.site.urls),
    path("api/workspace/", include("workspace.urls")),
    path("workspace/", include("workspace.panel_urls")),
]
