"""Each thread as an MCP server: the official SDK's client against real
server processes (uvicorn serving ``project.asgi``, as the README runs it)."""

import asyncio
import contextlib
import json
import time
import urllib.request

import pytest
from mcp.shared.exceptions import MCPError

from tests.support import requires_postgresql, stored
from tests.support.live import Server
from tests.support.mcp import connect, open_session, post_initialize, post_mcp, run, uri
from workspace.models import Revision
from workspace.tools.envelope import ENVELOPE_SCHEMA
from workspace.tools.registry import registered_tools

pytestmark = pytest.mark.django_db(transaction=True)

WHY = "Writing through MCP."
MODES = pytest.mark.parametrize(
    "mode", ["2026-07-28", "legacy"], ids=["2026-07-28 (stateless)", "2025-11-25 (session)"]
)


@MODES
def test_tools_list_gives_every_tool_with_its_schemas_and_hints(server, token, mode):
    async def scenario():
        async with connect(server, token, "mcp-list", mode) as client:
            return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in run(scenario())}
    assert list(tools) == list(registered_tools())
    for name, tool in tools.items():
        spec = registered_tools()[name].spec
        assert tool.description == spec.description
        assert tool.input_schema == spec.parameters_schema
        assert tool.output_schema == ENVELOPE_SCHEMA
        assert tool.annotations.open_world_hint is False
    assert tools["read_document"].annotations.read_only_hint is True
    assert tools["append_to_document"].annotations.read_only_hint is False
    assert tools["append_to_document"].annotations.destructive_hint is False
    assert tools["update_document"].annotations.destructive_hint is True
    assert tools["edit_document"].annotations.destructive_hint is True


@MODES
def test_a_call_answers_the_envelope_and_records_who_and_why(server, token, user, mode):
    thread = f"mcp-call-{mode}"

    async def scenario():
        async with connect(server, token, thread, mode) as client:
            written = await client.call_tool("update_document", {"content": "one\ntwo\n", "action_and_reasoning": WHY})
            read = await client.call_tool("read_document", {"start_line": 2, "action_and_reasoning": WHY})
            return written, read

    written, read = run(scenario())
    assert written.is_error is False
    assert written.structured_content == {"success": True, "summary": "document updated (8 chars)", "artifact": None}
    assert [block.text for block in written.content] == ["document updated (8 chars)"]
    assert read.content[0].text == "version 1, 8 chars, lines 2-2 of 2\n2\ttwo"
    revision = Revision.objects.get(document__thread_id=thread)
    assert (revision.actor, revision.tool, revision.action_and_reasoning) == (user.username, "update_document", WHY)


def test_a_failed_call_is_an_error_result_that_changes_nothing(server, token):
    async def scenario():
        async with connect(server, token, "mcp-fail") as client:
            await client.call_tool("update_document", {"content": "alpha", "action_and_reasoning": WHY})
            missing = await client.call_tool(
                "edit_document", {"old_str": "beta", "new_str": "x", "action_and_reasoning": WHY}
            )
            invalid = await client.call_tool("append_to_document", {"text": 5, "action_and_reasoning": WHY})
            with pytest.raises(MCPError, match="unknown tool 'drop_table'"):
                await client.call_tool("drop_table", {})
            return missing, invalid

    missing, invalid = run(scenario())
    assert missing.is_error is True
    assert missing.structured_content["success"] is False
    assert "did not appear verbatim" in missing.structured_content["error"]
    assert missing.content[0].text == missing.structured_content["error"]
    assert invalid.is_error is True
    assert invalid.content[0].text == "argument 'text': Input should be a valid string, got integer"
    assert stored("mcp-fail")["content"] == "alpha"


def test_an_idempotency_key_applies_a_retried_call_once(server, token):
    async def scenario():
        for _ in range(2):  # two connections, as a client that lost the first answer
            async with connect(server, token, "mcp-retry", headers={"Idempotency-Key": "append-1"}) as client:
                result = await client.call_tool("append_to_document", {"text": "once\n", "action_and_reasoning": WHY})
                assert result.structured_content["summary"] == "appended (5 chars total)"

    run(scenario())
    assert stored("mcp-retry")["content"] == "once\n"
    assert Revision.objects.filter(document__thread_id="mcp-retry").count() == 1


