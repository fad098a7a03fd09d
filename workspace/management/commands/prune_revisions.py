"""``manage.py prune_revisions``: delete old revisions (``pruning.prune_revisions``)."""

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from workspace.conf import conf

from ...documents.pruning import prune_revisions


class Command(BaseCommand):
    help = (
        "Delete revisions older than --keep-days days (default: WORKSPACE_REVISION_KEEP_DAYS). "
        "Every document keeps its newest revision, and every kept version can still be rebuilt."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--keep-days", type=int, help="Keep the revisions of the last N days.")

    def handle(self, *args: Any, keep_days: int | None = None, **options: Any) -> None:
        if keep_days is None:
            keep_days = conf.REVISION_KEEP_DAYS
        if keep_days is None:
            raise CommandError("Give --keep-days N, or set WORKSPACE_REVISION_KEEP_DAYS.")
        if keep_days < 1:
            raise CommandError(f"--keep-days must be at least 1, not {keep_days}.")
        deleted = prune_revisions(timezone.now() - timedelta(days=keep_days))
        self.stdout.write(f"Deleted {deleted} revisions older than {keep_days} days.")
