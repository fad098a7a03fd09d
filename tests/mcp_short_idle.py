"""The demo's ASGI application with MCP sessions that expire after one idle
second (the SDK's default is 30 minutes), to watch an expired session free its place."""

from project.asgi import application

application.manager.session_idle_timeout = 1