@MODES
def test_the_document_is_a_resource_whose_text_is_the_content(server, token, mode):
    thread = f"mcp-read-{mode}"
    content = "# Plan\n\n* ünïcode — kept exactly\r\n"

    async def scenario():
        async with connect(server, token, thread, mode) as client:
            empty = await client.read_resource(uri(thread))
            await client.call_tool("update_document", {"content": content, "action_and_reasoning": WHY})
            listed = await client.list_resources()
            read = await client.read_resource(uri(thread))
            with pytest.raises(MCPError, match="unknown resource"):
                await client.read_resource(uri("someone-else"))
            return empty, listed, read

    empty, listed, read = run(scenario())
    assert empty.contents[0].text == ""
    assert [str(resource.uri) for resource in listed.resources] == [uri(thread)]
    assert read.contents[0].text == content


async def next_update(updates: asyncio.Queue, timeout: float = 5) -> str:
    return await asyncio.wait_for(updates.get(), timeout)


@contextlib.asynccontextmanager
async def subscriber(server, token, thread, mode):
    """A client subscribed to the thread's document in the way its protocol has;
    yields it and the queue where the updates land."""
    updates = asyncio.Queue()
    async with connect(server, token, thread, mode, message_handler=session_updates(mode, updates)) as client:
        if mode == "legacy":
            await client.subscribe_resource(uri(thread))
            yield client, updates
            return
        async with client.listen(resource_subscriptions=[uri(thread)]) as subscription:

            async def pump():
                async for event in subscription:
                    updates.put_nowait(event.uri)

            pumping = asyncio.ensure_future(pump())
            try:
                yield client, updates
            finally:
                pumping.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await pumping


def session_updates(mode, updates: asyncio.Queue):
    """The session's notifications (2025 protocols; a listen stream's come through its iterator)."""
    if mode != "legacy":
        return None

    async def handler(message):
        if getattr(message, "method", None) == "notifications/resources/updated":
            updates.put_nowait(message.params.uri)

    return handler


