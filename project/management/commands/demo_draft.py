"""Play a canned model stream as a live draft into a thread of the running demo, then commit it.

No model key needed: the arguments of an ``update_document`` call are sent
piece by piece, as a model streams them (a few characters at a time, at a
model's pace), to ``POST threads/<id>/drafts/<call_id>/``; the call itself
is then made with ``Draft-Id``. Open the thread's panel first to watch it
write: http://127.0.0.1:8000/workspace/threads/<thread>/
"""

import json
import re
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from rest_framework.authtoken.models import Token

TEXT = Path(__file__).resolve().parents[2] / "demo" / "launch-plan.md"
# What a model's tokenizer roughly makes of text: a word with its leading space, or one other character.
TOKEN = re.compile(r" ?[A-Za-z0-9']{1,8}|\s|.", re.DOTALL)


def model_pieces(arguments_before: str, text: str, arguments_after: str) -> list[str]:
    """The call's JSON arguments as a model streams them: the opening, then the
    text's JSON encoding token by token, then the closing."""
    pieces = [arguments_before]
    for token in TOKEN.findall(text):
        pieces.append(json.dumps(token)[1:-1])  # the token as it stands inside the JSON string
    pieces.append(arguments_after)
    return pieces


class Command(BaseCommand):
    help = "Play a canned model stream as a live draft into a thread of the running demo server, then commit it."

    def add_arguments(self, parser):
        parser.add_argument("--thread", default="demo", help="the thread to write (default: demo)")
        parser.add_argument("--server", default="http://127.0.0.1:8000", help="the running demo server")
        parser.add_argument("--username", default="demo", help="whose token to use (python manage.py demo_user)")
        parser.add_argument("--pace", type=float, default=0.025, help="seconds between two pieces (default 0.025)")

    def handle(self, *args, thread: str, server: str, username: str, pace: float, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}: run python manage.py demo_user first")
        token = Token.objects.get_or_create(user=user)[0].key
        api = f"{server.rstrip('/')}/api/workspace/threads/{thread}"
        call_id = f"demo_{uuid.uuid4().hex[:12]}"
        text = TEXT.read_text()
        pieces = model_pieces('{"title": "Launch plan", "content": "', text, '"}')
        self.stdout.write(f"Watch it write: {server.rstrip('/')}/workspace/threads/{thread}/")
        self.stdout.write(f"Streaming {len(text)} characters in {len(pieces)} pieces as draft {call_id} ...")
        for piece in pieces:
            _send(f"{api}/drafts/{call_id}/", token, {"tool": "update_document", "delta": piece})
            time.sleep(pace)
        arguments = {"content": text, "title": "Launch plan", "action_and_reasoning": "Demo: a canned model stream."}
        answer = _send(f"{api}/tools/update_document/", token, arguments, {"Draft-Id": call_id})
        self.stdout.write(f"Committed: {answer['summary']}")


def _send(url: str, token: str, body: dict, headers: dict | None = None) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Authorization", f"Token {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raise CommandError(f"{url}: {error.code} {error.read()[:500].decode(errors='replace')}") from None
    except urllib.error.URLError as error:
        raise CommandError(f"{url}: {error.reason}; is the demo server running (the README's first command)?") from None
