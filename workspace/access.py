"""Who may use which thread: one policy, named by ``WORKSPACE_ACCESS_POLICY``,
applied to the tools, the document endpoint and the event stream alike."""

from django.utils.module_loading import import_string

from .conf import conf


def deny_all(user, thread_id: str) -> bool:
    """The default: nobody, until the host names a policy."""
    return False


def allow_authenticated(user, thread_id: str) -> bool:
    """Every signed-in user may use every thread (the demo project's policy)."""
    return bool(user and user.is_authenticated)


def can_access(user, thread_id: str) -> bool:
    """Deny unless the policy answers exactly ``True``."""
    policy = import_string(conf.ACCESS_POLICY)
    return policy(user, thread_id) is True
