"""The app's configuration: in ``ready()``, its system checks registered and
the event receivers connected, explicitly (as ``django.contrib.auth`` does)."""

from django.apps import AppConfig, apps
from django.conf import settings
from django.core import checks
from django.db.models.signals import post_delete, post_save


class WorkspaceConfig(AppConfig):
    name = "workspace"
    verbose_name = "Workspace"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import events
        from .authentication import forget_tokens
        from .checks import check_settings

        checks.register(check_settings, checks.Tags.compatibility)
        events.install()
        # A token deleted or a user changed is refused at once here (and within a second elsewhere).
        senders = [settings.AUTH_USER_MODEL]
        if apps.is_installed("rest_framework.authtoken"):
            senders.append("authtoken.Token")
        for signal in (post_save, post_delete):
            for sender in senders:
                signal.connect(forget_tokens, sender=sender, dispatch_uid=f"workspace.forget_tokens.{sender}")
