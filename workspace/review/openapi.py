"""The OpenAPI description of the review's endpoints: the mode (``PATCH
document/``), the proposals (``GET proposals/``, ``GET proposals/<id>/``)
and a decision (``POST proposals/<id>/decision/``). Loaded by
``workspace.http.openapi`` only, which gives it the parameters and answers
every endpoint shares."""

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers

from ..people.openapi import PERSON_WRITE_FAILURES, person_write_responses
from ..tools.envelope import FAILURE_SCHEMA
from .request import MAX_INDEXES, MAX_NOTE_CHARS, STATUSES
from .views import MAX_PROPOSALS_PER_PAGE, DecisionView, ProposalDetailView, ProposalListView, ProposalSerializer

PROPOSAL_ID = OpenApiParameter(
    "proposal_id", {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}, OpenApiParameter.PATH
)
HUNKS = inline_serializer(
    "Hunk",
    {
        "index": serializers.IntegerField(),
        "base_start": serializers.IntegerField(help_text="The first line of the base it replaces (0-based)."),
        "base_end": serializers.IntegerField(help_text="The line after the last it replaces."),
        "old": serializers.CharField(help_text="The base's text of those lines."),
        "new": serializers.CharField(help_text="The proposal's text in their place."),
    },
    many=True,
    allow_null=True,
    help_text="Null when the version it was made on is no longer kept.",
)
TITLE_CHANGE = inline_serializer(
    "TitleChange", {"old": serializers.CharField(), "new": serializers.CharField()}, allow_null=True
)
PROPOSAL_WHOLE = inline_serializer(
    "ProposalWithContent",
    {
        **ProposalSerializer().get_fields(),
        "content": serializers.CharField(help_text="The document as the change would leave it."),
        "hunks": HUNKS,
        "title_change": TITLE_CHANGE,
        "text": serializers.CharField(required=False, help_text="For an append: its text."),
    },
)
PROPOSAL_PAGE = inline_serializer(
    "ProposalPage", {"results": ProposalSerializer(many=True), "next": serializers.URLField(allow_null=True)}
)
REVIEW_BODY = {
    "type": "object",
    "additionalProperties": False,
    "required": ["review"],
    "properties": {"review": {"type": "boolean", "description": "On: agents' changes wait for a person's review."}},
}
DECISION_BODY = {
    "type": "object",
    "additionalProperties": False,
    "required": ["accept"],
    "properties": {
        "accept": {
            "oneOf": [
                {"type": "string", "enum": ["all", "none"]},
                {"type": "array", "items": {"type": "integer", "minimum": 0}, "maxItems": MAX_INDEXES},
            ],
            "description": "Every hunk, none, or the indexes of those to accept.",
        },
        "note": {"type": "string", "nullable": True, "maxLength": MAX_NOTE_CHARS},
    },
}
DECISION_FAILURES = {
    **PERSON_WRITE_FAILURES,
    404: "No such proposal.",
    409: "The proposal was decided already; or its accepted hunks and the changes since it was made changed the "
    "same lines differently (see conflicts): nothing was changed, it stays open; or a request with this "
    "Idempotency-Key still runs.",
    412: "The document is not at the version If-Match names, or the version the proposal was made on is no "
    "longer kept.",
}
REVIEW_FAILURES = {status: text for status, text in PERSON_WRITE_FAILURES.items() if status not in (409, 412, 422)}


def review_mode(shared: dict[str, OpenApiParameter], document: type[serializers.Serializer]) -> dict[str, Any]:
    """The documentation of ``PATCH document/``."""
    return {
        "summary": "Turn the review of agents' changes on or off",
        "parameters": [shared["thread_id"], shared["ETag"]],
        "request": {"application/json": REVIEW_BODY},
        "responses": {
            200: document,
            **{status: OpenApiResponse(FAILURE_SCHEMA, description=text) for status, text in REVIEW_FAILURES.items()},
        },
    }


def views(shared: dict[str, OpenApiParameter], read_responses: Any) -> list[tuple[type, dict[str, Any]]]:
    """The documentation of the proposals' views (``read_responses``: a read's answers, given what it answers)."""
    thread_id = shared["thread_id"]
    listed = {
        "operation_id": "threads_proposals_list",
        "summary": "The thread's proposals, newest first, without their content",
        "parameters": [
            thread_id,
            OpenApiParameter("status", {"type": "string", "enum": list(STATUSES)}, description="Default open."),
            OpenApiParameter(
                "before", {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}, description="Those before this id."
            ),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": MAX_PROPOSALS_PER_PAGE}),
        ],
        "responses": read_responses(PROPOSAL_PAGE),
    }
    one = {
        "operation_id": "threads_proposal_retrieve",
        "summary": "One proposal, with its content and hunks",
        "parameters": [thread_id, PROPOSAL_ID],
        "responses": read_responses(PROPOSAL_WHOLE),
    }
    decision = {
        "operation_id": "threads_proposal_decide",
        "summary": "A person's decision: accept all of a proposal's hunks, none, or some",
        "parameters": [thread_id, PROPOSAL_ID, shared["Idempotency-Key"]],
        "request": {"application/json": DECISION_BODY},
        "responses": person_write_responses(ProposalSerializer, DECISION_FAILURES),
    }
    return [(ProposalListView, listed), (ProposalDetailView, one), (DecisionView, decision)]


# The operations (a person's edit's too) whose bodies are schemas of their own, not serializers.
BODIES_REQUIRED = [
    ("/threads/{thread_id}/document/", "put"),
    ("/threads/{thread_id}/document/", "patch"),
    ("/threads/{thread_id}/proposals/{proposal_id}/decision/", "post"),
]
