"""Django's PostgreSQL backend, checking an idle connection without a round trip.

With ``CONN_HEALTH_CHECKS`` (persistent connections, project/settings.py)
Django sends ``SELECT 1`` before each request reuses a connection, and a
pool with checks does the same at each checkout: a fifth round trip for a
tool call, and on a busy machine 13% of a WSGI worker's time (py-spy,
bench/throughput.py). Here only a connection the server said something on
gets one (``idle``); a pooled connection that no longer works goes back to
the pool, which replaces it, and the next is taken.
"""

from django.db.backends.postgresql import base

from .idle import still_works


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        return self.connection is not None and not self.connection.closed and still_works(self.connection)

    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        if self.pool is None:
            return connection
        for _ in range(self.pool.max_size):  # each connection the pool held may have been ended
            if still_works(connection):
                break
            self.pool.putconn(connection)
            connection = super().get_new_connection(conn_params)
        return connection