async def append_over_http(server, token, thread, text):
    body = json.dumps({"text": text, "action_and_reasoning": WHY}).encode()
    request = urllib.request.Request(
        f"{server.url}/api/workspace/threads/{thread}/tools/append_to_document/",
        data=body,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    answer = await asyncio.to_thread(urllib.request.urlopen, request, timeout=10)
    assert answer.status == 200


@MODES
def test_a_subscriber_is_told_after_every_committed_change(server, token, mode):
    thread = f"mcp-sub-{mode}"

    async def scenario():
        async with subscriber(server, token, thread, mode) as (client, updates):
            await append_over_http(server, token, thread, "first\n")
            assert await next_update(updates) == uri(thread)
            await client.call_tool("edit_document", {"old_str": "first", "new_str": "1st", "action_and_reasoning": WHY})
            assert await next_update(updates) == uri(thread)
            assert (await client.read_resource(uri(thread))).contents[0].text == "1st\n"
            # a failed call commits nothing: nothing to tell
            await client.call_tool("edit_document", {"old_str": "nope", "new_str": "x", "action_and_reasoning": WHY})
            with pytest.raises(TimeoutError):
                await next_update(updates, timeout=0.5)

    run(scenario())


@MODES
def test_a_subscriber_hears_of_writes_through_another_process_with_redis(token, redis, mode):
    """The documented deployment: several processes behind one address, Redis between them."""
    writer, reader = Server(REDIS_URL=redis.url), Server(REDIS_URL=redis.url)
    thread = f"mcp-fanout-{mode}"

    async def scenario():
        async with subscriber(reader, token, thread, mode) as (_, updates):
            for n in range(3):
                await append_over_http(writer, token, thread, f"{n}\n")
                assert await next_update(updates) == uri(thread)
            async with connect(writer, token, thread, mode) as other:  # MCP writes are heard as well
                await other.call_tool("append_to_document", {"text": "3\n", "action_and_reasoning": WHY})
            assert await next_update(updates) == uri(thread)

    try:
        run(scenario())
    finally:
        writer.stop()
        reader.stop()


def test_anonymous_and_unknown_tokens_are_refused_before_anything_runs(server, token):
    for headers in [{}, {"Authorization": "Bearer not-a-token"}, {"Authorization": f"Basic {token}"}]:
        status, answer_headers, body = post_initialize(server, "mcp-anon", headers)
        assert status == 401, headers
        assert answer_headers["WWW-Authenticate"].startswith('Bearer realm="workspace"')
        assert json.loads(body)["error"] == ("invalid_token" if headers else "unauthorized")
    for scheme in ["Bearer", "Token"]:
        status, _, _ = post_initialize(server, "mcp-anon", {"Authorization": f"{scheme} {token}"})
        assert status == 200, scheme

    assert stored("mcp-anon") is None


def test_the_access_policy_refuses_other_threads(token):
    server = Server(WORKSPACE_ACCESS_POLICY="tests.http.test_access.only_thread_mine")
    try:
        status, _, body = post_initialize(server, "theirs", {"Authorization": f"Bearer {token}"})
        assert status == 403
        assert json.loads(body)["error"] == "forbidden"
        status, _, _ = post_initialize(server, "mine", {"Authorization": f"Bearer {token}"})
        assert status == 200
        status, _, body = post_initialize(server, "a%2Fb", {"Authorization": f"Bearer {token}"})
        assert status == 400
    finally:
        server.stop()


def test_tool_calls_count_against_the_users_rate_as_over_http(token):
    server = Server(WORKSPACE_RATE_WRITES="3/min")
    try:
        server.call(token, "mcp-rate", "append_to_document", text="http\n", action_and_reasoning=WHY)

        async def scenario():
            async with connect(server, token, "mcp-rate") as client:
                results = []
                for n in range(3):
                    arguments = {"text": f"{n}\n", "action_and_reasoning": WHY}
                    results.append(await client.call_tool("append_to_document", arguments))
                return results

        results = run(scenario())
        assert [result.is_error for result in results] == [False, False, True]
        assert results[2].content[0].text.startswith("over the rate of tool calls; retry in ")
        assert stored("mcp-rate")["content"] == "http\n0\n1\n"
    finally:
        server.stop()


def test_without_the_wrapper_the_endpoint_says_what_serves_it(api):
    response = api.post("/api/workspace/threads/t-1/mcp/", {}, format="json")
    assert response.status_code == 501
    assert response.json()["error"].startswith("MCP is served by workspace.asgi.with_workspace(django_application)")


def test_a_session_of_the_2025_protocols_lives_in_the_process_that_opened_it(token):
    """Why the README asks for sticky routing for those clients (and not for 2026-07-28 ones)."""
    first, second = Server(), Server()
    try:
        auth = {"Authorization": f"Bearer {token}"}
        status, headers, _ = post_initialize(first, "mcp-sticky", auth)
        assert status == 200
        session = {**auth, "Mcp-Session-Id": headers["Mcp-Session-Id"], "Mcp-Protocol-Version": "2025-11-25"}
        assert post_initialize(second, "mcp-sticky", session)[0] == 404

        async def stateless(server):
            async with connect(server, token, "mcp-sticky") as client:
                return len((await client.list_tools()).tools)

        assert run(stateless(first)) == run(stateless(second)) == len(registered_tools())
    finally:
        first.stop()
        second.stop()


@requires_postgresql
def test_database_connections_killed_between_calls_are_replaced_before_a_call_needs_them(token):
    import psycopg

    from tests.support import END_SERVER_SESSIONS, live

    server = Server(PGAPPNAME="workspace-killed-mcp")

    async def scenario():
        async with connect(server, token, "killed-mcp") as client:
            with psycopg.connect(live.test_database_url(), autocommit=True) as admin:
                for n in range(6):
                    if n % 2 == 0:  # every open connection of the server, between calls
                        killed = admin.execute(END_SERVER_SESSIONS, ["workspace-killed-mcp"]).fetchall()
                        assert killed or n == 0
                    result = await client.call_tool(
                        "append_to_document", {"text": f"<{n}>", "action_and_reasoning": WHY}
                    )
                    assert not result.is_error, result.content[0].text

    try:
        run(scenario())
        assert stored("killed-mcp")["content"] == "".join(f"<{n}>" for n in range(6))
    finally:
        server.stop()


def test_a_session_opened_on_one_thread_is_unknown_on_another(server, token):
    auth = {"Authorization": f"Bearer {token}"}
    status, headers, _ = post_initialize(server, "mcp-thread-a", auth)
    assert status == 200
    session = {**auth, "Mcp-Session-Id": headers["Mcp-Session-Id"], "Mcp-Protocol-Version": "2025-11-25"}
    assert post_initialize(server, "mcp-thread-b", session)[0] == 404
    assert post_initialize(server, "mcp-thread-a", session)[0] != 404


@MODES
def test_another_threads_document_cannot_be_subscribed_to(server, token, mode):
    async def scenario():
        async with connect(server, token, "mcp-mine", mode) as client:
            with pytest.raises(MCPError, match="unknown resource"):
                if mode == "legacy":
                    await client.subscribe_resource(uri("mcp-theirs"))
                else:
                    async with client.listen(resource_subscriptions=[uri("mcp-mine"), uri("mcp-theirs")]):
                        pass

    run(scenario())


def test_reads_count_against_the_users_rate_and_listen_streams_against_their_streams(token):
    server = Server(WORKSPACE_RATE_READS="3/min", WORKSPACE_MAX_STREAMS_PER_USER="1")
    try:

        async def scenario():
            async with connect(server, token, "mcp-limits") as client:
                await client.list_tools()  # 1
                await client.read_resource(uri("mcp-limits"))  # 2
                await client.list_resources()  # 3
                with pytest.raises(MCPError, match="over the rate of reads; retry in "):
                    await client.read_resource(uri("mcp-limits"))
                async with client.listen(resource_subscriptions=[uri("mcp-limits")]):
                    with pytest.raises(MCPError, match="you have 1 event streams open"):
                        async with client.listen(resource_subscriptions=[uri("mcp-limits")]):
                            pass
                for _ in range(50):  # the server frees the first stream's slot once it sees it closed
                    try:
                        async with client.listen(resource_subscriptions=[uri("mcp-limits")]):
                            return
                    except MCPError:
                        await asyncio.sleep(0.1)
                raise AssertionError("the closed stream kept its slot")

        run(scenario())
    finally:
        server.stop()


@pytest.mark.parametrize(
    "path, root_path, script_name",
    [
        ("/api/workspace/threads/t-7/mcp/", "", None),
        ("/api/workspace/threads/t-7/mcp", "", None),
        ("/prefix/api/workspace/threads/t-7/mcp/", "/prefix", None),
        ("/prefix/api/workspace/threads/t-7/mcp/", "", "/prefix"),
    ],
)
def test_mcp_paths_are_found_under_any_prefix_django_would_serve(settings, path, root_path, script_name):
    from workspace.mcp.asgi import _mcp_thread

    settings.FORCE_SCRIPT_NAME = script_name
    scope = {"type": "http", "path": path, "root_path": root_path, "headers": [], "method": "POST"}
    assert _mcp_thread(scope) == "t-7"
    assert _mcp_thread({**scope, "path": path.replace("/mcp", "/document")}) is None


def test_a_session_that_unsubscribes_hears_nothing_and_subscribing_twice_notifies_once(server, token):
    thread = "mcp-unsub"

    async def scenario():
        updates = asyncio.Queue()
        async with connect(server, token, thread, "legacy", message_handler=session_updates("legacy", updates)) as c:
            await c.subscribe_resource(uri(thread))
            await c.unsubscribe_resource(uri(thread))
            await append_over_http(server, token, thread, "unheard\n")
            with pytest.raises(TimeoutError):
                await next_update(updates, timeout=0.5)
            await c.subscribe_resource(uri(thread))
            await c.subscribe_resource(uri(thread))
            await append_over_http(server, token, thread, "heard\n")
            assert await next_update(updates) == uri(thread)
            with pytest.raises(TimeoutError):
                await next_update(updates, timeout=0.5)

    run(scenario())


PING = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'


@pytest.mark.parametrize("protocol", [None, "2025-11-25", "2026-07-28"])
def test_malformed_json_rpc_gets_a_json_rpc_error_that_names_no_library_internals(server, token, protocol):
    auth = {"Authorization": f"Bearer {token}"}
    if protocol == "2025-11-25":
        auth = open_session(server, "mcp-malformed", auth)
    elif protocol:
        auth = {**auth, "Mcp-Protocol-Version": protocol}
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    malformed = {
        b"{not json": (-32700, "not valid JSON"),
        b"": (-32700, "not valid JSON"),
        json.dumps([request, {**request, "id": 2}]).encode(): (-32600, "batches are not supported"),
        json.dumps([]).encode(): (-32600, "batches are not supported"),
        b'"tools/list"': (-32600, "a JSON-RPC 2.0 message is an object"),
        json.dumps({**request, "jsonrpc": "1.0"}).encode(): (-32600, '"jsonrpc": "2.0"'),
        json.dumps({"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}).encode(): (-32600, "id"),
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": 7}).encode(): (-32600, "method"),
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]}).encode(): (-32600, "params"),
    }
    for body, (code, says) in malformed.items():
        status, _, answer = post_mcp(server, "mcp-malformed", auth, body)
        assert status == 400, body
        error = json.loads(answer)
        assert error["jsonrpc"] == "2.0" and error["id"] is None, body
        assert error["error"]["code"] == code, (body, error)
        assert says in error["error"]["message"], (body, error)
        for internal in ("pydantic", "validation error", "union[", "further information", "jsonrpcrequest", "column"):
            assert internal not in error["error"]["message"].lower(), (body, error)
    assert stored("mcp-malformed") is None


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "https://attacker.test:8000", "http://127.0.0.1.evil.example", "null"]
)
def test_a_request_from_a_page_of_another_origin_is_refused(server, token, origin):
    """DNS rebinding: a page elsewhere that reaches this server by a name it resolves to 127.0.0.1."""
    for headers in [{"Authorization": f"Bearer {token}"}, {}]:
        status, _, body = post_initialize(server, "mcp-origin", {**headers, "Origin": origin})
        assert status == 403, headers
        assert json.loads(body) == {
            "error": "forbidden",
            "error_description": f"Origin {origin!r} is not one of this server's hosts",
        }


