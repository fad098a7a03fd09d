"""The review's HTTP endpoints: a thread's proposals (``GET proposals/``,
``GET proposals/<id>/``) and a person's decision on one (``POST
proposals/<id>/decision/``). The review mode is set on the document
(``PATCH document/``, ``workspace.http.views``), through ``set_review``."""

from typing import Any

from rest_framework import ISO_8601, permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from ..documents import decisions, proposals
from ..documents.preconditions import parse_idempotency_key, parse_if_match
from ..documents.repository import WorkspaceRepository
from ..http import request as parameters
from ..http.defaults import CanAccessThread, WorkspaceView
from ..http.request import tool_arguments
from ..http.throttling import ReadRateThrottle, WriteRateThrottle
from ..models import Proposal
from ..people import unit_of_work as people
from . import request as review_request

MAX_PROPOSALS_PER_PAGE = 100


class ProposalSerializer(serializers.ModelSerializer):
    """A proposal as lists show it: everything but its content."""

    created_at = serializers.DateTimeField(format=ISO_8601)  # whatever the host's DATETIME_FORMAT
    decided_at = serializers.DateTimeField(format=ISO_8601, allow_null=True)

    class Meta:
        model = Proposal
        fields = [
            *("id", "thread_id", "base_version", "tool", "op", "actor", "action_and_reasoning", "title", "status"),
            *("accepted", "rejected", "decided_by", "decided_at", "note", "version", "created_at"),
        ]


def shown_whole(proposal: Proposal) -> dict[str, Any]:
    """A proposal with its content, hunks (None when the version it was made
    on is no longer kept) and title change (None when it keeps the title)."""
    found = decisions.hunks_now(proposal)
    data = {
        **ProposalSerializer(proposal).data,
        "content": proposal.content,
        "hunks": None if found is None else [hunk.shown() for hunk in found],
        "title_change": {"old": proposal.base_title, "new": proposal.title}
        if proposal.title != proposal.base_title
        else None,
    }
    if proposal.op == "append":
        data["text"] = proposal.text
    return data


class ProposalListView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [ReadRateThrottle]

    def get(self, request: Request, thread_id: str) -> Response:
        status = review_request.status(parameters.single_query_value(request, "status", "open"))
        before_value = parameters.single_query_value(request, "before", "")
        before = parameters.non_negative_integer("before", before_value) if before_value else None
        limit = parameters.page_limit(request, MAX_PROPOSALS_PER_PAGE, MAX_PROPOSALS_PER_PAGE)
        found = proposals.page(thread_id, status, before, limit + 1)
        next_url = None
        if len(found) > limit:
            found = found[:limit]
            next_url = parameters.next_page_url(request, "before", found[-1].pk, limit)
        return Response({"results": ProposalSerializer(found, many=True).data, "next": next_url})


class ProposalDetailView(WorkspaceView):
    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [ReadRateThrottle]

    def get(self, request: Request, thread_id: str, proposal_id: str) -> Response:
        number = parameters.non_negative_integer("proposal id", proposal_id)
        return Response(shown_whole(proposals.get(thread_id, number)))


class DecisionView(WorkspaceView):
    """A person's decision: accept all of a proposal's hunks, none, or some."""

    permission_classes = [permissions.IsAuthenticated, CanAccessThread]
    throttle_classes = [WriteRateThrottle]

    def post(self, request: Request, thread_id: str, proposal_id: str) -> Response:
        number = parameters.non_negative_integer("proposal id", proposal_id)
        accept, note = review_request.decision(tool_arguments(request, "accept and note"))
        expected = parse_if_match(request.headers.get("If-Match"))
        user = request.user.get_username()

        def decide() -> dict:
            proposal = WorkspaceRepository.decide_proposal(
                thread_id, number, accept, actor=user, note=note, expected_version=expected
            )
            return dict(ProposalSerializer(proposal).data)

        key = parse_idempotency_key(request.headers.get("Idempotency-Key"))
        arguments = {"proposal": number, "accept": accept, "note": note, "if_match": request.headers.get("If-Match")}
        answer = people.run(user, key, thread_id, "POST decision/", arguments, decide, keeps_content=False)
        headers = {"Idempotent-Replayed": "true"} if answer.replayed else {}
        return Response(answer.body, status=answer.status_code, headers=headers)
