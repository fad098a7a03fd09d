"""Drafts nobody writes to any more end as ``expired`` (``WORKSPACE_DRAFT_TIMEOUT``),
and ended drafts are deleted after a while.

One daemon thread per server process checks every few seconds
(``draft_store.end_expired``: each draft is ended once, under its row lock,
whichever process gets there first; then ``draft_store.delete_ended``: the
drafts ended an hour ago, and the counters of threads with no draft left). The ASGI entry (``workspace.asgi``)
starts it in the process that builds the application, and the drafts
endpoint in a process (a WSGI worker, say) at its first piece.
It holds no database connection between checks.
"""

import logging
import os
import threading
import time

from django.db import connections

from ..conf import conf
from . import store as draft_store

logger = logging.getLogger(__name__)

_started_in: int | None = None
_lock = threading.Lock()


def start() -> None:
    """Start this process's thread, once (again in a forked child)."""
    global _started_in
    if _started_in == os.getpid():
        return
    with _lock:
        if _started_in == os.getpid():
            return
        _started_in = os.getpid()
        threading.Thread(target=_run, name="workspace-draft-expiry", daemon=True).start()


def check_interval() -> float:
    """Seconds between two checks: a draft ends at most this late."""
    return min(5.0, max(0.5, conf.DRAFT_TIMEOUT / 10))


def _run() -> None:
    while True:
        time.sleep(check_interval())
        try:
            draft_store.end_expired()
            draft_store.delete_ended()
        except Exception:
            logger.warning("could not end the expired drafts or delete the ended ones; trying again", exc_info=True)
        finally:
            connections.close_all()  # this thread's own connections
