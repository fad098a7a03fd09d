"""Real server processes and a Server-Sent Events client, for the live tests."""

import contextlib
import http.client
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from django.db import connection

REPOSITORY = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def listens_on(pid: int, port: int) -> bool:
    """Whether process ``pid`` or one of its children holds the socket
    listening on 127.0.0.1:``port``: a port free_port() found may be taken by
    another run's server before ours binds it, and that server would answer
    in its place. True where Linux's /proc is not there to tell."""
    rows = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as lines:
            rows += [line.split() for line in lines.readlines()[1:]]
    if not rows:
        return True
    at_port = f":{port:04X}"
    listening = {f"socket:[{row[9]}]" for row in rows if row[1].endswith(at_port) and row[3] == "0A"}
    family, seen = [pid], set()
    while family:
        member = family.pop()
        seen.add(member)
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{member}/fd"):
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{member}/fd/{fd}") in listening:
                        return True
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{member}/task"):
                with open(f"/proc/{member}/task/{task}/children") as children:
                    family.extend(int(child) for child in children.read().split() if int(child) not in seen)
    return False


def test_database_url() -> str:
    """The URL of the database the tests run on, for server processes to share."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = quote(settings["USER"] or "")
    password = f":{quote(settings['PASSWORD'])}" if settings["PASSWORD"] else ""
    return (
        f"postgresql://{user}{password}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"
    )


class Server:
    """A server process (``command``: by default uvicorn as the README runs it;
    ``{port}`` stands for a free port) on the test database, or on ``database_url``."""

    UVICORN = [
        "uvicorn",
        "project.asgi:application",
        "--lifespan",
        "on",
        "--timeout-graceful-shutdown",
        "10",
        "--host",
        "127.0.0.1",
        "--port",
        "{port}",
        "--log-level",
        "warning",
    ]
    GUNICORN = ["gunicorn", "project.wsgi:application", "--bind", "127.0.0.1:{port}", "--log-level", "warning"]

    def __init__(
        self,
        database_url: str | None = None,
        command: list[str] | None = None,
        port: int | None = None,
        cwd: Path = REPOSITORY,
        **environment: str,
    ):
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "project.settings",
            "DATABASE_URL": database_url or test_database_url(),
        }
        env.pop("REDIS_URL", None)  # one process unless the test says otherwise
        env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # lifted for a browser test process only (one_chromium)
        env.update(environment)
        for attempt in range(3):
            self.port = port or free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            self.log = tempfile.TemporaryFile("w+")  # noqa: SIM115
            self.process = subprocess.Popen(
                [sys.executable, "-m", *(part.format(port=self.port) for part in command or self.UVICORN)],
                cwd=cwd,
                env=env,
                stdout=self.log,
                stderr=subprocess.STDOUT,
            )
            try:
                self._wait_until_up()
                return
            except RuntimeError:
                # The port free_port() found was taken before the server bound it: again, on a new one.
                taken = ("address already in use", "connection in use")  # uvicorn's words, gunicorn's
                if port or attempt == 2 or not any(words in self.output().lower() for words in taken):
                    raise
                self.process.kill()  # gunicorn, say, still trying to bind
                self.process.wait()
                self.log.close()

    def _wait_until_up(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.output()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    pass
            except OSError:
                time.sleep(0.1)
                continue
            if listens_on(self.process.pid, self.port):
                return
            time.sleep(0.1)  # another process's port: ours fails to bind, and exits
        raise RuntimeError(f"server did not start: {self.output()}")

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()

    def call(self, token: str, thread_id: str, tool: str, **arguments) -> dict:
        status, body = self.request(
            "POST", f"/api/workspace/threads/{thread_id}/tools/{tool}/", token, json.dumps(arguments)
        )
        return body

    def request(
        self,
        method: str,
        path: str,
        token: str | None = None,
        body: str | None = None,
        headers: dict[str, str] | None = None,
    ):
        request = urllib.request.Request(
            self.url + path, method=method, data=body.encode() if body else None, headers=headers or {}
        )
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Token {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                answer = response.read()
                return response.status, json.loads(answer) if answer else None
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")


class PushpinServer(Server):
    """Pushpin in front of gunicorn (``workers`` sync workers), as README's
    "Serving many viewers" runs them: ``url`` and ``port`` are Pushpin's;
    ``origin`` is the gunicorn server behind it."""

    def __init__(self, database_url: str | None = None, workers: int = 2, **environment: str):
        import secrets

        self.key = key = secrets.token_urlsafe(32)  # Pushpin's sig_key, the servers' GRIP_KEY
        publish_port = free_port()
        self.publish_url = f"http://127.0.0.1:{publish_port}"  # GRIP_URL: where Pushpin takes publishes
        origin_port = free_port()
        while origin_port == publish_port:  # both found free before either is bound: Django would take Pushpin's
            origin_port = free_port()
        command = [*self.GUNICORN, "--workers", str(workers)]
        self.origin = Server(
            database_url,
            command,
            port=origin_port,
            GRIP_URL=self.publish_url,
            GRIP_KEY=key,
            **environment,
        )
        try:
            for attempt in range(3):
                try:
                    self._start_pushpin(key, publish_port)
                    break
                except RuntimeError as error:
                    # A port free_port() found was taken before Pushpin bound it
                    # (an outgoing connection's port, say): again, on new ports.
                    if "unable to bind" not in str(error) or attempt == 2:
                        raise
                    self.stop_pushpin()
        except BaseException:
            self.origin.stop()
            raise

    def stop_pushpin(self) -> None:
        super().stop()
        self.directory.cleanup()

    def _start_pushpin(self, key: str, publish_port: int) -> None:
        from deploy.pushpin import write_config

        self.directory = tempfile.TemporaryDirectory()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = write_config(
            Path(self.directory.name),
            key,
            origin=f"127.0.0.1:{self.origin.port}",
            port=self.port,
            publish_port=publish_port,
            push_port=free_port(),
            push_sub_port=free_port(),
            command_port=free_port(),
        )
        self.log = tempfile.TemporaryFile("w+")  # noqa: SIM115
        self.process = subprocess.Popen(
            ["pushpin", "--config", str(config), "--merge-output"], stdout=self.log, stderr=subprocess.STDOUT
        )
        self._wait_until_up()
        self._wait_until_ready(publish_port)

    def _wait_until_ready(self, publish_port: int, timeout: float = 30) -> None:
        """Until Pushpin takes publishes and passes a request through to Django
        (its port accepts connections before its other parts are ready)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with socket.create_connection(("127.0.0.1", publish_port), timeout=0.5):
                    pass
                if self.request("GET", "/api/workspace/tools/")[0] == 401:  # Django's answer, through Pushpin
                    return
            except (OSError, http.client.HTTPException, json.JSONDecodeError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"Pushpin is not ready: {self.output()}")
            time.sleep(0.1)

    def output(self) -> str:
        return f"{super().output()}\n--- origin:\n{self.origin.output()}"

    def stop(self) -> None:
        self.stop_pushpin()
        self.origin.stop()


