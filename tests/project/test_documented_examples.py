"""The curl examples of README.md and docs/*.md run as printed, against a live server.

The rule for writers of those pages:

- a fenced ``sh`` block right after the line ``<!-- runs -->`` is run;
- one right after ``<!-- runs: for N s -->`` holds a command that does not
  end by itself (an event stream): it runs for N seconds and is then stopped;
- every ``sh`` block that holds a ``curl`` carries one of the two, so that no
  curl goes unchecked.

There are two ways in, each run from scratch as a newcomer would take it,
on a database of its own: README.md, and the site (the pages of ``docs/`` in
``mkdocs.yml``'s order, the quick start first). The marked blocks of one
run in one bash session, so each goes on from the state the ones before it
left (thread ``trip-42``, ``$TOKEN``). The server is uvicorn as README's
"Run it" starts it, on the test database, with the demo user ``manage.py
demo_user`` makes; ``http://127.0.0.1:8000`` is replaced by that server's
address, in the commands and in their answers, the only change made to what
is printed (and where the folder has no ``.venv``, its ``. .venv/bin/activate``
line is skipped: the tests' own Python is on ``PATH``).

A block is cut into steps at its blank lines and after each answer: command
lines, and the comment lines right under them (no blank line between), which
are what the commands print (``# `` dropped; a line starting ``#  ``
continues the line before it). Each step must exit 0, and what it prints must
match its answer line by line, ``...`` standing for any text.
"""

import os
import re
import secrets
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.support import live
from tests.support.documented import README, blocks_of, matches, nav_pages
from tests.support.live import REPOSITORY, Server

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.docs]

PRINTED_ADDRESS = "http://127.0.0.1:8000"
RUNS = re.compile(r"runs(?:: for (\d+) s)?")
TOURS = {"README.md": lambda: [README], "the site": nav_pages}


@dataclass
class Step:
    page: str
    commands: str
    answer: list[str]
    seconds: int | None  # None: runs until it ends


def steps_of(page: Path) -> list[Step]:
    steps: list[Step] = []
    for block in blocks_of(page, "sh"):
        runs = RUNS.fullmatch(block.marker or "")
        if not runs:
            assert "curl" not in block.code, (
                f"{block.page}: a curl block without <!-- runs --> (see this test's docstring):\n{block.code}"
            )
            continue
        steps += split_into_steps(block.page, block.code, int(runs[1]) if runs[1] else None)
    return steps


def split_into_steps(page: str, code: str, seconds: int | None) -> list[Step]:
    steps: list[Step] = []
    commands: list[str] = []
    answer: list[str] = []
    previous = "blank"

    def close() -> None:
        if commands:
            steps.append(Step(page, "\n".join(commands), list(answer), seconds))
        commands.clear()
        answer.clear()

    for line in code.splitlines():
        if not line.strip():
            close()
            previous = "blank"
        elif line.startswith("#"):
            if previous in ("command", "answer"):
                if line.startswith("#  ") and answer:
                    answer[-1] += line[3:].lstrip()
                else:
                    answer.append(line[2:] if line.startswith("# ") else line[1:])
                previous = "answer"
            else:
                previous = "comment"
        else:
            if answer:
                close()
            commands.append(line)
            previous = "command"
    close()
    return steps


def script_of(steps: list[Step], mark: str, has_venv: bool) -> str:
    lines = ["set -a"]  # every variable reaches the commands run with a time limit
    for number, step in enumerate(steps):
        commands = step.commands.replace(PRINTED_ADDRESS, "$DOCUMENTED_SERVER")
        if not has_venv:
            commands = commands.replace(". .venv/bin/activate", ": no .venv here")
        lines.append(f"printf '%s\\n' '{mark} step {number}'")
        if step.seconds is None:
            lines += ["{", commands, "} 2>&1"]
        else:
            lines.append(f"timeout {step.seconds} bash -c {shell_quote(commands)} 2>&1; [ $? -eq 124 ]")
        lines.append(f"printf '\\n%s %s\\n' '{mark} status' $?")
    return "\n".join(lines) + "\n"


def shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


@pytest.mark.parametrize("tour", TOURS)
def test_every_documented_curl_runs_as_printed(tour):
    steps = [step for page in TOURS[tour]() for step in steps_of(page)]
    assert len(steps) >= 5, f"only {len(steps)} runnable steps found: are the <!-- runs --> markers there?"
    call_command("demo_user", stdout=open(os.devnull, "w"))  # noqa: SIM115  (as README's "Run it" does)
    server = Server()
    try:
        mark = f"@@{secrets.token_hex(8)}"
        environment = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "project.settings",
            "DATABASE_URL": live.test_database_url(),
            "DOCUMENTED_SERVER": server.url,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        }
        environment.pop("REDIS_URL", None)
        done = subprocess.run(
            ["bash", "-c", script_of(steps, mark, (REPOSITORY / ".venv" / "bin" / "activate").exists())],
            cwd=REPOSITORY,
            env=environment,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        server.stop()
    printed = re.findall(rf"^{mark} step (\d+)\n(.*?)\n{mark} status (\d+)$", done.stdout, re.MULTILINE | re.DOTALL)
    assert len(printed) == len(steps), f"{len(printed)} of {len(steps)} steps ran:\n{done.stdout}\n{done.stderr}"
    for (number, output, status), step in zip(printed, steps, strict=True):
        where = f"{step.page}, step {number}:\n{step.commands}\nprinted:\n{output}"
        assert status == "0", f"exit {status} from {where}\n{done.stderr}"
        if step.answer:
            lines = [line.rstrip("\r") for line in output.strip("\n").splitlines()]
            assert len(lines) == len(step.answer) and all(
                matches(expected.replace(PRINTED_ADDRESS, server.url), line)
                for expected, line in zip(step.answer, lines, strict=True)
            ), f"{where}\nexpected:\n" + "\n".join(step.answer)
