from django.urls import path, re_path

from . import views

app_name = "workspace"

# Thread ids and tool names are captured permissively (empty, or holding a
# decoded "/" or newline) and validated by the views, so that a bad id answers
# 400 and a bad name 404, never Django's HTML 404. The trailing slash is
# optional so that a POST without it is not lost to a redirect.
THREAD = r"^threads/(?P<thread_id>[\s\S]*?)"

urlpatterns = [
    path("tools/", views.ToolListView.as_view(), name="tools"),
    re_path(THREAD + r"/tools/(?P<name>[\s\S]*?)/?$", views.ToolCallView.as_view(), name="tool-call"),
    re_path(THREAD + r"/document/?$", views.DocumentView.as_view(), name="document"),
    re_path(THREAD + r"/events/?$", views.EventStreamView.as_view(), name="events"),
]
