"""The demo project's settings, with what tests need on top."""

import os
import tempfile

from project.settings import *  # noqa: F401,F403
from project.settings import DATABASES

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not Django's shared in-memory database: its table locks are not
    # covered by the busy timeout, so concurrent writers would fail at once.
    DATABASES["default"]["TEST"] = {
        "NAME": os.path.join(tempfile.gettempdir(), f"workspace-test-{os.getpid()}.sqlite3")
    }

# Fast hashing for tests; PBKDF2 too, for users who log in to a server process
# (it runs the project's settings, which know no MD5).
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
