"""DRF's token authentication with the lookup written once: a drop-in for
``rest_framework.authentication.TokenAuthentication``.

The same tokens, user and errors, in DRF's header (``Authorization: Token
<key>``) or RFC 6750's (``Authorization: Bearer <key>``, which MCP clients
and most HTTP libraries send): the API and MCP read it with ``token_key``.
DRF looks the token up with ``Token.objects.select_related("user").get(key=key)``,
which the ORM builds again on every request. Here the SQL, naming the user
model's columns, is written once per token model and database, and the row
becomes the user as the ORM turns a row into a model (the backend's and the
fields' converters, then ``Model.from_db``: custom user models and column
types included). CPU a lookup on PostgreSQL, side by side on the benchmark
machine (bench/token_lookup.py): DRF's 0.5 ms, the ORM's raw() with this
SQL 0.24 ms (it works out again which column is which field), this 0.17 ms.

A lookup's row is kept for ``REMEMBERED_FOR`` (one second) per process:
an agent's calls come in bursts, and each would otherwise spend a round
trip to the database on the same token. A token deleted, or a user changed
(made inactive, say), is refused at once by the process that changed it
(``forget_tokens``, on the models' signals) and by every other within that
second. Each request still gets a user of its own, built from the row.
"""

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from django.db import connections, router
from django.db.models import Field, ForeignKey, ForeignObjectRel, Model
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.request import Request

if TYPE_CHECKING:  # models, which import only once the app registry is ready (Token: where installed)
    from django.contrib.auth.base_user import AbstractBaseUser
    from rest_framework.authtoken.models import Token


@dataclass(frozen=True)
class UserLookup:
    """``SELECT`` of the user whose token's key is the one parameter, and the
    user model's fields in the order of its columns."""

    sql: str
    users: type[Model]
    fields: list[Field]
    attnames: list[str]


_lookups: dict[tuple[type[Model], str], UserLookup] = {}

REMEMBERED_FOR = 1.0  # seconds a token's row is kept: what a revocation may take to reach every process
MAX_REMEMBERED = 10_000  # rows kept at most; past it, all are forgotten
_remembered: dict[tuple[type[Model], str, str], tuple[float, tuple]] = {}  # (model, database, key): (until, row)


def forget_tokens(*args: object, **kwargs: object) -> None:
    """Forget every row kept (a receiver of the token's and the user's signals)."""
    _remembered.clear()


SCHEMES = ("token", "bearer")  # DRF's keyword, and RFC 6750's
MAX_KEY_CHARS = 128  # DRF's keys have 40; refused longer before any lookup


def token_key(authorization: str, schemes: tuple[str, ...] = SCHEMES) -> str | None:
    """The key an ``Authorization`` header carries under one of ``schemes``
    (``Token <key>`` or ``Bearer <key>``, either case); None for another
    scheme or none; ``AuthenticationFailed`` when the key is missing or malformed."""
    scheme, _space, key = authorization.strip().partition(" ")
    if scheme.lower() not in schemes:
        return None
    key = key.strip()
    if not key:
        raise exceptions.AuthenticationFailed(_("Invalid token header. No credentials provided."))
    if " " in key:
        raise exceptions.AuthenticationFailed(_("Invalid token header. Token string should not contain spaces."))
    if len(key) > MAX_KEY_CHARS or not key.isascii() or not key.isprintable():
        raise exceptions.AuthenticationFailed(_("Invalid token."))
    return key


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's, taking ``Bearer <key>`` too. Under its own keyword (``Token``,
    or a subclass's) a bad key is refused, as DRF's is; a Bearer credential
    that is no token of the app (a JWT, say, of another authentication class
    of the host's) is left to the classes after this one."""

    def authenticate(self, request: Request) -> tuple["AbstractBaseUser", "Token"] | None:
        header = authentication.get_authorization_header(request).decode("latin-1")
        own = self.keyword.lower()
        key = token_key(header, (own,))
        if key is not None:
            return self.authenticate_credentials(key)
        if own == "bearer":
            return None
        try:
            key = token_key(header, ("bearer",))
            return None if key is None else self.authenticate_credentials(key)
        except exceptions.AuthenticationFailed:
            return None

    def authenticate_credentials(self, key: str) -> tuple["AbstractBaseUser", "Token"]:
        model = self.get_model()
        user_field = _user_key(model)
        using = router.db_for_read(model)
        user = _user_of(model, using, key)
        if user is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        user_id = getattr(user, user_field.target_field.attname)
        # Its other fields load if read. (A Token, or the host's token model in its place.)
        token = cast("Token", model.from_db(using, ["key", user_field.attname], [key, user_id]))
        token.user = user
        return user, token


def _user_of(model: type[Model], using: str, key: str) -> "AbstractBaseUser | None":
    """The user of the token ``key`` (of token model ``model``) in database ``using``, or None."""
    lookup = _lookup(model, using)
    connection = connections[using]
    row = _remembered_row(model, using, key)
    if row is None:
        with connection.cursor() as cursor:
            cursor.execute(lookup.sql, [key])
            row = cursor.fetchone()
        if row is None:
            return None
        if len(_remembered) >= MAX_REMEMBERED:
            _remembered.clear()
        _remembered[model, using, key] = (time.monotonic() + REMEMBERED_FOR, row)
    values = list(row)
    table = lookup.users._meta.db_table
    for position, field in enumerate(lookup.fields):
        # What the ORM applies to a column read (SQLite's datetimes, for one);
        # asked of this thread's connection each time, as the ORM does.
        column = field.get_col(table)
        for converter in connection.ops.get_db_converters(column) + column.get_db_converters(connection):
            values[position] = converter(values[position], column, connection)
    return cast("AbstractBaseUser", lookup.users.from_db(using, lookup.attnames, values))  # AUTH_USER_MODEL's


def _remembered_row(model: type[Model], using: str, key: str) -> tuple | None:
    kept = _remembered.get((model, using, key))
    return kept[1] if kept is not None and kept[0] > time.monotonic() else None


def _lookup(model: type[Model], using: str) -> UserLookup:
    if (model, using) not in _lookups:
        quote = connections[using].ops.quote_name

        def column(field: Field | ForeignObjectRel) -> str:
            assert isinstance(field, Field) and field.column is not None, field  # a concrete field has one
            return quote(field.column)

        user_field = _user_key(model)
        user_model = user_field.related_model
        assert user_model is not None and user_model != "self", user_model
        fields = list(user_model._meta.concrete_fields)
        users, tokens = quote(user_model._meta.db_table), quote(model._meta.db_table)
        columns = ", ".join(f"{users}.{column(field)}" for field in fields)
        _lookups[model, using] = UserLookup(
            f"SELECT {columns} FROM {users} INNER JOIN {tokens} "
            f"ON {tokens}.{column(user_field)} = {users}.{column(user_field.target_field)} "
            f"WHERE {tokens}.{column(model._meta.get_field('key'))} = %s",
            user_model,
            fields,
            [field.attname for field in fields],
        )
    return _lookups[model, using]


def _user_key(model: type[Model]) -> ForeignKey:
    """The token model's ``user``: a foreign key to the user model (DRF's is one to one)."""
    field = model._meta.get_field("user")
    assert isinstance(field, ForeignKey), field
    return field
