"""Who may use the links Django gives Pushpin for a held stream.

Only a request that Pushpin signed (``Grip-Sig``, checked by django-grip's
middleware against the key in ``GRIP_URL``) may use the GRIP-only
parameters (``stream``). Pushpin's own requests for a held stream (to
recover what it missed) carry none of the client's credentials: only the
link, whose signed ``es-meta`` names the stream's user.
"""

from typing import Any

import jwt
from django.contrib.auth import get_user_model
from django.http import HttpRequest
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from ..internals.django_eventstream import link_user_key


def proxied(request: HttpRequest | Request) -> bool:
    """Whether Pushpin forwarded ``request``: it carries a ``Grip-Sig`` signed with the shared key."""
    grip = getattr(request, "grip", None)
    return bool(grip is not None and grip.proxied and grip.signed)


class LinkAuthentication(BaseAuthentication):
    """Authenticates Pushpin's requests by the user the link's ``es-meta`` names."""

    def authenticate(self, request: Request) -> tuple[Any, None] | None:
        if "es-meta" not in request.query_params:
            return None
        try:
            key = link_user_key(request.query_params["es-meta"])
        except (jwt.InvalidTokenError, KeyError):
            raise AuthenticationFailed("the stream's link is invalid or has expired; reconnect") from None
        user = get_user_model()._default_manager.filter(pk=key).first()
        if user is None or not getattr(user, "is_active", True):
            raise AuthenticationFailed("the stream's user is gone")
        return user, None
