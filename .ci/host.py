"""CI: embed the app in a new Django project by following the embedding guide,
docs/embedding.md, as it is written, then use it as a host would.

The guide marks the blocks to follow with a comment before each fence,
``<!-- host-embedding: ACTION [PATH] -->``:

- ``install``: the pip command, run with this repository's wheel in place of
  ``/path/to/this/repository`` (the extras as the guide names them);
- ``append PATH`` / ``write PATH``: code added to the end of, or making up, a
  file of the new project;
- ``run``: the management commands (``createsuperuser`` gets ``--noinput``,
  its password from ``DJANGO_SUPERUSER_PASSWORD``: the guide's asks for it);
- ``serve``: the server command, on a free loopback port instead of 8000.

In a temporary folder this builds the wheel, makes a fresh venv with the
host's own Django (``--django``), runs ``django-admin startproject mysite``,
installs, writes the files, runs the commands, serves, and then drives: a
request without credentials (401), a tool call with the token, the event
stream that carries that change, the panel signed in through its sign-in page
with its static files, and an MCP tool call. Any step that goes wrong stops
the run with what was expected, what came, and the server's log.

Usage: python .ci/host.py [--python PYTHON] [--django VERSION]
(the defaults: this interpreter, and requirements.txt's Django). Other
dependencies are held to the versions of requirements.txt and
requirements-dev.txt (PIP_CONSTRAINT), so that a run installs what the
suite was tested with.
"""

import argparse
import http.client
import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
GUIDE = REPOSITORY / "docs" / "embedding.md"
PLACEHOLDER = "/path/to/this/repository"
PINNED = ("requirements.txt", "requirements-dev.txt")  # the versions the suite was tested with
MARKER = re.compile(r"^<!-- host-embedding: (\w+)(?: (\S+))? -->\n```\w*\n(.*?)^```$", re.MULTILINE | re.DOTALL)
PASSWORD = "a-host-embedding-password"
THREAD = "embed-1"
TIMEOUT = 15  # seconds, for any one answer


class EmbeddingFailed(Exception):
    pass


def guide_blocks() -> list[tuple[str, str | None, str]]:
    """(action, path, code) of every marked block, in the guide's order."""
    text = GUIDE.read_text()
    blocks = [(match[1], match[2], match[3]) for match in MARKER.finditer(text)]
    actions = {action for action, _, _ in blocks}
    unknown = actions - {"install", "append", "write", "run", "serve"}
    if unknown:
        raise EmbeddingFailed(f"{GUIDE.name} marks blocks with unknown actions {sorted(unknown)}")
    for needed in ("install", "run", "serve"):
        if needed not in actions:
            raise EmbeddingFailed(f"{GUIDE.name} has no block marked <!-- host-embedding: {needed} -->")
    return blocks


def shell(script: str, cwd: Path, env: dict, timeout: int = 600) -> str:
    print(f"$ {script.strip()}", flush=True)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise EmbeddingFailed(f"exit {done.returncode} from:\n{script}\n{output}")
    return output


def free_loopback_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def build(folder: Path, python: str, django: str) -> tuple[Path, dict, Path]:
    """The wheel, a venv with the host's Django, and a new project: (project, env, wheel)."""
    leftovers = [REPOSITORY / "build", REPOSITORY / "django_workspace.egg-info"]
    existed = {path for path in leftovers if path.exists()}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder / "wheels"), str(REPOSITORY)],
        check=True,
        timeout=300,
    )
    for path in set(leftovers) - existed:
        shutil.rmtree(path, ignore_errors=True)
    wheel = next((folder / "wheels").glob("django_workspace-*.whl"))

    constraints = folder / "constraints.txt"
    pins = [line for name in PINNED for line in (REPOSITORY / name).read_text().splitlines()]
    # Constraints take no extras nor includes; the host chooses its own Django.
    constraints.write_text(
        "\n".join(line for line in pins if "[" not in line and not line.startswith(("Django==", "-r ")))
    )
    subprocess.run([python, "-m", "venv", str(folder / "venv")], check=True, timeout=120)
    env = {
        **os.environ,
        "PATH": f"{folder / 'venv' / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(folder / "venv"),
        "PIP_CONSTRAINT": str(constraints),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    for name in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "PYTHONPATH"):
        env.pop(name, None)
    shell(f"pip install -q Django=={django} && mkdir host && django-admin startproject mysite host", folder, env)
    return folder / "host", env, wheel


def django_version(env: dict, cwd: Path) -> str:
    return shell("python -c 'import django; print(django.get_version())'", cwd, env).strip().splitlines()[-1]