def test_a_request_from_a_page_of_an_allowed_host_is_judged_by_its_credentials(server, token):
    for origin in [f"http://127.0.0.1:{server.port}", "https://localhost"]:
        assert post_initialize(server, "mcp-origin", {"Authorization": f"Bearer {token}", "Origin": origin})[0] == 200
        assert post_initialize(server, "mcp-origin", {"Origin": origin})[0] == 401


@pytest.fixture
def other_token(db):
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    return Token.objects.create(user=get_user_model().objects.create_user("other-agent")).key


def delete_session(server, thread, session) -> int:
    return post_mcp(server, thread, session, None, method="DELETE")[0]


def test_a_user_holds_at_most_the_sessions_the_setting_allows_and_others_are_unaffected(token, other_token):
    server = Server(WORKSPACE_MCP_MAX_SESSIONS_PER_USER="3")
    try:
        auth, others = {"Authorization": f"Bearer {token}"}, {"Authorization": f"Bearer {other_token}"}
        sessions = [open_session(server, f"mcp-sessions-{n}", auth) for n in range(3)]  # on any threads
        status, headers, body = post_initialize(server, "mcp-sessions-0", auth)
        assert status == 429
        assert headers["Retry-After"] == "5"
        assert json.loads(body) == {
            "error": "too_many_sessions",
            "error_description": "you have 3 MCP sessions open (WORKSPACE_MCP_MAX_SESSIONS_PER_USER); "
            "end one (DELETE with its Mcp-Session-Id) or let it expire",
        }
        assert [open_session(server, "mcp-sessions-0", others) for _ in range(3)]  # another user: unaffected
        for n, session in enumerate(sessions):  # the user's own sessions still work
            assert post_mcp(server, f"mcp-sessions-{n}", session, PING)[0] == 200

        assert delete_session(server, "mcp-sessions-1", sessions[1]) == 200
        deadline = time.monotonic() + 5
        while (status := post_initialize(server, "mcp-sessions-1", auth)[0]) == 429 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status == 200, "a deleted session kept its place"
        assert post_initialize(server, "mcp-sessions-1", auth)[0] == 429
    finally:
        server.stop()


