"""Database work that Django's request cycle does not wrap (MCP handlers,
LangChain's async calls), run as Django runs a request: in its thread for
synchronous code, with the connections that are too old or broken closed
before and after, so that none outlives ``CONN_MAX_AGE`` or a failure."""

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

    return sync_to_async(run)
