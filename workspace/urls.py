from django.urls import path, re_path

from . import views

app_name = "workspace"

# Thread ids are captured permissively (even empty, or holding a decoded "/")
# and validated by the views, so that a bad id answers 400 rather than 404.
urlpatterns = [
    path("tools/", views.ToolListView.as_view(), name="tools"),
    re_path(
        r"^threads/(?P<thread_id>.*)/tools/(?P<name>[^/]+)/$",
        views.ToolCallView.as_view(),
        name="tool-call",
    ),
    re_path(r"^threads/(?P<thread_id>.*)/document/$", views.DocumentView.as_view(), name="document"),
]
