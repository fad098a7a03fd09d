"""Deprecated: ``workspace.events.grip`` was split in two. Publishing to Pushpin
is ``workspace.events.transports.pushpin``; who may use Pushpin's links is
``workspace.events.link_authentication``. The old names still work here, with
a ``DeprecationWarning``."""

from ..deprecation import moved_names

__getattr__ = moved_names(
    __name__,
    {
        **{name: f"workspace.events.link_authentication.{name}" for name in ("proxied", "LinkAuthentication")},
        **{
            name: f"workspace.events.transports.pushpin.{name}"
            for name in ("enabled", "publish_uri", "TIMEOUT_SECONDS", "MAX_PENDING", "MAX_BATCH_BYTES")
        },
    },
)
