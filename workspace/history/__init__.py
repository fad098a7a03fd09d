"""A document's history, as revisions: what each change stored, and the
content at any kept version rebuilt from it. Nothing here writes.

- ``revisions``: a document's revisions, and its content at any kept
  version, rebuilt in one pass from the nearest whole copy (the revision
  that replaced it, or a snapshot);
- ``snapshot_policy``: when a change stores a whole copy of the content
  instead of only what it changed, which bounds every rebuild;
- ``splices``: a change that replaces part of a document, stored as where it
  starts, what it removes and what it inserts, and applied again on a rebuild.

The rules: every kept version rebuilds to exactly the content it had (its
length is checked against the revision's); a rebuild reads at most one whole
copy and the changes after it (``snapshot_policy`` bounds how many). The
document events a reconnecting client missed are read from the same log by
``workspace.events.replay``; the log's upkeep is ``workspace.documents.pruning``.
"""

from ..deprecation import moved_names

# The names of the module workspace.history was before it became this package.
__getattr__ = moved_names(
    __name__,
    {
        **{
            name: f"workspace.history.revisions.{name}"
            for name in (
                "DIFF_MAX_LINES",
                "LISTED_FIELDS",
                "content_at",
                "contents_at",
                "document_id_of",
                "is_whole_copy",
                "revision_with_content",
                "revisions_after",
            )
        },
        **{
            name: f"workspace.events.replay.{name}"
            for name in (
                "EVENT_COLUMNS",
                "EVENT_REASON_CHARS",
                "changes_after",
                "event_ids_around",
                "never_handed_out",
                "newest_event_id",
            )
        },
    },
)
