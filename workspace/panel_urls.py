from django.urls import re_path

from .panel import thread_panel

app_name = "workspace_panel"

urlpatterns = [
    re_path(r"^threads/(?P<thread_id>[\s\S]*)/$", thread_panel, name="thread"),
]
