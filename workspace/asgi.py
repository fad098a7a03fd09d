"""The one ASGI entry for hosts: ``with_workspace(django_application)``.

In the host's ``asgi.py``, once Django is set up::

    from django.core.asgi import get_asgi_application

    from workspace.asgi import with_workspace

    application = with_workspace(get_asgi_application())

It serves, around the host's application:

- the event streams, held by the app once Django has opened them
  (``workspace.events.handover``), so that a viewer costs no more than its stream;
- with the ``mcp`` extra installed, each thread's MCP server
  (``workspace.mcp.asgi``), which owns the ASGI lifespan. Without it, the
  MCP paths reach Django, which answers that MCP is not served, and the
  streams' wrapper answers the lifespan;
- the check that ends drafts nobody writes to any more (``workspace.drafts.expiry``).

When the server stops (SIGINT, SIGTERM), the streams end at once and the
server with them (``workspace.events.shutdown``).

It replaces the two wrappers of 0.2.0, ``asgi(streams(app))`` from
``workspace.mcp`` and ``workspace.events.handover``, which still work.
"""

import importlib.util
import logging

from .drafts import expiry as draft_expiry
from .events.handover import hold_streams
from .utils.asgi_types import ASGIApplication

logger = logging.getLogger(__name__)


def with_workspace(django_application: ASGIApplication) -> ASGIApplication:
    """``django_application`` (``get_asgi_application()``, with the host's own
    wrappers if any) with the workspace's event streams and, if the ``mcp``
    extra is installed, its MCP servers in front of it."""
    application: ASGIApplication = hold_streams(django_application)
    if mcp_installed():
        from .mcp.asgi import asgi as with_mcp  # the mcp extra: imported only where it is installed

        application = with_mcp(application)
    draft_expiry.start()
    return application


def mcp_installed() -> bool:
    """Whether the ``mcp`` extra (the MCP SDK 2.x, which brings ``mcp_types``) is
    installed. An ``mcp`` of another generation, installed for something else,
    is left alone (logged): the streams are served, MCP is not."""
    if importlib.util.find_spec("mcp") is None:
        return False
    if importlib.util.find_spec("mcp_types") is None:
        logger.warning("the installed mcp package is not the SDK 2.x of the mcp extra: MCP is not served")
        return False
    return True
