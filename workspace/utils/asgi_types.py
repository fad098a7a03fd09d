"""The types of ASGI's callables, as django-stubs spells them for Django's own
handler, so that the app's ASGI applications and Django's fit one another."""

from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any, TypeAlias

Scope: TypeAlias = dict[str, Any]
Receive: TypeAlias = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send: TypeAlias = Callable[[Mapping[str, Any]], Awaitable[None]]
ASGIApplication: TypeAlias = Callable[[Scope, Receive, Send], Awaitable[None]]
