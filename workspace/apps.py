from django.apps import AppConfig


class WorkspaceConfig(AppConfig):
    name = "workspace"
    verbose_name = "Workspace"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import checks, events  # noqa: F401  (registers the system checks)

        events.install()
