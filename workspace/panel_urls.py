"""The live panel's pages, for a host to include: a thread's panel, and a sign-in page
for hosts that have none (``LOGIN_URL = "workspace_panel:login"``)."""

from django.contrib.auth.views import LoginView
from django.urls import path, re_path

from .panel import thread_panel

app_name = "workspace_panel"

urlpatterns = [
    re_path(r"^threads/(?P<thread_id>[\s\S]*)/$", thread_panel, name="thread"),
    # A sign-in page for the panel (LOGIN_URL = "workspace_panel:login"), for
    # hosts that have none of their own: a new project has no login template,
    # and the admin's login admits staff only.
    path("login/", LoginView.as_view(template_name="workspace/login.html"), name="login"),
]
