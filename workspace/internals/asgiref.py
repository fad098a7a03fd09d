"""Every reach into asgiref beyond its documented ``sync_to_async``.

Written against asgiref 3.13.0 (the 3.x line keeps the same shape): an
upgrade is this file to read. What it relies on:

- ``SyncToAsync.thread_sensitive_context``: the ``ContextVar`` holding the
  ``ThreadSensitiveContext`` of the current request (Django's ASGI handler
  enters one per request);
- ``SyncToAsync.context_to_thread_executor``: the mapping from such a
  context to the single-thread executor that runs the request's
  thread-sensitive code (a ``ThreadPoolExecutor`` with ``shutdown``).
"""

from asgiref.sync import SyncToAsync

__all__ = ["end_request_thread"]


def end_request_thread() -> None:
    """End the thread asgiref keeps for the current request's synchronous
    code, if there is one; a later synchronous step of the request gets a
    new one."""
    context = SyncToAsync.thread_sensitive_context.get(None)
    executor = SyncToAsync.context_to_thread_executor.pop(context, None) if context is not None else None
    if executor is not None:
        executor.shutdown(wait=False)
