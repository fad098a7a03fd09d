"""The HTTP API: thin DRF views over the tool registry, the repository and the history.

What they share (JSON only, the app's own DRF defaults, failures as the
envelope) is in ``defaults``; the request's headers are read by
``workspace.documents.preconditions``, its body and parameters by ``request``;
the endpoints are documented by ``openapi``.
"""

from typing import Any

from django.http import HttpRequest, HttpResponseBase, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import ISO_8601, permissions, serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from ..deprecation import moved_names
from ..documents.calls import CallOptions
from ..documents.preconditions import parse_draft_id, parse_idempotency_key, parse_if_match
from ..documents.repository import WorkspaceRepository
from ..drafts import expiry as draft_expiry
from ..drafts import request as draft_request
from ..drafts import store as draft_store
from ..events import link_authentication
from ..events.stream import stream_response
from ..exceptions import DraftNotFound, InvalidArguments
from ..history.revisions import document_id_of, revision_with_content, revisions_after
from ..models import Revision, WorkingDocument
from ..people import request as edit_request
from ..people import unit_of_work as people
from ..review import request as review_request
from ..tools.arguments import shorten
from ..tools.envelope import failure_envelope
from ..tools.exports import FORMATS
from ..tools.registry import get_tool, registered_tools
from . import request as parameters
from .defaults import CanAccessThread, JSONOnly, WorkspaceView
from .request import tool_arguments
from .throttling import DraftRateThrottle, ReadRateThrottle, WriteRateThrottle

__all__ = [
    "CanAccessThread",
    "DocumentView",
    "DraftView",
    "EventStreamView",
    "JSONOnly",
    "MAX_REVISIONS_PER_PAGE",
    "RevisionDetailView",
    "RevisionListView",
    "RevisionRestoreView",
    "RevisionSerializer",
    "ToolCallView",
    "ToolListView",
    "UnknownEndpointView",
    "WorkspaceView",
    "mcp_without_asgi",
    "tool_call_view",
    "unknown_endpoint_view",
    "unrouted_thread_path",
]


class ToolListView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated]
    throttle_classes = [ReadRateThrottle]

    def get(self, request: Request) -> Response:
        name = request.query_params.get("format", "plain")
        if name not in FORMATS:
            raise InvalidArguments(f"unknown format {shorten(name)!r}; the formats are: {', '.join(FORMATS)}")
        export = FORMATS[name]
        return Response([export(tool) for tool in registered_tools().values()])


class ToolCallView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [WriteRateThrottle]

    def may_write(self) -> bool:
        tool = registered_tools().get(self.kwargs["name"])
        return tool is None or not tool.spec.read_only

    def post(self, request: Request, thread_id: str, name: str) -> Response:
        tool = get_tool(name)
        arguments = tool_arguments(request)
        options = CallOptions(
            actor=request.user.get_username(),
            expected_version=parse_if_match(request.headers.get("If-Match")),
            idempotency_key=parse_idempotency_key(request.headers.get("Idempotency-Key")),
            draft_id=parse_draft_id(request.headers.get("Draft-Id")),
        )
        result = tool.invoke(thread_id, arguments, options)
        answer_headers = {}
        if result.replayed:
            answer_headers["Idempotent-Replayed"] = "true"
        if result.retry_after:
            answer_headers["Retry-After"] = str(result.retry_after)
        return Response(result.envelope, status=result.status_code, headers=answer_headers)


