"""The forwarders of a model's stream to live drafts, on each SDK's real event
objects built offline: every event comes back unchanged and in order, and the
writer of each call to a tool that writes receives exactly that call's JSON
arguments, even with two calls interleaved, a tool that only reads and text
between them; a writer that fails stops only its own call."""

import json
import logging
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass

import pytest
from anthropic.types import (
    InputJSONDelta,
    RawContentBlockDeltaEvent,
    RawContentBlockStartEvent,
    RawContentBlockStopEvent,
    ServerToolUseBlock,
    TextBlock,
    TextDelta,
    ToolUseBlock,
)
from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk
from openai.lib.streaming.chat import ChunkEvent
from openai.types.chat import ChatCompletionChunk
from openai.types.chat.chat_completion_chunk import (
    Choice,
    ChoiceDelta,
    ChoiceDeltaToolCall,
    ChoiceDeltaToolCallFunction,
)
from openai.types.responses import (
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseTextDeltaEvent,
)

from workspace.documents.preconditions import is_draft_id
from workspace.drafts import forwarders as draft_forwarders
from workspace.drafts.forwarders import draft_call_id

# Two writing calls, written at the same time, and one that only reads.
CALLS = {
    "A": (
        "update_document",
        json.dumps(
            {
                "content": '# Lisbon\n\nDay 1: Alfama, the "old town" \u2014 caf\u00e9s\n',
                "title": "Trip",
                "action_and_reasoning": "Writing the plan.",
            }
        ),
    ),
    "B": ("append_to_document", json.dumps({"text": "- Day 2: Sintra\n", "action_and_reasoning": "Adding day two."})),
    "C": ("read_document", json.dumps({"start_line": None, "end_line": None, "action_and_reasoning": "Reading."})),
}
INDEX = {"A": 1, "B": 2, "C": 3}  # the text is block/output 0


def pieces(arguments: str, size: int = 7) -> list[str]:
    return [arguments[start : start + size] for start in range(0, len(arguments), size)]


def steps() -> list[tuple]:
    """The stream in words: text, each call's start, its pieces interleaved with the others', text again."""
    script: list[tuple] = [("text", "Let me plan "), ("text", "the trip.")]
    script += [("start", key) for key in CALLS]
    queues = {key: pieces(arguments) for key, (_, arguments) in CALLS.items()}
    while any(queues.values()):
        for key, queue in queues.items():
            if queue:
                script.append(("args", key, queue.pop(0)))
        script.append(("args", "A", ""))  # an empty piece, skipped
    script += [("end", key) for key in CALLS] + [("text", "Done.")]
    return script


def responses_events() -> list:
    events: list = []
    for number, (kind, *rest) in enumerate(steps()):
        key = rest[0] if rest else ""
        common = {"sequence_number": number, "output_index": INDEX.get(key, 0)}
        if kind == "text":
            events.append(
                ResponseTextDeltaEvent(
                    type="response.output_text.delta",
                    item_id="msg_1",
                    content_index=0,
                    delta=key,
                    logprobs=[],
                    **common,
                )
            )
        elif kind == "start":
            call = ResponseFunctionToolCall(
                type="function_call", id=f"fc_{key}", call_id=f"call_{key}", name=CALLS[key][0], arguments=""
            )
            events.append(ResponseOutputItemAddedEvent(type="response.output_item.added", item=call, **common))
        elif kind == "args":
            events.append(
                ResponseFunctionCallArgumentsDeltaEvent(
                    type="response.function_call_arguments.delta", item_id=f"fc_{key}", delta=rest[1], **common
                )
            )
        else:
            events.append(
                ResponseFunctionCallArgumentsDoneEvent(
                    type="response.function_call_arguments.done", item_id=f"fc_{key}", arguments=CALLS[key][1], **common
                )
            )
    return events


def chat_chunk(delta: ChoiceDelta, finish_reason=None) -> ChatCompletionChunk:
    choice = Choice(index=0, delta=delta, finish_reason=finish_reason)
    return ChatCompletionChunk(
        id="chatcmpl-1", object="chat.completion.chunk", created=0, model="gpt-5", choices=[choice]
    )


def chat_tool_call(key: str, arguments: str, *, first: bool = False) -> ChoiceDelta:
    function = ChoiceDeltaToolCallFunction(name=CALLS[key][0] if first else None, arguments=arguments)
    call = ChoiceDeltaToolCall(index=INDEX[key], id=f"call_{key}" if first else None, function=function)
    return ChoiceDelta(tool_calls=[call])


def chat_events() -> list:
    events = []
    for kind, *rest in steps():
        if kind == "text":
            events.append(chat_chunk(ChoiceDelta(content=rest[0])))
        elif kind == "start":
            events.append(chat_chunk(chat_tool_call(rest[0], "", first=True)))
        elif kind == "args":
            events.append(chat_chunk(chat_tool_call(rest[0], rest[1])))
    return [*events, chat_chunk(ChoiceDelta(), finish_reason="tool_calls")]


