from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.authtoken.models import Token


class Command(BaseCommand):
    help = "Create (or reuse) the demo superuser and its API token, and say what to open."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="demo")

    def handle(self, *args, username: str, password: str, **options):
        user, created = get_user_model().objects.get_or_create(
            username=username, defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            user.set_password(password)
            user.save()
        token, _ = Token.objects.get_or_create(user=user)
        login = f"user {username!r}, password {password!r}" if created else f"user {username!r}"
        self.stdout.write(
            "\n".join(
                [
                    f"Admin:       http://127.0.0.1:8000/admin/  ({login})",
                    "Documents:   http://127.0.0.1:8000/admin/workspace/workingdocument/",
                    "API:         http://127.0.0.1:8000/api/workspace/tools/",
                    f"Agent token: {token.key}",
                    f"  export TOKEN={token.key}",
                ]
            )
        )
