"""DRF's token authentication with the lookup written once: a drop-in for
``rest_framework.authentication.TokenAuthentication``.

The same header (``Authorization: Token <key>``), tokens, user and errors.
DRF looks the token up with ``Token.objects.select_related("user").get(key=key)``,
which the ORM builds again on every request. Here the SQL, naming the user
model's columns, is written once per token model and database, and the row
becomes the user as the ORM turns a row into a model (the backend's and the
fields' converters, then ``Model.from_db``: custom user models and column
types included). CPU a lookup on PostgreSQL, side by side on the benchmark
machine (bench/token_lookup.py): DRF's 0.5 ms, the ORM's raw() with this
SQL 0.24 ms (it works out again which column is which field), this 0.17 ms.
"""

from dataclasses import dataclass

from django.db import connections, router
from django.db.models import Field
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions


@dataclass(frozen=True)
class UserLookup:
    """``SELECT`` of the user whose token's key is the one parameter, and the
    user model's fields in the order of its columns."""

    sql: str
    users: type
    fields: list[Field]
    attnames: list[str]


_lookups: dict[tuple[type, str], UserLookup] = {}


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key):
        model = self.get_model()
        user_field = model._meta.get_field("user")
        using = router.db_for_read(model)
        user = _user_of(model, using, key)
        if user is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        user_id = getattr(user, user_field.target_field.attname)
        token = model.from_db(using, ["key", user_field.attname], [key, user_id])  # its other fields load if read
        token.user = user
        return user, token


def _user_of(model: type, using: str, key: str):
    """The user of the token ``key`` (of token model ``model``) in database ``using``, or None."""
    lookup = _lookup(model, using)
    connection = connections[using]
    with connection.cursor() as cursor:
        cursor.execute(lookup.sql, [key])
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    table = lookup.users._meta.db_table
    for position, field in enumerate(lookup.fields):
        # What the ORM applies to a column read (SQLite's datetimes, for one);
        # asked of this thread's connection each time, as the ORM does.
        column = field.get_col(table)
        for converter in connection.ops.get_db_converters(column) + column.get_db_converters(connection):
            values[position] = converter(values[position], column, connection)
    return lookup.users.from_db(using, lookup.attnames, values)


def _lookup(model: type, using: str) -> UserLookup:
    if (model, using) not in _lookups:
        quote = connections[using].ops.quote_name
        user_field = model._meta.get_field("user")
        user_model = user_field.related_model
        fields = list(user_model._meta.concrete_fields)
        users, tokens = quote(user_model._meta.db_table), quote(model._meta.db_table)
        columns = ", ".join(f"{users}.{quote(field.column)}" for field in fields)
        _lookups[model, using] = UserLookup(
            f"SELECT {columns} FROM {users} INNER JOIN {tokens} "
            f"ON {tokens}.{quote(user_field.column)} = {users}.{quote(user_field.target_field.column)} "
            f"WHERE {tokens}.{quote(model._meta.get_field('key').column)} = %s",
            user_model,
            fields,
            [field.attname for field in fields],
        )
    return _lookups[model, using]
