"""The app's configuration: in ``ready()``, its system checks registered and
the event receivers connected, explicitly (as ``django.contrib.auth`` does)."""

from django.apps import AppConfig
from django.core import checks


class WorkspaceConfig(AppConfig):
    name = "workspace"
    verbose_name = "Workspace"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import events
        from .checks import check_settings

        checks.register(check_settings, checks.Tags.compatibility)
        events.install()
