"""Django's PostgreSQL backend, checking a kept connection without a round trip.

With ``CONN_HEALTH_CHECKS`` (persistent connections, project/settings.py)
Django sends ``SELECT 1`` before each request reuses a connection: a fifth
round trip for a tool call, and on a busy machine 13% of a WSGI worker's time
(py-spy, bench/throughput.py). A session the server ended while it was idle
(``pg_terminate_backend``, a restart, ``idle_session_timeout``) leaves its
reason or an end of file on the socket, so the socket is read first: only a
socket with something to read gets ``SELECT 1``.
"""

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        if self.connection is None or self.connection.closed:
            return False
        poll = select.poll()
        poll.register(self.connection.fileno(), select.POLLIN)
        if not poll.poll(0):  # an idle session, as the server left it
            return True
        return super().is_usable()
