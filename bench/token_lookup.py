"""CPU time of one token lookup (``Authorization: Token``), side by side.

Every API request pays one: DRF's ``TokenAuthentication``, the same SQL
through the ORM's ``raw()`` then the token made from the row (what
workspace/authentication.py did before), and workspace/authentication.py's,
on the database of DATABASE_URL with a kept connection, in interleaved
rounds; prints each one's median.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/token_lookup.py [--rounds 5]
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("DATABASE_CONNECTIONS", "persistent")  # as a WSGI worker's

from live_setup import database_and_token  # noqa: E402

LOOKUPS = 2000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    _, key = database_and_token("bench-token-lookup")
    from django.contrib.auth import get_user_model
    from django.db import router
    from rest_framework.authentication import TokenAuthentication as DRFTokenAuthentication
    from rest_framework.authtoken.models import Token

    from workspace import authentication

    using = router.db_for_read(Token)
    sql = authentication._lookup(Token, using).sql
    users = get_user_model()._default_manager.db_manager(using)
    ours, drf = authentication.TokenAuthentication(), DRFTokenAuthentication()

    def through_raw():
        user = next(iter(users.raw(sql, [key])))
        token = Token.from_db(using, ["key", "user_id"], [key, user.pk])
        token.user = user
        return user, token

    lookups = {
        "DRF's TokenAuthentication": lambda: drf.authenticate_credentials(key),
        "the same SQL through raw()": through_raw,
        "workspace.authentication": lambda: ours.authenticate_credentials(key),
    }
    cpu = {name: [] for name in lookups}
    for lookup in lookups.values():
        for _ in range(200):  # prepared statements, caches
            lookup()
    for round_number in range(rounds):
        names = list(lookups)
        names = names[round_number % len(names) :] + names[: round_number % len(names)]
        for name in names:
            started = time.process_time()
            for _ in range(LOOKUPS):
                lookups[name]()
            cpu[name].append((time.process_time() - started) * 1000 / LOOKUPS)
    print(f"CPU a lookup, median of {rounds} rounds of {LOOKUPS}, interleaved")
    for name, figures in cpu.items():
        print(f"{name:>28}: {statistics.median(figures):.3f} ms  ({', '.join(f'{f:.3f}' for f in figures)})")


if __name__ == "__main__":
    main()