class DocumentView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [ReadRateThrottle]

    def get_throttles(self) -> list[Any]:
        return [WriteRateThrottle()] if self.may_write() else super().get_throttles()

    class OutputSerializer(serializers.ModelSerializer):
        # ISO 8601 whatever the host's DATETIME_FORMAT
        created_at = serializers.DateTimeField(format=ISO_8601)
        updated_at = serializers.DateTimeField(format=ISO_8601)

        class Meta:
            model = WorkingDocument
            fields = ["thread_id", "title", "content", "length", "version", "review", "created_at", "updated_at"]
            extra_kwargs = {name: {"required": True} for name in fields}  # every answer has them all

    def get(self, request: Request, thread_id: str) -> Response:
        document = WorkspaceRepository.get_document(thread_id)
        return Response(self.OutputSerializer(document).data, headers={"ETag": f'"{document.version}"'})

    def patch(self, request: Request, thread_id: str) -> Response:
        """A person turns the review of agents' changes on or off: not a change of the text."""
        review = review_request.review_mode(tool_arguments(request, "review"))
        document = WorkspaceRepository.set_review(thread_id, review, actor=request.user.get_username())
        return Response(self.OutputSerializer(document).data, headers={"ETag": f'"{document.version}"'})

    def put(self, request: Request, thread_id: str) -> Response:
        """A person's edit, started from the version ``If-Match`` names: applied,
        merged with the changes since, or refused."""
        based_on = edit_request.based_on(request.headers.get("If-Match"))
        content, title, reason = edit_request.body(tool_arguments(request, "content, title and action_and_reasoning"))
        user = request.user.get_username()
        reason = reason if reason is not None else f"Edited by {user}."

        def write() -> dict:
            change, merged = WorkspaceRepository.save_person_edit(
                thread_id, content, title, based_on=based_on, reason=reason, actor=user
            )
            return {**self.OutputSerializer(WorkspaceRepository.get_document(thread_id)).data, "merged": merged}

        arguments = {"content": content, "title": title, "action_and_reasoning": reason, "based_on": based_on}
        return _answer(people.run(user, _idempotency_key(request), thread_id, "PUT document/", arguments, write))


def _idempotency_key(request: Request) -> str | None:
    return parse_idempotency_key(request.headers.get("Idempotency-Key"))


def _answer(answer: people.Answer) -> Response:
    """A person's write answered: the document, its ETag, and whether it was replayed."""
    headers = {"ETag": f'"{answer.body["version"]}"'}
    if answer.replayed:
        headers["Idempotent-Replayed"] = "true"
    return Response(answer.body, status=answer.status_code, headers=headers)


class RevisionRestoreView(WorkspaceView):
    """A person's restore of a kept version, as a new revision (none when it
    has the current content and title)."""

    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [WriteRateThrottle]

    def post(self, request: Request, thread_id: str, version: str) -> Response:
        number = parameters.non_negative_integer("version", version)
        expected = parse_if_match(request.headers.get("If-Match"))
        reason = edit_request.restore_reason(tool_arguments(request, "action_and_reasoning"))
        user = request.user.get_username()
        reason = reason if reason is not None else f"Restored version {number} by {user}."

        def write() -> dict:
            WorkspaceRepository.restore(
                thread_id,
                number,
                reason=reason,
                actor=user,
                source=Revision.Source.PERSON,
                expected_version=expected,
            )
            return dict(DocumentView.OutputSerializer(WorkspaceRepository.get_document(thread_id)).data)

        arguments = {"version": number, "if_match": request.headers.get("If-Match"), "action_and_reasoning": reason}
        return _answer(people.run(user, _idempotency_key(request), thread_id, "POST restore/", arguments, write))


class DraftView(WorkspaceView):
    """A live draft of a tool call: ``POST`` a piece of its JSON
    arguments (the first opens it), ``DELETE`` to cancel it."""

    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [DraftRateThrottle]

    def may_write(self) -> bool:
        return True

    def post(self, request: Request, thread_id: str, call_id: str) -> Response:
        draft_expiry.start()  # this process took a draft: it ends those nobody writes to
        tool, delta = draft_request.draft_piece(tool_arguments(request, "tool and delta"))
        received = draft_store.add(thread_id, call_id, tool, delta, request.user.get_username())
        return Response({"call_id": call_id, "received": received}, status=202)

    def delete(self, request: Request, thread_id: str, call_id: str) -> Response:
        if not draft_store.cancel(thread_id, call_id, request.user.get_username()):
            raise DraftNotFound(f"thread {thread_id!r} has no open draft {call_id[:65]!r}")
        return Response(status=204)


class RevisionSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    op = serializers.CharField()
    title = serializers.CharField()
    length = serializers.IntegerField()
    action_and_reasoning = serializers.CharField()
    actor = serializers.CharField(allow_null=True)
    tool = serializers.CharField(allow_null=True)
    # A field named like Field.source: DRF's metaclass takes it out of the class.
    source = serializers.ChoiceField(choices=Revision.Source.choices)  # type: ignore[assignment]
    restored_from = serializers.IntegerField(allow_null=True)
    reviewed_by = serializers.CharField(allow_null=True)  # who accepted the proposal it applies
    proposal = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField(format=ISO_8601)  # whatever the host's DATETIME_FORMAT


MAX_REVISIONS_PER_PAGE = 1000


class RevisionListView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [ReadRateThrottle]

    def get(self, request: Request, thread_id: str) -> Response:
        after = parameters.non_negative_integer("after", parameters.single_query_value(request, "after", "0"))
        limit = parameters.page_limit(request, 100, MAX_REVISIONS_PER_PAGE)
        revisions = revisions_after(thread_id, after, limit + 1)
        next_url = None
        if len(revisions) > limit:
            revisions = revisions[:limit]
            next_url = parameters.next_page_url(request, "after", revisions[-1].version, limit)
        return Response({"results": RevisionSerializer(revisions, many=True).data, "next": next_url})


class RevisionDetailView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [ReadRateThrottle]

    def get(self, request: Request, thread_id: str, version: str) -> Response:
        number = parameters.non_negative_integer("version", version)
        revision, content = revision_with_content(document_id_of(thread_id), number)
        data = {**RevisionSerializer(revision).data, "content": content}
        if revision.op == revision.Op.APPEND:
            data["text"] = revision.text
        return Response(data)


class UnknownEndpointView(WorkspaceView):
    """A path under ``threads/`` that no endpoint has: 404 in JSON, after authentication."""

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        raise NotFound(
            "no such endpoint: see GET tools/ and the thread endpoints document/, revisions/, proposals/, events/"
        )


class EventStreamView(WorkspaceView):
    """``text/event-stream`` of the thread's changes; the same authentication
    (a token for programs, the session cookie for the panel) and policy."""

    permission_classes = [permissions.IsAuthenticated, CanAccessThread]

    def initialize_request(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Request:
        self.http_request = request  # what the stream is served from: Django's request, not DRF's
        return super().initialize_request(request, *args, **kwargs)

    def get_authenticators(self) -> list[Any]:
        if link_authentication.proxied(self.request):
            return [*super().get_authenticators(), link_authentication.LinkAuthentication()]
        return super().get_authenticators()

    def get(self, request: Request, thread_id: str) -> HttpResponseBase:
        return stream_response(self.http_request, thread_id)


tool_call_view = ToolCallView.as_view()
unknown_endpoint_view = UnknownEndpointView.as_view()


@csrf_exempt  # as DRF's views are: its authentication enforces CSRF for session users
def unrouted_thread_path(request: HttpRequest, rest: str) -> HttpResponseBase:
    """What the routes leave: a tool name holding a "/" (an unknown tool, 404
    with the envelope), or no endpoint at all. One split: linear in the path."""
    thread_id, tools, name = rest.partition("/tools/")
    if tools:
        return tool_call_view(request, thread_id=thread_id, name=name.removesuffix("/"))
    return unknown_endpoint_view(request)


@csrf_exempt
def mcp_without_asgi(request: HttpRequest, thread_id: str) -> JsonResponse:
    """``threads/<id>/mcp/`` reached Django: the host serves Django without the
    MCP wrapper (under WSGI, or a bare ASGI handler)."""
    error = "MCP is served by workspace.asgi.with_workspace(django_application) in front of Django's ASGI application"
    return JsonResponse(failure_envelope(error), status=501)


# Names that moved out of this module, still importable from here for a while.
__getattr__ = moved_names(
    __name__,
    {
        "FailuresAsEnvelope": "workspace.http.failures.FailuresAsEnvelope",
        "AppOwnDefaults": "workspace.http.defaults.AppOwnDefaults",
        **{
            name: f"workspace.documents.preconditions.{name}"
            for name in ("ENTITY_TAG", "IF_MATCH", "IF_MATCH_PATTERN", "MAX_IF_MATCH_CHARS", "MAX_IF_MATCH_TAGS")
        },
        "MAX_DIGITS": "workspace.http.request.MAX_DIGITS",
    },
)
