"""Helpers that every capability may use and that know nothing of documents.

- ``asgi_types``: the types of ASGI's callables, as django-stubs spells them;
- ``async_bridge``: ``as_async_request``, database work from async code run
  as Django runs a request, its connections closed before and after.
"""
