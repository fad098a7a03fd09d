"""The HTTP API (Django REST framework): the views, what every view of the
app shares, and the schema that documents them.

- ``views``: thin views over the tool registry, the repository, the history,
  a person's writes (``workspace.people``) and the drafts (``workspace.drafts``);
- ``defaults``: what every view is: JSON in and out whatever the client
  says, the app's own DRF defaults rather than the host's, and the access
  policy for a thread's endpoints;
- ``failures``: every failure answered with the failure envelope, a server
  error logged with its traceback;
- ``request``: a request's body (sized when chunked, bounded, read as one
  JSON object) and its integer parameters;
- ``throttling``: per-user rates for writes, reads and drafts' pieces;
- ``openapi``: the OpenAPI 3 schema of the endpoints and the page that
  renders it (the drafts' and the people's parts are
  ``workspace.drafts.openapi`` and ``workspace.people.openapi``);
- ``content_security``: the Content-Security-Policy of the app's own pages.

The rules: every answer of a view is JSON, a failure is the envelope
``{success: false, summary, ...}`` with its status; a thread's id and the
user's access are checked before a view runs (``defaults.CanAccessThread``),
and a request's size before its body is read. The URLs are
``workspace.urls``; a view's work goes to the tools, the repository or a
person's unit of work, never to the SQL.
"""
