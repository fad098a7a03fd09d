"""When a change stores a whole copy of the content rather than only what it changed.

A whole copy of the content is stored (a snapshot after an append, the
revision itself after any other change) when the changes since the last
whole copy reach SNAPSHOT_EVERY_CHANGES, or when the characters their
revisions store reach the larger of SNAPSHOT_MIN_CHARS and the length of
that copy, or (for a change that is not an append) when the whole content is
no longer than the splice would insert and remove. Other changes store only
their chunk or their splice. Rebuilding a version then reads at most this
many rows and about twice the document, and whole copies add at most what the
changes themselves store, or one copy per this many changes.
"""

from .splices import Splice

# An append writes its chunk in its revision and leaves the document row's
# content column as it was; the appends since that column's version are
# joined on when the content is read. One append in a run folds them in (the
# row's content rewritten whole, once): the run is one append per
# FOLD_CHARS_PER_APPEND characters of the document, within FOLD_MIN_APPENDS
# and FOLD_MAX_APPENDS. A fold's rewrite then costs each append of the run at
# most FOLD_CHARS_PER_APPEND characters up to 1 MB, and a read joins at most
# FOLD_MAX_APPENDS chunks (FOLD_MIN_APPENDS to a document under 32 KB, whose
# rewrite costs little) (docs/architecture.md, bench/append.py).
FOLD_CHARS_PER_APPEND = 4096
FOLD_MIN_APPENDS = 8
FOLD_MAX_APPENDS = 256

SNAPSHOT_EVERY_CHANGES = 1000
SNAPSHOT_MIN_CHARS = 64 * 1024
# A run of splices is cut sooner: at one splice per SPLICE_RUN_CHARS characters
# of the whole copy it builds on (at least SPLICE_RUN_MIN). Reading a run of
# one-line splices and applying them costs about what reading a few hundred
# more characters of a whole copy does, so a rebuild stays within about twice
# the time of reading one whole copy, while whole copies add about that many
# characters (compressed) per change. For 1,000 one-line edits of a 100 KB
# document: 1.4 to 1.6 times the time to rebuild a version, and 0.7 KB of
# history per edit where a whole copy each time took 91 KB (bench/history.py).
SPLICE_RUN_CHARS = 512
SPLICE_RUN_MIN = 100

# Whether the append being made is due a snapshot, in SQL, from the document's
# row before it (an UPDATE's expressions all read the old row); its parameters
# are ``append_due_parameters``.
APPEND_SNAPSHOT_DUE = (
    "(version + 1 - base_version >= %s OR stored_since_base + %s >= "
    "CASE WHEN base_length > %s THEN base_length ELSE %s END)"
)


def append_due_parameters(appended: int) -> list[int]:
    """The parameters of APPEND_SNAPSHOT_DUE for an append of ``appended`` characters."""
    return [SNAPSHOT_EVERY_CHANGES, appended, SNAPSHOT_MIN_CHARS, SNAPSHOT_MIN_CHARS]


def stores_whole_copy(
    *, version: int, length: int, splice: Splice, stored: int, base_version: int, base_length: int
) -> bool:
    """Whether the change to ``version`` (``length`` characters, made by
    ``splice``) stores the whole content: ``stored`` characters were stored
    since the whole copy at ``base_version`` (``base_length`` characters), this
    splice's included."""
    run = min(SNAPSHOT_EVERY_CHANGES, max(SPLICE_RUN_MIN, base_length // SPLICE_RUN_CHARS))
    return (
        version - base_version >= run
        or stored >= max(base_length, SNAPSHOT_MIN_CHARS)
        or length <= len(splice.inserted) + splice.removed
    )


def append_folds(length: int, held: int) -> bool:
    """Whether an append that leaves ``length`` characters, and ``held``
    appends outside the row's content column (its own included), folds them in."""
    return held >= max(FOLD_MIN_APPENDS, min(FOLD_MAX_APPENDS, length // FOLD_CHARS_PER_APPEND))
