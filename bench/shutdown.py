"""How long a server takes to stop on SIGINT (Ctrl+C) and SIGTERM, with streams open.

Starts uvicorn as README's "Run it" runs it (that tree's README) on the
database of DATABASE_URL, opens what a row names (nothing; a panel's event
stream; an MCP session's standalone stream; an MCP listen stream), sends the
signal and times the process until it exits, at most ``--wait`` seconds
(then it is killed: "> wait"). Beside each time: whether the streams'
clients saw their body end (clean), were cut (cut) or still held it (open),
and whether the server logged an error while it stopped. With
``--baseline REV``, the same on a checkout of REV, side by side.

Usage: DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres python bench/shutdown.py \\
           [--baseline REV] [--wait 20]
"""

import argparse
import signal
import subprocess
import time

from live_setup import baseline_checkout, database_and_token

from tests.support.live import Server
from tests.support.streams import ListenStream, event_stream, readme_command, standalone_mcp_stream

OPENERS = {
    "nothing open": [],
    "event stream": [event_stream],
    "MCP standalone stream": [standalone_mcp_stream],
    "MCP listen stream": [ListenStream],
}


def stop_time(start_server, command: list[str], token: str, opens: list, signum: int, wait: float) -> str:
    """One server started, ``opens`` opened on it, ``signum`` sent: "seconds streams log"."""
    server = start_server(command)
    try:
        streams = [open_stream(server, token) for open_stream in opens]
        time.sleep(0.5)
        logged_before = len(server.output())
        started = time.monotonic()
        server.process.send_signal(signum)
        try:
            server.process.wait(timeout=wait)
            took = f"{time.monotonic() - started:5.2f}"
            ended = [stream.ended.wait(1) for stream in streams]
        except subprocess.TimeoutExpired:
            took = f">{wait:4.0f}"
            ended = [stream.ended.is_set() for stream in streams]  # before the kill ends them
        stopping = server.output()[logged_before:]
    finally:
        server.stop()
    clean = [
        getattr(stream, "ended_cleanly", getattr(stream, "outcome", "") == "ended gracefully") for stream in streams
    ]
    state = "-" if not streams else "open" if not all(ended) else "clean" if all(clean) else "cut"
    error = "error" if "ERROR" in stopping or "Traceback" in stopping else "-"
    return f"{took} {state:>5} {error:>5}"


def measure(start_server, command: list[str], token: str, wait: float) -> dict[tuple[str, str], str]:
    results = {}
    for name, opens in OPENERS.items():
        for signum in (signal.SIGINT, signal.SIGTERM):
            results[name, signum.name] = stop_time(start_server, command, token, opens, signum, wait)
            print(f"  {name}, {signum.name}: {results[name, signum.name]}", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="also on a checkout of this revision")
    parser.add_argument("--wait", type=float, default=20, help="seconds to wait for an exit before killing")
    arguments = parser.parse_args()
    database_url, token = database_and_token("bench")

    columns = {
        "this tree": measure(lambda command: Server(database_url, command), readme_command(), token, arguments.wait)
    }
    if arguments.baseline:
        readme = subprocess.run(
            ["git", "show", f"{arguments.baseline}:README.md"], check=True, capture_output=True, text=True
        ).stdout
        with baseline_checkout(arguments.baseline, database_url) as checkout:
            command = readme_command(readme=readme)
            columns[arguments.baseline[:7]] = measure(checkout.server, command, checkout.token, arguments.wait)

    print("\nSeconds from the signal to the server's exit; the streams' end; an error logged while stopping")
    header = f"{'open when signalled':>22} | {'signal':>7} | " + " | ".join(f"{name:^23}" for name in columns)
    print(header)
    print("-" * len(header))
    for name in OPENERS:
        for signum in ("SIGINT", "SIGTERM"):
            cells = " | ".join(f"{results[name, signum]:^23}" for results in columns.values())
            print(f"{name:>22} | {signum:>7} | {cells}")


if __name__ == "__main__":
    main()