def anthropic_events() -> list:
    events: list = [
        RawContentBlockStartEvent(type="content_block_start", index=0, content_block=TextBlock(type="text", text=""))
    ]
    for kind, *rest in steps():
        if kind == "text":
            delta = TextDelta(type="text_delta", text=rest[0])
            events.append(RawContentBlockDeltaEvent(type="content_block_delta", index=0, delta=delta))
        elif kind == "start":
            block = ToolUseBlock(type="tool_use", id=f"toolu_01{rest[0]}", name=CALLS[rest[0]][0], input={})
            events.append(
                RawContentBlockStartEvent(type="content_block_start", index=INDEX[rest[0]], content_block=block)
            )
        elif kind == "args":
            delta = InputJSONDelta(type="input_json_delta", partial_json=rest[1])
            events.append(RawContentBlockDeltaEvent(type="content_block_delta", index=INDEX[rest[0]], delta=delta))
        else:
            events.append(RawContentBlockStopEvent(type="content_block_stop", index=INDEX[rest[0]]))
    return events


def langchain_events() -> list:
    events = []
    for kind, *rest in steps():
        if kind == "text":
            events.append(AIMessageChunk(content=rest[0], id="lc_run--1"))
        elif kind in ("start", "args"):
            key, first = rest[0], kind == "start"
            chunk = tool_call_chunk(
                name=CALLS[key][0] if first else None,
                args="" if first else rest[1],
                id=f"call_{key}" if first else None,
                index=INDEX[key],
            )
            events.append(AIMessageChunk(content="", id="lc_run--1", tool_call_chunks=[chunk]))
    return events


PROVIDERS = {
    "openai_responses": (responses_events, "call_"),
    "openai_chat": (chat_events, "call_"),
    "anthropic": (anthropic_events, "toolu_01"),
    "langchain": (langchain_events, "call_"),
}


@dataclass
class Recorder:
    """The writers' side, recorded: which drafts were opened, and what each was fed."""

    fail_on_piece: int | None = None  # this piece of call A raises (0: the first)

    def __post_init__(self):
        self.opened: list[tuple[str, str]] = []
        self.fed: dict[str, list[str]] = defaultdict(list)
        self.cancelled: list[str] = []

    def open(self, call_id: str, tool: str):
        self.opened.append((call_id, tool))
        return RecordingFeeder(self, call_id)


@dataclass
class RecordingFeeder:
    recorder: Recorder
    call_id: str

    def feed(self, delta: str) -> int:
        fed = self.recorder.fed[self.call_id]
        if self.call_id.endswith("A") and len(fed) == self.recorder.fail_on_piece:
            raise RuntimeError("the server refused the draft")
        fed.append(delta)
        return sum(map(len, fed))

    def cancel(self) -> None:
        self.recorder.cancelled.append(self.call_id)


def joined(recorder: Recorder) -> dict[str, str]:
    return {call_id: "".join(fed) for call_id, fed in recorder.fed.items()}


def assert_same_events(given: list, original: list) -> None:
    assert len(given) == len(original)
    assert all(a is b for a, b in zip(given, original, strict=True))


def forwarder(provider: str, prefix: str = ""):
    return getattr(draft_forwarders, f"{prefix}forward_{provider}")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_each_writing_call_s_writer_gets_its_whole_arguments_and_the_events_pass_unchanged(provider):
    build, id_prefix = PROVIDERS[provider]
    events, recorder = build(), Recorder()

    given = list(forwarder(provider)(events, recorder.open))

    assert_same_events(given, events)
    assert recorder.opened == [(f"{id_prefix}A", "update_document"), (f"{id_prefix}B", "append_to_document")]
    assert joined(recorder) == {f"{id_prefix}A": CALLS["A"][1], f"{id_prefix}B": CALLS["B"][1]}
    assert "" not in recorder.fed[f"{id_prefix}A"]


async def stream_of(events: list, fail_after: int | None = None):
    """``events`` as an async stream, as an async SDK client gives them; its connection may drop."""
    for number, event in enumerate(events):
        if number == fail_after:
            raise TimeoutError("the model's connection dropped")
        yield event


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_the_async_twins_forward_the_same_in_the_same_order(provider):
    build, id_prefix = PROVIDERS[provider]
    events, recorder = build(), Recorder()

    given = [event async for event in forwarder(provider, "a")(stream_of(events), recorder.open)]

    assert_same_events(given, events)
    assert joined(recorder) == {f"{id_prefix}A": CALLS["A"][1], f"{id_prefix}B": CALLS["B"][1]}


