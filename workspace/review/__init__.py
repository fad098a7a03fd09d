"""Review: agents propose, people decide.

A person turns a document's review mode on (``PATCH document/``, or
``WORKSPACE_REVIEW_DEFAULT`` for new documents). From then on the writing
tools, called by an agent over any surface, store each change as a
proposal instead of applying it, with the same validation, preconditions,
idempotency and drafts; a person accepts all, none or some of its hunks,
merged with whatever changed meanwhile, and the change is recorded as the
agent's with who accepted it.

- ``request``: what a decision and a change of mode ask, read and checked
  before anything is written;
- ``views``: the HTTP endpoints (the mode, the proposals, the decision),
  and ``openapi``, their description in the API's schema;
- on the write path, beside the other writes: ``workspace.documents.proposals``
  stores a proposal where ``writes`` would have written the change,
  ``workspace.documents.hunks`` cuts it into line regions, and
  ``workspace.documents.decisions`` applies a decision under the row lock.
"""
