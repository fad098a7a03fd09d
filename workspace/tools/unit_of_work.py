"""The unit of work of one tool call: validate it, run it in one transaction,
and answer with the envelope, whatever happens.

Inside the transaction, in order: the call becomes current
(``calls.calling``), so that every write names its reason, actor and tool and
the first write claims the call's expected version; the ``Idempotency-Key``
is claimed (or its first answer replayed); the tool runs; an expected version
no write claimed is checked under the row lock (a call that wrote nothing
still gets 412 on a wrong version); ``artifact_produced`` is sent; the
answer is stored for the key; the call's live draft (``Draft-Id``) ends as
``committed`` (so it does when a success is replayed), or ``proposed`` when
the document is in review and the call stored a proposal instead. Any error rolls all
of it back and is answered as a failure envelope (its draft then ends as
``failed``); each call is logged. A ``Draft-Id`` the call may not end (it
only reads; the draft is of another tool or another user's) is refused
before anything runs, and the draft stays as it was.
"""

import logging
from collections.abc import Callable
from typing import Any, Protocol

from django.db import InterfaceError, OperationalError, router, transaction

from ..documents import idempotency
from ..documents.calls import CallOptions, ExpectedVersions, ToolCall, calling
from ..documents.repository import check_precondition
from ..drafts import store as draft_store
from ..exceptions import DatabaseUnavailable, InvalidArguments, ToolFailed, WorkspaceError
from ..models import WorkingDocument
from ..signals import artifact_produced
from ..validation import validate_thread_id
from .arguments import INJECTED_ARGUMENT, Arguments
from .envelope import ToolResult

logger = logging.getLogger(__name__)

# A tool's own argument for the version it expects (edit_document's), which
# the call's expected version (If-Match) must not contradict.
EXPECTED_VERSION_ARGUMENT = "expected_version"


class Tool(Protocol):
    """What the unit of work needs of a declared tool (``decorator.ToolSpec``)."""

    name: str
    function: Callable[..., tuple[str, Any]]
    arguments: Arguments
    read_only: bool


def run_tool_call(
    tool: Tool, collection: Any, args: tuple = (), kwargs: dict | None = None, options: CallOptions | None = None
) -> ToolResult:
    """Run one call of ``tool`` on ``collection`` and answer; never raises.

    ``options`` (over HTTP, from the request) default to the collection's
    ``call_options`` (in Python, from its keywords)."""
    thread_id = getattr(collection, "thread_id", None)
    options = options or getattr(collection, "call_options", None) or CallOptions()
    try:
        result = _run(tool, collection, args, kwargs or {}, options)
    except WorkspaceError as error:
        result = ToolResult.failure(error)
    except (OperationalError, InterfaceError):
        logger.exception("tool %s failed on thread %r: the database failed", tool.name, thread_id)
        result = ToolResult.failure(DatabaseUnavailable(writing=not tool.read_only))
    except Exception:
        logger.exception("tool %s failed on thread %r", tool.name, thread_id)
        result = ToolResult.failure(ToolFailed(f"{tool.name} failed because of an error on the server"))
    if options.draft_id is not None and result.status_code != 200:
        _end_draft_as_failed(thread_id, options.draft_id, tool.name, options.actor)
    outcome = "replayed" if result.replayed else "ok" if result.status_code == 200 else "failed"
    logger.info("%s on thread %.128r: %s (%d)", tool.name, thread_id, outcome, result.status_code)
    return result


def _run(tool: Tool, collection: Any, args: tuple, kwargs: dict, options: CallOptions) -> ToolResult:
    thread_id = validate_thread_id(collection.thread_id)
    if options.draft_id is not None:  # only the draft's own user ends it, only with a call that writes
        draft_store.check_call_may_end(thread_id, options.draft_id, tool.name, options.actor, not tool.read_only)
    arguments = tool.arguments.validate(args, kwargs)
    expected = options.expected_versions
    _check_agreement(expected, arguments.get(EXPECTED_VERSION_ARGUMENT))
    call = ToolCall(tool=tool.name, reason=arguments[INJECTED_ARGUMENT], actor=options.actor, expected_version=expected)
    with transaction.atomic(using=router.db_for_write(WorkingDocument)), calling(call):
        claimed = None
        if options.idempotency_key is not None and not tool.read_only:  # a read applies nothing: it reads again
            request = idempotency.fingerprint(thread_id, tool.name, arguments)
            claimed = idempotency.claim(options.actor or "", options.idempotency_key, request)
            if claimed.envelope is not None:
                if options.draft_id is not None and claimed.status_code == 200:  # a retry streamed again
                    _end_draft_as_committed(thread_id, options.draft_id, tool.name, options.actor)
                return ToolResult(claimed.envelope, claimed.status_code, replayed=True)
        del arguments[INJECTED_ARGUMENT]
        summary, artifact = tool.function(collection, **arguments)
        unclaimed = call.claim_precondition()
        if unclaimed is not None:
            check_precondition(thread_id, unclaimed)  # no write claimed it: the tool wrote nothing
        result = ToolResult.success(summary, artifact)
        if artifact is not None:
            artifact_produced.send(sender=type(collection), thread_id=thread_id, tool=tool.name, artifact=artifact)
        if claimed is not None:
            idempotency.store_answer(claimed, result.status_code, result.envelope)
        if options.draft_id is not None:  # after the change, in its transaction: its event comes first
            _end_draft_as_committed(thread_id, options.draft_id, tool.name, options.actor, call.proposal)
    return result


def _end_draft_as_committed(
    thread_id: str, draft_id: str, tool: str, actor: str | None, proposal: int | None = None
) -> None:
    """The call succeeded: its draft ends as ``committed``, or ``proposed`` when it stored a proposal."""
    if proposal is not None:
        draft_store.end_call(thread_id, draft_id, tool, actor, draft_store.Outcome.PROPOSED, proposal=proposal)
    else:
        draft_store.end_call(thread_id, draft_id, tool, actor, draft_store.Outcome.COMMITTED)


def _end_draft_as_failed(thread_id: Any, draft_id: str, tool: str, actor: str | None) -> None:
    """The call failed (and rolled back): its draft ends as ``failed``, if it is the call's own."""
    try:
        draft_store.end_call(validate_thread_id(thread_id), draft_id, tool, actor, draft_store.Outcome.FAILED)
    except WorkspaceError:
        pass  # a bad thread id: there is no such draft
    except Exception:
        logger.exception("could not end draft %.64r of thread %.128r as failed", draft_id, thread_id)


def _check_agreement(expected: ExpectedVersions | None, argument: object) -> None:
    """Refuse a call whose expected version (If-Match) and ``expected_version``
    argument no document could meet together: the caller means one of them."""
    if expected is not None and isinstance(argument, int) and not expected.match(argument):
        raise InvalidArguments(
            f"If-Match asks for {expected}, and the argument expected_version for version {argument}: "
            "they disagree, so nothing was changed; give the version in one of them, or the same in both"
        )
