"""Database work that Django's request cycle does not wrap (MCP handlers,
LangChain's async calls), run as Django runs a request: in a thread of its
own, with the connections that are too old or broken closed before and
after, so that none outlives ``CONN_MAX_AGE`` or a failure.

Not ``thread_sensitive``: outside a request's ``ThreadSensitiveContext`` that
would run every call of the process on one shared thread, one at a time."""

import functools

from asgiref.sync import sync_to_async
from django.db import close_old_connections


def as_request(function):
    """``function`` as a coroutine function that runs it like a request."""

    @functools.wraps(function)
    def run(*args, **kwargs):
        close_old_connections()
        try:
            return function(*args, **kwargs)
        finally:
            close_old_connections()

    return sync_to_async(run, thread_sensitive=False)
