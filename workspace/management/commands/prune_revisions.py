from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from workspace.conf import conf
from workspace.repository import WorkspaceRepository


class Command(BaseCommand):
    help = (
        "Delete revisions older than --keep-days days (default: WORKSPACE_REVISION_KEEP_DAYS). "
        "Every document keeps its newest revision, and every kept version can still be rebuilt."
    )

    def add_arguments(self, parser):
        parser.add_argument("--keep-days", type=int, help="Keep the revisions of the last N days.")

    def handle(self, *args, keep_days=None, **options):
        if keep_days is None:
            keep_days = conf.REVISION_KEEP_DAYS
        if keep_days is None:
            raise CommandError("Give --keep-days N, or set WORKSPACE_REVISION_KEEP_DAYS.")
        if keep_days < 1:
            raise CommandError(f"--keep-days must be at least 1, not {keep_days}.")
        deleted = WorkspaceRepository.prune_revisions(timezone.now() - timedelta(days=keep_days))
        self.stdout.write(f"Deleted {deleted} revisions older than {keep_days} days.")
