"""Every reach into a library's private API, one module per library:
``django``, ``django_eventstream``, ``asgiref`` and ``mcp``.

Each module names the library version it was written against and what it
relies on; ``tests/app/test_internals.py`` fails loudly when an installed
version changes any of it. Nothing outside this package touches a library's
private names. Not public: these modules may change in any release.
"""
