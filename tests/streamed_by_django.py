"""The demo's ASGI application without ``workspace.events.handover``: Django
itself sends the event streams, as in a host that does not wrap its application."""

from project.asgi import django_application
from workspace.mcp import asgi

application = asgi(django_application)
