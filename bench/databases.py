"""Empty PostgreSQL databases for the benchmarks, beside the one DATABASE_URL names."""

from urllib.parse import urlsplit, urlunsplit


def fresh_database(database_url: str, suffix: str) -> str:
    """The URL of a new, empty database named after ``database_url``'s with
    ``_suffix`` (one left by an earlier run is dropped first): each run, and
    each engineer's, starts from the same state on a database of its own."""
    import psycopg

    name = f"{urlsplit(database_url).path.strip('/') or 'postgres'}_{suffix}"
    with psycopg.connect(database_url, autocommit=True) as admin:
        # One at a time: two benches started at once (drafts.py imports throughput.py) make the same one.
        admin.execute("SELECT pg_advisory_lock(hashtext(%s))", [name])
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
        admin.execute("SELECT pg_advisory_unlock(hashtext(%s))", [name])
    return urlunsplit(urlsplit(database_url)._replace(path=f"/{name}"))