def follow_guide(project: Path, env: dict, wheel: Path) -> tuple[str, str, str]:
    """Apply the guide's blocks: the token drf_create_token printed, its user, and the serve command."""
    blocks = guide_blocks()
    host_django = django_version(env, project)
    for action, _, code in blocks:
        if action == "install":
            if PLACEHOLDER not in code:
                raise EmbeddingFailed(f"the install block does not name {PLACEHOLDER}:\n{code}")
            print(shell(code.replace(PLACEHOLDER, str(wheel)), project, env).splitlines()[-1])  # what it installed
    if (installed := django_version(env, project)) != host_django:
        raise EmbeddingFailed(f"installing the app changed the host's Django from {host_django} to {installed}")
    for action, path, code in blocks:
        if action in ("append", "write"):
            if not path:
                raise EmbeddingFailed(f"a block marked {action} names no file")
            target = project / path
            if action == "append" and not target.exists():
                raise EmbeddingFailed(f"the guide appends to {path}, which startproject did not make")
            with target.open("a" if action == "append" else "w") as file:
                file.write(("\n" if action == "append" else "") + code)
            print(f"{action} {path}: {len(code.splitlines())} lines")
    output = ""
    for action, _, code in blocks:
        if action == "run":
            script = re.sub(r"(manage\.py createsuperuser)(?!.*--noinput)", r"\1 --noinput", code)
            output += shell(script, project, env)
    print(output, end="")
    if "System check identified no issues" not in output:
        raise EmbeddingFailed(f"`check` reported issues (or did not run):\n{output}")
    token = re.search(r"Generated token (\w+) for user (\S+)", output)
    if not token:
        raise EmbeddingFailed(f"drf_create_token printed no token:\n{output}")
    serve = [code for action, _, code in blocks if action == "serve"][0].strip()
    return token[1], token[2], serve


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    """Requests to the host with a cookie jar; redirects are answers, not followed."""

    def __init__(self, base: str):
        self.base = base
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies), NoRedirects)

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers or {})
        try:
            with self.opener.open(request, timeout=TIMEOUT) as answer:
                return answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as answer:
            return answer.code, answer.headers, answer.read()

    def cookie(self, name: str) -> str:
        return next(cookie.value for cookie in self.cookies if cookie.name == name)


def expect(what: str, condition: bool, seen) -> None:
    if not condition:
        raise EmbeddingFailed(f"{what}; got: {seen!r}"[:4000])
    print(f"ok: {what}")


