"""schemathesis against a live server (gunicorn) on a PostgreSQL database of its own.

Fails on any 5xx and on any answer that does not conform to GET schema/.
A fixed budget (--max-examples, --seed) keeps it to a minute or two.
Usage: DATABASE_URL=postgresql://... python .ci/fuzz.py [--max-examples 50]
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-examples", type=int, default=50)
    arguments = parser.parse_args()
    import psycopg

    server_url = os.environ["DATABASE_URL"]
    database = urlunsplit(urlsplit(server_url)._replace(path="/workspace_fuzz"))
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS workspace_fuzz")
        admin.execute("CREATE DATABASE workspace_fuzz")
    env = {**os.environ, "DATABASE_URL": database, "DJANGO_SETTINGS_MODULE": "project.settings"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=REPOSITORY, env=env, check=True)
    shell = (
        "from rest_framework.authtoken.models import Token; from django.contrib.auth.models import User; "
        "print(Token.objects.get_or_create(user=User.objects.get_or_create(username='fuzz')[0])[0].key)"
    )
    token = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", shell],
        cwd=REPOSITORY,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()[-1]  # the last line: what the command printed

    from tests.support.live import Server

    server = Server(
        database_url=database,
        # No request-line limit: gunicorn's own 414 page (HTML, before Django) is
        # not the app's answer, and schemathesis's long query strings must reach the app.
        command=[*Server.GUNICORN, "--workers", "2", "--limit-request-line", "0"],
        WORKSPACE_RATE_WRITES="off",
        WORKSPACE_RATE_READS="off",
    )
    try:
        result = subprocess.run(
            [
                "schemathesis",
                "run",
                f"{server.url}/api/workspace/schema/",
                "--header",
                f"Authorization: Token {token}",
                "--exclude-path-regex",
                "/events/|/mcp/",  # an endless stream; MCP (JSON-RPC, tested by its own client)
                "--checks",
                "all",
                "--max-examples",
                str(arguments.max_examples),
                "--seed",
                "1",
                "--generation-allow-x00",
                "false",
            ],  # NUL is refused by design (PostgreSQL cannot store it)
            cwd=REPOSITORY,
        )
        if result.returncode:  # the server's tracebacks, which a 500 leaves in its log
            for block in server.output().split("Traceback (most recent call last):")[1:][-3:]:
                print("Traceback (most recent call last):" + block[:4000])
        return result.returncode
    finally:
        server.stop()
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute("DROP DATABASE IF EXISTS workspace_fuzz")


if __name__ == "__main__":
    sys.exit(main())
