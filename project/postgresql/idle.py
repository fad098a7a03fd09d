"""Whether an idle PostgreSQL connection still works, at no round trip when it does.

A session the server ended while it was idle (``pg_terminate_backend``, a
restart, ``idle_session_timeout``) leaves its reason or an end of file on the
socket; a session still open leaves nothing there. So the socket is read
first, and only a socket with something to read gets a query.
"""

import select

import psycopg
from psycopg_pool import ConnectionPool


def server_said_something(connection) -> bool:
    """Whether the server sent anything on the idle ``connection`` (a psycopg connection)."""
    poll = select.poll()
    poll.register(connection.fileno(), select.POLLIN)
    return bool(poll.poll(0))


def still_works(connection) -> bool:
    """Whether the idle ``connection`` can be used: a query only if the server said something."""
    if not server_said_something(connection):
        return True
    try:
        ConnectionPool.check_connection(connection)
    except psycopg.Error:
        return False
    return True