def wait_until_served(base: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise EmbeddingFailed(f"the server exited with {server.returncode}")
        try:
            urllib.request.urlopen(base + "/api/workspace/tools/", timeout=2)
            return
        except urllib.error.HTTPError:
            return  # it answers (401 without credentials)
        except OSError:
            time.sleep(0.3)
    raise EmbeddingFailed("the server did not answer within 60 s")


def open_stream(port: int, token: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    connection.request("GET", f"/api/workspace/threads/{THREAD}/events/", headers={"Authorization": f"Token {token}"})
    stream = connection.getresponse()
    expect("the event stream opens (200, text/event-stream)", stream.status == 200, stream.status)
    read_event(stream, "stream-open")
    return stream


def read_event(stream: http.client.HTTPResponse, name: str) -> str:
    """The data of the next event called ``name``, within TIMEOUT seconds."""
    deadline, event, data = time.monotonic() + TIMEOUT, None, []
    while time.monotonic() < deadline:
        raw = stream.readline()
        if not raw:
            raise EmbeddingFailed(f"the stream ended before a {name!r} event")
        line = raw.decode().rstrip("\r\n")
        if line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:"):
            data.append(line.split(":", 1)[1].strip())
        elif not line:
            if event == name:
                return "\n".join(data)
            event, data = None, []
    raise EmbeddingFailed(f"no {name!r} event on the stream within {TIMEOUT} s")


def mcp_answer(status: int, headers, body: bytes, request_id: int) -> dict:
    if status != 200:
        raise EmbeddingFailed(f"MCP answered {status}: {body[:2000]!r}")
    if headers.get("Content-Type", "").startswith("application/json"):
        return json.loads(body)
    for line in body.decode().splitlines():  # text/event-stream
        if line.startswith("data:") and (message := json.loads(line[5:])).get("id") == request_id:
            return message
    raise EmbeddingFailed(f"no answer to MCP request {request_id} in {body[:2000]!r}")


def drive(base: str, port: int, token: str, username: str) -> None:
    browser, auth = Browser(base), {"Authorization": f"Token {token}"}
    json_headers = {**auth, "Content-Type": "application/json"}

    status, headers, body = browser.request("GET", "/api/workspace/tools/")
    expect("a request without credentials is 401", status == 401, (status, body))

    stream = open_stream(port, token)
    content = "# Embedded\nWritten by the host embedding test.\n"
    call = json.dumps({"content": content, "action_and_reasoning": "Proving the guide's embedding."}).encode()
    path = f"/api/workspace/threads/{THREAD}/tools/update_document/"
    status, _, body = browser.request("POST", path, call, json_headers)
    expect("a tool call with the token succeeds", status == 200 and json.loads(body)["success"] is True, body)
    event = json.loads(read_event(stream, "document"))
    expect("the open stream receives that change", event.get("content") == content, event)
    stream.close()

    panel = f"/workspace/threads/{THREAD}/"
    status, headers, body = browser.request("GET", panel)
    login = headers.get("Location", "")
    expect("the panel sends a signed-out visitor to a sign-in page", status == 302, (status, body[:500]))
    status, _, body = browser.request("GET", login)
    expect("the sign-in page LOGIN_URL names answers 200", status == 200, (status, login, body[:2000]))
    form = urllib.parse.urlencode(
        {
            "username": username,
            "password": PASSWORD,
            "next": panel,
            "csrfmiddlewaretoken": browser.cookie("csrftoken"),
        }
    ).encode()
    status, headers, body = browser.request(
        "POST", login.split("?")[0], form, {"Content-Type": "application/x-www-form-urlencoded", "Referer": base}
    )
    expect("signing in leads back to the panel", status == 302 and headers["Location"] == panel, (status, body[:2000]))
    status, _, body = browser.request("GET", panel)
    expect("the panel answers 200 signed in", status == 200, (status, body[:2000]))
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', body.decode())
    expect("the panel loads its script and style from /static/", len(assets) >= 2, assets)
    for asset in assets:
        status, _, body = browser.request("GET", asset)
        expect(f"{asset} is served (200, not empty)", status == 200 and len(body) > 0, status)
    status, _, body = browser.request("GET", f"/api/workspace/threads/{THREAD}/document/")
    expect("the panel's session reads the document", status == 200 and json.loads(body)["content"] == content, body)

    mcp = f"/api/workspace/threads/{THREAD}/mcp/"
    mcp_headers = {**auth, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "ci", "version": "1"}},
    }
    status, headers, body = browser.request("POST", mcp, json.dumps(initialize).encode(), mcp_headers)
    answer = mcp_answer(status, headers, body, 1)
    expect("MCP initialize answers with the server's capabilities", "result" in answer, answer)
    session = {**mcp_headers, "Mcp-Protocol-Version": "2025-11-25"}
    if headers.get("Mcp-Session-Id"):
        session["Mcp-Session-Id"] = headers["Mcp-Session-Id"]
    notice = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
    status, _, body = browser.request("POST", mcp, notice, session)
    expect("MCP takes the initialized notification", status in (200, 202), (status, body))
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "read_document", "arguments": {"action_and_reasoning": "Reading over MCP."}},
    }
    status, headers, body = browser.request("POST", mcp, json.dumps(call).encode(), session)
    result = mcp_answer(status, headers, body, 2).get("result", {})
    envelope = result.get("structuredContent", {})
    expect(
        "an MCP tool call reads the document",
        envelope.get("success") is True and "Written by the host embedding test." in envelope.get("summary", ""),
        result,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the host's Python")
    pinned = re.search(r"^Django==(\S+)$", (REPOSITORY / "requirements.txt").read_text(), re.MULTILINE)[1]
    parser.add_argument("--django", default=pinned, help="the host's Django version")
    options = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="workspace-host-"))
    server = None
    log = folder / "server.log"
    started = time.monotonic()
    try:
        project, env, wheel = build(folder, options.python, options.django)
        print(f"host: Django {options.django} on {options.python}, {wheel.name}")
        token, username, serve = follow_guide(project, env, wheel)
        port = free_loopback_port()
        command = serve.replace("--port 8000", f"--port {port}")
        if f"--port {port}" not in command or "127.0.0.1" not in command:
            raise EmbeddingFailed(f"the serve block does not serve on 127.0.0.1 --port 8000: {serve}")
        print(f"$ {command}", flush=True)
        with log.open("w") as output:
            server = subprocess.Popen(
                ["bash", "-c", f"exec {command}"],
                cwd=project,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        base = f"http://127.0.0.1:{port}"
        wait_until_served(base, server)
        drive(base, port, token, username)
    except Exception as failure:  # whatever it is, said with the server's log
        if not isinstance(failure, EmbeddingFailed):
            traceback.print_exc()
        print(f"\nFAILED: the embedding guide: {failure}", file=sys.stderr)
        if log.exists():
            print(f"--- server log (last 60 lines)\n{''.join(log.read_text().splitlines(True)[-60:])}", file=sys.stderr)
        return 1
    finally:
        if server is not None and server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=15)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"the embedding guide works: {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