def process_tree(pid: int) -> list[int]:
    """``pid`` and every process it started, and theirs."""
    pids, pending = [], [pid]
    while pending:
        current = pending.pop()
        pids.append(current)
        for task in Path(f"/proc/{current}/task").iterdir():
            pending.extend(int(child) for child in (task / "children").read_text().split())
    return pids


def start_server(kind: str, **environment: str) -> Server:
    """``kind``: "uvicorn" (the README's run command), "django" (uvicorn
    without ``workspace.events.handover``) or "pushpin" (Pushpin in front of gunicorn)."""
    if kind == "pushpin":
        return PushpinServer(**environment)
    if kind == "django":
        command = [part.replace("project.asgi:", "tests.streamed_by_django:") for part in Server.UVICORN]
        return Server(command=command, **environment)
    return Server(**environment)


class RedisServer:
    """A private ``redis-server`` on a free port, to stop and start at will."""

    def __init__(self):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}"
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.resume()
            self.process.terminate()
            self.process.wait(timeout=10)

    def pause(self) -> None:
        """Freeze the server: it still accepts connections, and never answers."""
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)


@dataclass
class Event:
    type: str
    id: str | None
    data: str
    received_at: float  # time.monotonic() when its last line arrived

    def json(self):
        return json.loads(self.data)


