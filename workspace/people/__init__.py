"""A person's writes: the edit of the whole document from the panel (or any
client), merged with what agents changed meanwhile, and the restore of an
earlier version.

- ``request``: what a person's edit asks (the version it started from,
  ``If-Match``, required; its content, title and reason), read and checked
  before anything is written;
- ``unit_of_work``: a person's write run as a tool call is, in one
  transaction with its ``Idempotency-Key``;
- ``openapi``: the edit's and the restore's description in the API's schema.

The rules: a person's edit names the version it started from; changes made
since are merged in by lines, and where both sides changed the same lines the
edit is refused with the conflicting regions (409), writing nothing; the lines
the person left as they were keep their line endings. The merge and the write run
under the document's row lock on the write path
(``workspace.documents.person_edits`` with ``merging`` and ``line_diff``
beside it), so that nothing commits between the merge and the write.
"""

from ..deprecation import moved_names

# The names of the module workspace.people was before it became this package.
__getattr__ = moved_names(__name__, {name: f"workspace.people.unit_of_work.{name}" for name in ("Answer", "run")})
