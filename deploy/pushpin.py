"""Pushpin in front of the app, holding the event streams (docs/deployment.md, "Serving many viewers").

Writes a Pushpin configuration into a directory of its own (``pushpin.conf``,
``routes``; Pushpin's sockets and logs go there too) and prints the command
that runs it::

    python deploy/pushpin.py --dir /var/lib/workspace-pushpin --key "$GRIP_KEY" --origin 127.0.0.1:8000
    pushpin --config /var/lib/workspace-pushpin/pushpin.conf

Clients connect to ``--port`` (7999); Django publishes to ``--publish-port``
(5561, on 127.0.0.1 only: ``GRIP_URL=http://127.0.0.1:5561``); Pushpin signs
every request it forwards with ``--key``, which Django checks (``GRIP_KEY``).
Pushpin runs zurl itself for the requests it makes to Django. The other
settings are Pushpin's defaults (``/etc/pushpin/pushpin.conf``), but for
the rate of messages to clients, raised for one thread with 10,000 viewers.
"""

import argparse
import secrets
from pathlib import Path

CONFIG = """\
[global]
include={{libdir}}/internal.conf
rundir={directory}
ipc_prefix=pushpin-
port_offset=0
stats_connection_ttl=120

[runner]
services=condure,zurl,pushpin-proxy,pushpin-handler
http_port={port}
logdir={directory}
# 2 logs every request, with its URI: the links Pushpin follows carry a
# signed token of the stream's user, valid an hour. Keep the log private.
log_level={log_level}
client_buffer_size=8192
client_maxconn={max_connections}
condure_bin=condure
zurl_bin=zurl

[proxy]
routesfile=routes
debug=false
auto_cross_origin=false
accept_x_forwarded_protocol=false
set_x_forwarded_protocol=proto-only
x_forwarded_for=
x_forwarded_for_trusted=
orig_headers_need_mark=
accept_pushpin_route=false
log_from=false
log_user_agent=false
sig_iss=pushpin
sig_key={key}
upstream_key=
updates_check=off
# The zurl that the runner starts, in rundir (internal.conf names a system-wide one).
zurl_out_specs=ipc://{{rundir}}/{{ipc_prefix}}zurl-in
zurl_out_stream_specs=ipc://{{rundir}}/{{ipc_prefix}}zurl-in-stream
zurl_in_specs=ipc://{{rundir}}/{{ipc_prefix}}zurl-out

[handler]
push_in_spec=tcp://127.0.0.1:{push_port}
push_in_sub_specs=tcp://127.0.0.1:{push_sub_port}
push_in_sub_connect=false
push_in_http_addr=127.0.0.1
push_in_http_port={publish_port}
push_in_http_max_headers_size=10000
push_in_http_max_body_size=1000000
stats_spec=ipc://{{rundir}}/{{ipc_prefix}}stats
command_spec=tcp://127.0.0.1:{command_port}
# Messages a second to all streams together, and how many may wait: a change
# to a thread that 10,000 viewers hold is 10,000 messages. (With Pushpin's
# defaults, 2,500 and 25,000, bench/streams.py saw 10,000 viewers get their
# events 10-15 s late, and most of them not at all within 10 s.)
message_rate={message_rate}
message_hwm={message_hwm}
message_wait=5000
id_cache_ttl=60
connection_subscription_max=20
subscription_linger=60
stats_subscription_ttl=60
stats_report_interval=10
stats_format=tnetstring
"""


def write_config(
    directory: Path,
    key: str,
    origin: str = "127.0.0.1:8000",
    port: int = 7999,
    publish_port: int = 5561,
    push_port: int = 5560,
    push_sub_port: int = 5562,
    command_port: int = 5563,
    max_connections: int = 50_000,
    message_rate: int = 100_000,
    message_hwm: int = 500_000,
    log_level: int = 2,
) -> Path:
    """Write ``pushpin.conf`` and ``routes`` into ``directory``; return the config's path."""
    if not key or any(character.isspace() for character in key):
        raise ValueError("the key must be a non-empty string without spaces")
    directory = Path(directory).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "routes").write_text(f"* {origin}\n")
    config = directory / "pushpin.conf"
    config.write_text(
        CONFIG.format(
            directory=directory,
            key=key,
            port=port,
            publish_port=publish_port,
            push_port=push_port,
            push_sub_port=push_sub_port,
            command_port=command_port,
            max_connections=max_connections,
            message_rate=message_rate,
            message_hwm=message_hwm,
            log_level=log_level,
        )
    )
    config.chmod(0o600)  # it holds the key
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", required=True, type=Path, help="where to write the config (and Pushpin's sockets)")
    parser.add_argument("--key", help="the key Pushpin signs requests with (GRIP_KEY); default: a new random one")
    parser.add_argument("--origin", default="127.0.0.1:8000", help="host:port of the Django server")
    parser.add_argument("--port", type=int, default=7999, help="the port clients connect to")
    parser.add_argument("--publish-port", type=int, default=5561, help="the port Django publishes to (127.0.0.1)")
    arguments = parser.parse_args()
    key = arguments.key or secrets.token_urlsafe(32)
    config = write_config(
        arguments.dir, key, origin=arguments.origin, port=arguments.port, publish_port=arguments.publish_port
    )
    if not arguments.key:
        print(f"export GRIP_KEY={key}")
    print(f"export GRIP_URL=http://127.0.0.1:{arguments.publish_port}")
    print(f"pushpin --config {config}")


if __name__ == "__main__":
    main()
