"""What the benchmarks that start server processes share: Django set up in
this process, the database migrated, an agent token, and percentiles."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")

import django  # noqa: E402

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
