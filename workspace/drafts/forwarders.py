"""Forward a model's streamed tool-call arguments to live drafts.

Each ``forward_...`` function takes one provider's stream of the SDK's own
event objects and gives every event back, unchanged and in order, so that the
agent's runtime consumes the stream as before; on the way, each piece of the
JSON arguments of a call to a tool that writes (``update_document``,
``append_to_document``, ``edit_document``) goes to a writer opened for that
call with ``open_draft(call_id, tool)``, usually ``DraftWriter``:

- ``forward_openai_responses``: OpenAI Responses (``response.output_item.added``
  of a ``function_call``, then ``response.function_call_arguments.delta``);
- ``forward_openai_chat``: OpenAI Chat Completions chunks
  (``choices[i].delta.tool_calls[j]``, joined by ``index`` per choice; also the
  events of ``client.chat.completions.stream()``, through their ``chunk``);
- ``forward_anthropic``: Anthropic Messages (``content_block_start`` of a
  ``tool_use``, then ``content_block_delta`` of an ``input_json_delta``);
- ``forward_langchain``: LangChain ``AIMessageChunk``s (``tool_call_chunks``).

The ``aforward_...`` twins do the same over an async stream; they open and
feed the writers (database work) in a worker thread as Django runs a request
(``as_async_request``: ``sync_to_async(thread_sensitive=False)``, old
connections closed), one event's pieces after another's, before the event
that carried them is given back.

The SDKs are not imported: events are read by their attributes. The writer's
call id is the provider's call id when it is 1 to 64 characters of
``A-Z a-z 0-9 _ -``, else ``draft_call_id`` of it (a stable hash): pass the
same to the tool call that ends the draft. A writer that fails (to open or
to feed: the server refused, the draft ended) is logged once and that call's
next pieces are dropped; the stream goes on, and the tool call itself still
commits. If the model's stream itself fails, the drafts it opened are
cancelled (their calls will not come).
"""

import hashlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterable, AsyncIterator, Callable, Hashable, Iterable, Iterator
from typing import Any, NamedTuple, Protocol

from ..documents.preconditions import is_draft_id
from ..utils.async_bridge import as_async_request

logger = logging.getLogger(__name__)

WRITING_TOOLS = frozenset({"update_document", "append_to_document", "edit_document"})
# The calls of one stream remembered at once (the oldest is forgotten first):
# far more than a model runs in parallel, so a stream as long as a whole
# agent's run stays bounded in memory.
REMEMBERED_CALLS = 64


class Feeder(Protocol):
    """What ``open_draft`` gives: a writer of one call's arguments (``DraftWriter``)."""

    def feed(self, delta: str) -> object:
        """Append the next piece of the call's JSON arguments."""
        ...


OpenDraft = Callable[[str, str], Feeder]


def draft_call_id(provider_call_id: str) -> str:
    """The draft's ``call_id`` for a provider's tool-call id: the id itself when
    it is 1 to 64 characters of ``A-Z a-z 0-9 _ -``, else ``"h-"`` and the first
    32 hex digits of its SHA-256, the same for the same id every time."""
    if is_draft_id(provider_call_id):
        return provider_call_id
    return "h-" + hashlib.sha256(provider_call_id.encode(errors="surrogatepass")).hexdigest()[:32]


class _Piece(NamedTuple):
    """A piece of one call's arguments, as a stream names it."""

    call_id: str | None
    tool: str | None
    delta: str | None


class _Recent(OrderedDict[Hashable, Any]):
    """A mapping that keeps the ``REMEMBERED_CALLS`` most recently set keys."""

    def __setitem__(self, key: Hashable, value: Any) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        if len(self) > REMEMBERED_CALLS:
            self.popitem(last=False)


class _Calls:
    """The calls of a stream by the key its pieces carry (an item id, an index)."""

    def __init__(self) -> None:
        self._calls = _Recent()

    def start(self, key: Hashable, call_id: str | None, tool: str | None) -> None:
        self._calls[key] = (call_id, tool)

    def start_if_new(self, key: Hashable, call_id: str | None, tool: str | None) -> None:
        """Start a call when ``call_id`` is one not yet seen at ``key`` (the
        first piece of a call; providers that repeat the id on every piece)."""
        if call_id and self._calls.get(key, (None, None))[0] != call_id:
            self.start(key, call_id, tool)

    def piece(self, key: Hashable, delta: str | None) -> list[_Piece]:
        call_id, tool = self._calls.get(key, (None, None))
        return [_Piece(call_id, tool, delta)] if call_id and delta else []


class _Drafts:
    """The writers of one stream's calls to tools that write, one per call."""

    def __init__(self, open_draft: OpenDraft) -> None:
        self._open_draft = open_draft
        self._feeders = _Recent()  # call_id -> its writer, or None once it failed

    def take(self, pieces: list[_Piece]) -> None:
        for call_id, tool, delta in pieces:
            if call_id and tool in WRITING_TOOLS and delta:
                self._feed(draft_call_id(call_id), tool, delta)

    def _feed(self, call_id: str, tool: str, delta: str) -> None:
        try:
            feeder = self._feeders[call_id] if call_id in self._feeders else self._open_draft(call_id, tool)
            self._feeders[call_id] = feeder
            if feeder is not None:
                feeder.feed(delta)
        except Exception:
            logger.warning(
                "live draft %s of %s failed; its next pieces are not forwarded", call_id, tool, exc_info=True
            )
            self._feeders[call_id] = None

    def cancel_open(self) -> None:
        for call_id, feeder in list(self._feeders.items()):
            cancel = getattr(feeder, "cancel", None)
            if cancel is None:
                continue
            try:
                cancel()
            except Exception:
                logger.warning("live draft %s could not be cancelled", call_id, exc_info=True)


