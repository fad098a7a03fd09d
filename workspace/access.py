"""Who may use which thread: one policy, named by ``WORKSPACE_ACCESS_POLICY``,
applied to the tools, the document endpoint, the event stream and the admin alike.

A policy is ``policy(user, thread_id, action) -> bool``, ``action`` being
``"read"`` or ``"write"``; a policy that takes two arguments,
``policy(user, thread_id)``, answers both.
"""

import functools
import inspect
from collections.abc import Callable
from typing import Any

from django.utils.module_loading import import_string

from .conf import conf

ACTIONS = ("read", "write")


def deny_all(user: Any, thread_id: str, action: str = "read") -> bool:
    """The default: nobody, until the host names a policy."""
    return False


def allow_authenticated(user: Any, thread_id: str, action: str = "read") -> bool:
    """Every signed-in user may use every thread (the demo project's policy)."""
    return bool(user and user.is_authenticated)


def can_access(user: Any, thread_id: str, action: str = "read") -> bool:
    """Deny unless the policy answers exactly ``True``."""
    return access_checker(user, action)(thread_id)


def access_checker(user: Any, action: str = "read") -> Callable[[str], bool]:
    """``can_access`` for one user and action, the policy looked up once: for
    asking about many threads (the admin's list of documents)."""
    if action not in ACTIONS:
        raise ValueError(f"action must be one of {ACTIONS}, not {action!r}")
    policy = import_string(conf.ACCESS_POLICY)
    try:
        takes_action = _takes_action(policy)
    except TypeError:  # an unhashable callable: not cached
        takes_action = _takes_action.__wrapped__(policy)
    if takes_action:
        return lambda thread_id: policy(user, thread_id, action) is True
    return lambda thread_id: policy(user, thread_id) is True


@functools.lru_cache(maxsize=64)  # read once per policy: a signature costs about 40 us, every request
def _takes_action(policy: Callable[..., object]) -> bool:
    """Whether ``policy`` accepts a third positional argument."""
    try:
        inspect.signature(policy).bind(None, "", "read")
    except TypeError:
        return False
    except ValueError:  # no signature to read (some builtins): call it as documented first
        return True
    return True
