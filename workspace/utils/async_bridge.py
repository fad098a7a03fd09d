"""The bridge from async code to database work that Django's request cycle
does not wrap (MCP handlers, LangChain's async calls): ``as_async_request``
runs a function as Django runs a request, in a thread of its own, with the
connections that are too old or broken closed before and after, so that
none outlives ``CONN_MAX_AGE`` or a failure.

Not ``thread_sensitive``: outside a request's ``ThreadSensitiveContext`` that
would run every call of the process on one shared thread, one at a time."""

import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from asgiref.sync import sync_to_async
from django.db import close_old_connections

P = ParamSpec("P")
R = TypeVar("R")


def as_async_request(function: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    """``function`` as a coroutine function that runs it like a request."""

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        close_old_connections()
        try:
            return function(*args, **kwargs)
        finally:
            close_old_connections()

    return sync_to_async(run, thread_sensitive=False)