class _Router(Protocol):
    def pieces(self, event: Any) -> list[_Piece]: ...


class _ResponsesRouter:
    """OpenAI Responses: a ``function_call`` item, then its arguments' deltas by ``item_id``."""

    def __init__(self) -> None:
        self._calls = _Calls()

    def pieces(self, event: Any) -> list[_Piece]:
        kind = getattr(event, "type", None)
        if kind == "response.output_item.added":
            item = getattr(event, "item", None)
            if getattr(item, "type", None) == "function_call":
                self._calls.start(
                    getattr(item, "id", None), getattr(item, "call_id", None), getattr(item, "name", None)
                )
        elif kind == "response.function_call_arguments.delta":
            return self._calls.piece(getattr(event, "item_id", None), getattr(event, "delta", None))
        return []


class _ChatRouter:
    """OpenAI Chat Completions: ``tool_calls`` pieces joined by ``index``, per choice."""

    def __init__(self) -> None:
        self._calls = _Calls()

    def pieces(self, event: Any) -> list[_Piece]:
        chunk = getattr(event, "chunk", event)  # the events of ``chat.completions.stream()`` carry the chunk
        pieces = []
        for choice in getattr(chunk, "choices", None) or ():
            for call in getattr(getattr(choice, "delta", None), "tool_calls", None) or ():
                key = (getattr(choice, "index", None), getattr(call, "index", None))
                function = getattr(call, "function", None)
                self._calls.start_if_new(key, getattr(call, "id", None), getattr(function, "name", None))
                pieces += self._calls.piece(key, getattr(function, "arguments", None))
        return pieces


class _AnthropicRouter:
    """Anthropic Messages: a ``tool_use`` block's start, then its ``input_json_delta``s by ``index``."""

    def __init__(self) -> None:
        self._calls = _Calls()

    def pieces(self, event: Any) -> list[_Piece]:
        kind = getattr(event, "type", None)
        index = getattr(event, "index", None)
        if kind == "content_block_start":
            block = getattr(event, "content_block", None)
            if getattr(block, "type", None) == "tool_use":
                self._calls.start(index, getattr(block, "id", None), getattr(block, "name", None))
            else:
                self._calls.start(index, None, None)
        elif kind == "content_block_delta":
            delta = getattr(event, "delta", None)
            if getattr(delta, "type", None) == "input_json_delta":
                return self._calls.piece(index, getattr(delta, "partial_json", None))
        return []


class _LangChainRouter:
    """LangChain: ``AIMessageChunk.tool_call_chunks``, joined by ``index`` (id and name on a call's first)."""

    def __init__(self) -> None:
        self._calls = _Calls()

    def pieces(self, message: Any) -> list[_Piece]:
        pieces = []
        for chunk in getattr(message, "tool_call_chunks", None) or ():
            key = chunk.get("index")
            self._calls.start_if_new(key, chunk.get("id"), chunk.get("name"))
            pieces += self._calls.piece(key, chunk.get("args"))
        return pieces


def _forward(events: Iterable[Any], router: _Router, open_draft: OpenDraft) -> Iterator[Any]:
    drafts = _Drafts(open_draft)
    try:
        for event in events:
            drafts.take(router.pieces(event))
            yield event
    except Exception:
        drafts.cancel_open()
        raise


async def _aforward(events: AsyncIterable[Any], router: _Router, open_draft: OpenDraft) -> AsyncIterator[Any]:
    drafts = _Drafts(open_draft)
    take = as_async_request(drafts.take)
    try:
        async for event in events:
            if pieces := router.pieces(event):
                await take(pieces)
            yield event
    except Exception:
        await as_async_request(drafts.cancel_open)()
        raise


class _Forwarders(NamedTuple):
    """One provider's forwarder, over a stream and over an async stream."""

    forward: Callable[[Iterable[Any], OpenDraft], Iterator[Any]]
    aforward: Callable[[AsyncIterable[Any], OpenDraft], AsyncIterator[Any]]


def _forwarders(provider: str, make_router: Callable[[], _Router], stream: str) -> _Forwarders:
    """``forward_<provider>`` and ``aforward_<provider>``, reading ``stream`` with a new ``make_router()`` each."""

    def forward(events: Iterable[Any], open_draft: OpenDraft) -> Iterator[Any]:
        return _forward(events, make_router(), open_draft)

    def aforward(events: AsyncIterable[Any], open_draft: OpenDraft) -> AsyncIterator[Any]:
        return _aforward(events, make_router(), open_draft)

    forward.__name__ = forward.__qualname__ = f"forward_{provider}"
    forward.__doc__ = f"The {stream}, each writing call's arguments fed to ``open_draft``'s writer."
    aforward.__name__ = aforward.__qualname__ = f"aforward_{provider}"
    aforward.__doc__ = f"``forward_{provider}`` over an async stream."
    return _Forwarders(forward, aforward)


forward_openai_responses, aforward_openai_responses = _forwarders(
    "openai_responses", _ResponsesRouter, "events of an OpenAI Responses stream (``AsyncOpenAI`` for the twin)"
)
forward_openai_chat, aforward_openai_chat = _forwarders(
    "openai_chat", _ChatRouter, "chunks of an OpenAI Chat Completions stream (``AsyncOpenAI`` for the twin)"
)
forward_anthropic, aforward_anthropic = _forwarders(
    "anthropic", _AnthropicRouter, "events of an Anthropic Messages stream (``AsyncAnthropic`` for the twin)"
)
forward_langchain, aforward_langchain = _forwarders(
    "langchain", _LangChainRouter, "chunks of a LangChain model's stream (``model.astream`` for the twin)"
)