def test_sessions_that_expire_free_their_place(token):
    command = [part.replace("project.asgi:", "tests.mcp_short_idle:") for part in Server.UVICORN]
    server = Server(command=command, WORKSPACE_MCP_MAX_SESSIONS_PER_USER="1")
    try:
        auth = {"Authorization": f"Bearer {token}"}
        session = open_session(server, "mcp-expire", auth)
        assert post_initialize(server, "mcp-expire", auth)[0] == 429
        time.sleep(1.5)  # idle for longer than the session may be
        deadline = time.monotonic() + 5
        while (status := post_initialize(server, "mcp-expire", auth)[0]) == 429 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert status == 200
        assert post_mcp(server, "mcp-expire", session, PING)[0] == 404  # it did expire
    finally:
        server.stop()


def test_initialize_counts_against_the_users_rate_of_reads(token):
    server = Server(WORKSPACE_RATE_READS="2/min")
    try:
        auth = {"Authorization": f"Bearer {token}"}
        assert [post_initialize(server, "mcp-init-rate", auth)[0] for _ in range(2)] == [200, 200]
        status, headers, body = post_initialize(server, "mcp-init-rate", auth)
        assert status == 429
        assert int(headers["Retry-After"]) > 0
        assert json.loads(body)["error_description"].startswith("over the rate of reads; retry in ")
    finally:
        server.stop()