class EventStream:
    """Reads a ``text/event-stream`` in a thread; events wait in a queue."""

    def __init__(self, server: Server, path: str, headers: dict[str, str], paused: bool = False):
        """``paused``: read nothing until ``resume()``, through a small receive
        buffer, like a client on a slow link."""
        self.server = server
        self.connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        if paused:
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: no autotuning
            sock.settimeout(60)
            sock.connect(("127.0.0.1", server.port))
            self.connection.sock = sock
        self.connection.request("GET", path, headers={"Accept": "text/event-stream", **headers})
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.events: queue.Queue[Event] = queue.Queue()
        self.ended = threading.Event()  # the reading is over: the body ended, or the connection was cut
        self.ended_cleanly = False  # the body ended as HTTP ends one (the last, empty chunk)
        if self.status != 200:
            self.body = self.response.read()
        elif not paused:
            self.resume()

    def resume(self) -> None:
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        event_type, event_id, data = "message", None, []
        try:
            for raw in self.response:
                line = raw.decode("utf-8").rstrip("\n").rstrip("\r")
                if not line:
                    if data or event_type != "message":
                        self.events.put(Event(event_type, event_id, "\n".join(data), time.monotonic()))
                    event_type, event_id, data = "message", None, []
                elif line.startswith(":"):
                    continue
                else:
                    field, _, value = line.partition(":")
                    value = value.removeprefix(" ")
                    if field == "event":
                        event_type = value
                    elif field == "id":
                        event_id = value
                    elif field == "data":
                        data.append(value)
            self.ended_cleanly = True
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            pass  # closed by close(), or cut by the server
        finally:
            self.ended.set()

    def next(self, event_type: str = "document", timeout: float = 10) -> Event:
        """The next event of ``event_type``, skipping others (stream-open, keep-alive)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                # What the server said, so that a failure in CI names its cause.
                output = self.server.output()[-4000:] if hasattr(self.server, "output") else ""
                raise TimeoutError(f"no {event_type!r} event within {timeout} s; the server's output ends:\n{output}")
            try:
                event = self.events.get(timeout=remaining)
            except queue.Empty:
                continue
            if event.type == event_type:
                return event

    def collect(self, count: int, event_type: str = "document", timeout: float = 30) -> list[Event]:
        deadline = time.monotonic() + timeout
        return [self.next(event_type, max(0.01, deadline - time.monotonic())) for _ in range(count)]

    def until(self, event_type: str, timeout: float = 30) -> list[Event]:
        """Every event up to and with the next of ``event_type``: however late
        the stream runs, what came before that event is all there."""
        seen = []
        deadline = time.monotonic() + timeout
        while not seen or seen[-1].type != event_type:
            remaining = deadline - time.monotonic()
            try:
                if remaining <= 0:
                    raise queue.Empty
                seen.append(self.events.get(timeout=remaining))
            except queue.Empty:
                raise TimeoutError(f"no {event_type!r} event within {timeout} s; before it came {len(seen)}") from None
        return seen

    def quiet(self, event_type: str | None = "document", seconds: float = 1.0) -> list[Event]:
        """Events of ``event_type`` (None: of any type) that arrive within ``seconds``."""
        seen = []
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                event = self.events.get(timeout=remaining)
            except queue.Empty:
                break
            if event_type is None or event.type == event_type:
                seen.append(event)
        return seen

    def close(self) -> None:
        with contextlib.suppress(OSError, AttributeError):  # AttributeError: the server already closed it
            self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()


class PrivatePostgres:
    """A PostgreSQL server of the test's own (Debian's binaries, run as the
    ``postgres`` user), on a free port, to stop and start at will."""

    def __init__(self, directory: Path):
        import glob
        import shutil

        self.bin = Path(sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1])
        self.data = directory / "data"
        self.port = free_port()
        directory.mkdir(parents=True, exist_ok=True)
        shutil.chown(directory, "postgres")
        self._as_postgres(self.bin / "initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self.start()

    def _as_postgres(self, *command, check: bool = True) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *map(str, command)], check=check, capture_output=True)

    def start(self) -> None:
        self._as_postgres(
            self.bin / "pg_ctl",
            "-D",
            self.data,
            "-w",
            "-l",
            self.data / "log",
            "-o",
            f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1",
            "start",
        )

    def stop(self) -> None:
        self._as_postgres(self.bin / "pg_ctl", "-D", self.data, "-w", "-m", "immediate", "stop", check=False)
