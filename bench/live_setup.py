"""What the benchmarks that start server processes share: Django set up in
this process, the database migrated, an agent token, and percentiles."""

import contextlib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

import django  # noqa: E402
from databases import fresh_database  # noqa: E402

django.setup()


def database_and_token(username: str) -> tuple[str, str]:
    """DATABASE_URL, migrated, and the token of user ``username``."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    database_url = os.environ.get("DATABASE_URL")
    if not database_url:
        sys.exit("Set DATABASE_URL (the server processes must share the database).")
    call_command("migrate", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username=username)
    return database_url, Token.objects.get_or_create(user=user)[0].key


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


@contextlib.contextmanager
def baseline_server(revision: str, database_url: str, command: list[str], **environment: str):
    """A server (``command``, as for ``tests.support.live.Server``) on a checkout of
    ``revision`` and a database of its own; yields it and its agent's token."""
    with baseline_checkout(revision, database_url) as checkout:
        server = checkout.server(command, **environment)
        try:
            yield server, checkout.token
        finally:
            server.stop()


class BaselineCheckout:
    """A checkout of an earlier revision, migrated on a database of its own, with an agent's token."""

    def __init__(self, workdir: Path, database_url: str, token: str):
        self.workdir, self.database_url, self.token = workdir, database_url, token

    def server(self, command: list[str], **environment: str):
        """A server (``command``, as for ``tests.support.live.Server``) on this checkout; the caller stops it."""
        from tests.support.live import Server

        defaults = {
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "bench",
            "WORKSPACE_RATE_WRITES": "off",  # as for this tree (older revisions have no rates)
            "WORKSPACE_RATE_READS": "off",
        }
        return Server(database_url=self.database_url, command=command, cwd=self.workdir, **{**defaults, **environment})


@contextlib.contextmanager
def baseline_checkout(revision: str, database_url: str):
    """A ``BaselineCheckout`` of ``revision``, removed afterwards."""
    from tests.support.live import REPOSITORY

    with tempfile.TemporaryDirectory() as directory:
        workdir = Path(directory) / "baseline"
        subprocess.run(
            ["git", "-C", str(REPOSITORY), "worktree", "add", "--detach", str(workdir), revision],
            check=True,
            capture_output=True,
        )
        try:
            baseline_url = fresh_database(database_url, "baseline")
            env = {**os.environ, "DATABASE_URL": baseline_url, "DJANGO_SETTINGS_MODULE": "project.settings"}
            subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=workdir, env=env, check=True)
            output = subprocess.run(
                [sys.executable, "manage.py", "demo_user", "--username", "bench"],
                cwd=workdir,
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            token = re.search(r"Agent token: (\w+)", output).group(1)
            yield BaselineCheckout(workdir, baseline_url, token)
        finally:
            subprocess.run(
                ["git", "-C", str(REPOSITORY), "worktree", "remove", "--force", str(workdir)], capture_output=True
            )