def test_standalone_mcp_streams_count_with_the_users_event_streams(token):
    from tests.support.live import EventStream

    server = Server(WORKSPACE_MAX_STREAMS_PER_USER="2")
    path = "/api/workspace/threads/mcp-streams/mcp/"
    try:
        auth = {"Authorization": f"Bearer {token}"}
        events_path, events_auth = "/api/workspace/threads/mcp-streams/events/", {"Authorization": f"Token {token}"}
        events = EventStream(server, events_path, events_auth)
        first, second = (open_session(server, "mcp-streams", auth) for _ in range(2))
        held = EventStream(server, path, first)  # the 2025 protocols' GET: the session's own stream
        assert (events.status, held.status) == (200, 200)
        refused = EventStream(server, path, second)
        assert refused.status == 429
        assert b"WORKSPACE_MAX_STREAMS_PER_USER" in refused.body
        assert EventStream(server, events_path, events_auth).status == 429
        held.close()
        deadline = time.monotonic() + 10
        while (again := EventStream(server, path, second)).status == 429 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert again.status == 200, "the closed MCP stream kept its slot"
        again.close()
        events.close()
    finally:
        server.stop()


@pytest.mark.parametrize("value", [0, -1, "100", None, True])
def test_mcp_max_sessions_per_user_must_be_a_positive_integer(value):
    from django.test import override_settings

    from tests.support import workspace_messages

    with override_settings(WORKSPACE_MCP_MAX_SESSIONS_PER_USER=value):
        assert set(workspace_messages()) == {"workspace.E016"}


def test_listen_streams_count_with_the_users_event_streams(token):
    from tests.support.live import EventStream

    server = Server(WORKSPACE_MAX_STREAMS_PER_USER="2")
    try:
        events = EventStream(server, "/api/workspace/threads/mcp-listen/events/", {"Authorization": f"Token {token}"})
        assert events.status == 200

        async def scenario():
            async with (
                connect(server, token, "mcp-listen") as client,
                client.listen(resource_subscriptions=[uri("mcp-listen")]),
            ):
                with pytest.raises(MCPError, match="you have 2 event streams open"):
                    async with client.listen(resource_subscriptions=[uri("mcp-listen")]):
                        pass

        run(scenario())
        events.close()
    finally:
        server.stop()
