"""The SQL statements one tool call sends through HTTP, on an existing document.

Runs the API in this process (Django's test client, token authentication,
the database of DATABASE_URL) and prints, for one ``update_document`` and
one ``append_to_document``, every statement with its count, and on
PostgreSQL the write-ahead log each writes (the mean of 200 calls, 1 KB
replaced or 100 characters appended).

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/statements.py
"""

import json
import uuid

from live_setup import database_and_token


def statements_of(client, token: str, path: str, body: dict) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = client.post(
            path, json.dumps(body), content_type="application/json", HTTP_AUTHORIZATION=f"Token {token}"
        )
    assert response.status_code == 200, response.status_code
    return [query["sql"] for query in queries.captured_queries]


def main() -> None:
    from django.test import Client

    _, token = database_and_token("bench-statements")
    client = Client(HTTP_HOST="localhost")
    thread_id = f"bench-statements-{uuid.uuid4().hex[:8]}"
    prefix = f"/api/workspace/threads/{thread_id}/tools"
    why = {"action_and_reasoning": "Counting statements."}
    client.post(
        f"{prefix}/update_document/",
        json.dumps({"content": "first", **why}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    for tool, arguments in (("update_document", {"content": "x" * 1000}), ("append_to_document", {"text": "y" * 100})):
        sql = statements_of(client, token, f"{prefix}/{tool}/", {**arguments, **why})
        print(f"{tool}: {len(sql)} statements")
        for statement in sql:
            print(f"  {statement[:150]}")
        if wal_position() is not None:
            calls = 200
            before = wal_position()
            for n in range(calls):
                if tool == "update_document":  # each unlike the one before: the same content changes nothing
                    arguments = {"content": "zx"[n % 2] * 1000}
                client.post(
                    f"{prefix}/{tool}/",
                    json.dumps({**arguments, **why}),
                    content_type="application/json",
                    HTTP_AUTHORIZATION=f"Token {token}",
                )
            print(f"  WAL written: {(wal_position() - before) / calls:.0f} bytes a call (mean of {calls})")


def wal_position() -> int | None:
    """Where PostgreSQL's write-ahead log ends, in bytes; None on other databases."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn")
        return int(cursor.fetchone()[0])


if __name__ == "__main__":
    main()
