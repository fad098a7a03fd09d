"""DRF's token authentication with the lookup written once: a drop-in for
``rest_framework.authentication.TokenAuthentication``.

The same header (``Authorization: Token <key>``), tokens, user and errors.
DRF looks the token up with ``Token.objects.select_related("user").get(key=key)``,
which the ORM builds again on every request: 1.3 ms of CPU on the benchmark
machine, about a quarter of a whole tool call (bench/call_profile.py). Here
the SQL is written once per token model and database, and the ORM's raw
query turns the row into the user (custom user models and column types
included): 0.5 ms.
"""

from django.db import connections, router
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

_lookups: dict[tuple[type, str], str] = {}


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key):
        model = self.get_model()
        user_field = model._meta.get_field("user")
        using = router.db_for_read(model)
        users = user_field.related_model._default_manager.db_manager(using)
        user = next(iter(users.raw(_lookup(model, using), [key])), None)
        if user is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        user_id = getattr(user, user_field.target_field.attname)
        token = model.from_db(using, ["key", user_field.attname], [key, user_id])  # its other fields load if read
        token.user = user
        return user, token


def _lookup(model: type, using: str) -> str:
    """``SELECT`` the user of the token whose key is the one parameter."""
    if (model, using) not in _lookups:
        quote = connections[using].ops.quote_name
        user_field = model._meta.get_field("user")
        users, tokens = quote(user_field.related_model._meta.db_table), quote(model._meta.db_table)
        _lookups[model, using] = (
            f"SELECT {users}.* FROM {users} INNER JOIN {tokens} "
            f"ON {tokens}.{quote(user_field.column)} = {users}.{quote(user_field.target_field.column)} "
            f"WHERE {tokens}.{quote(model._meta.get_field('key').column)} = %s"
        )
    return _lookups[model, using]