async def test_when_an_async_stream_fails_its_drafts_are_cancelled_and_the_error_goes_on():
    recorder = Recorder()

    with pytest.raises(TimeoutError, match="connection dropped"):
        async for _ in draft_forwarders.aforward_anthropic(stream_of(anthropic_events(), fail_after=15), recorder.open):
            pass
    assert sorted(recorder.cancelled) == ["toolu_01A", "toolu_01B"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_failing_writer_stops_only_its_call_and_is_logged_once(provider, caplog):
    build, id_prefix = PROVIDERS[provider]
    events, recorder = build(), Recorder(fail_on_piece=2)

    with caplog.at_level(logging.WARNING, logger="workspace.drafts.forwarders"):
        given = list(forwarder(provider)(events, recorder.open))

    assert_same_events(given, events)
    assert joined(recorder) == {f"{id_prefix}A": "".join(pieces(CALLS["A"][1])[:2]), f"{id_prefix}B": CALLS["B"][1]}
    assert [record.getMessage() for record in caplog.records] == [
        f"live draft {id_prefix}A of update_document failed; its next pieces are not forwarded"
    ]
    assert "the server refused the draft" in caplog.text


def test_a_writer_that_cannot_open_leaves_the_stream_and_the_other_calls_alone(caplog):
    events, recorder = anthropic_events(), Recorder()

    def open_draft(call_id: str, tool: str):
        if tool == "update_document":
            raise ConnectionError("no server")
        return recorder.open(call_id, tool)

    with caplog.at_level(logging.WARNING, logger="workspace.drafts.forwarders"):
        assert_same_events(list(draft_forwarders.forward_anthropic(events, open_draft)), events)
    assert joined(recorder) == {"toolu_01B": CALLS["B"][1]}
    assert len(caplog.records) == 1


def test_when_the_model_s_stream_fails_its_drafts_are_cancelled_and_the_error_goes_on():
    events, recorder = chat_events(), Recorder()

    def broken_stream():
        yield from events[:12]
        raise TimeoutError("the model's connection dropped")

    with pytest.raises(TimeoutError, match="connection dropped"):
        list(draft_forwarders.forward_openai_chat(broken_stream(), recorder.open))
    assert sorted(recorder.cancelled) == ["call_A", "call_B"]


def test_a_provider_id_outside_the_draft_alphabet_becomes_a_stable_hash():
    provider_id = "functions.update_document:0"  # some OpenAI-compatible servers
    delta = ChoiceDeltaToolCall(
        index=0,
        id=provider_id,
        function=ChoiceDeltaToolCallFunction(name="update_document", arguments='{"content": "Hi"}'),
    )
    recorder = Recorder()

    list(draft_forwarders.forward_openai_chat([chat_chunk(ChoiceDelta(tool_calls=[delta]))], recorder.open))

    call_id = draft_call_id(provider_id)
    assert recorder.opened == [(call_id, "update_document")]
    assert call_id == draft_call_id(provider_id) != draft_call_id("functions.update_document:1")
    assert is_draft_id(call_id)
    assert draft_call_id("call_abc") == "call_abc"
    assert draft_call_id("x" * 65) != "x" * 65


def test_chat_pieces_that_repeat_the_id_join_and_a_new_id_at_the_same_index_is_a_new_call():
    def piece(call_id: str, arguments: str, name: str | None = None) -> ChatCompletionChunk:
        function = ChoiceDeltaToolCallFunction(name=name, arguments=arguments)
        return chat_chunk(ChoiceDelta(tool_calls=[ChoiceDeltaToolCall(index=0, id=call_id, function=function)]))

    chunks = [
        piece("call_1", '{"text": ', "append_to_document"),
        piece("call_1", '"one"}'),
        piece("call_2", '{"text": "two"}', "append_to_document"),
    ]
    recorder = Recorder()

    list(draft_forwarders.forward_openai_chat(chunks, recorder.open))

    assert joined(recorder) == {"call_1": '{"text": "one"}', "call_2": '{"text": "two"}'}


def test_a_tool_the_server_runs_in_a_later_message_at_the_same_index_is_not_forwarded():
    def message(block) -> list:
        delta = InputJSONDelta(type="input_json_delta", partial_json='{"query": "Lisbon"}')
        return [
            RawContentBlockStartEvent(type="content_block_start", index=1, content_block=block),
            RawContentBlockDeltaEvent(type="content_block_delta", index=1, delta=delta),
        ]

    writing = ToolUseBlock(type="tool_use", id="toolu_01A", name="update_document", input={})
    search = ServerToolUseBlock(type="server_tool_use", id="srvtoolu_01", name="web_search", input={})
    recorder = Recorder()

    list(draft_forwarders.forward_anthropic(message(writing) + message(search), recorder.open))

    assert joined(recorder) == {"toolu_01A": '{"query": "Lisbon"}'}


def test_the_chat_stream_helper_s_events_are_read_through_their_chunk():
    events = [ChunkEvent.model_construct(type="chunk", chunk=chunk, snapshot=None) for chunk in chat_events()]
    recorder = Recorder()

    assert_same_events(list(draft_forwarders.forward_openai_chat(events, recorder.open)), events)
    assert joined(recorder) == {"call_A": CALLS["A"][1], "call_B": CALLS["B"][1]}


def test_the_module_imports_without_the_sdks():
    code = (
        "import sys\n"
        "for name in ('openai', 'anthropic', 'langchain_core'):\n"
        "    sys.modules[name] = None\n"
        "import workspace.drafts.forwarders\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
