"""A thread's stream carries three django-eventstream channels: its document
changes (event ids are the document's versions, read from the revision log),
its artifacts (stored in django-eventstream's own tables) and its live drafts
(read from the drafts' tables, ``events.drafts``). All are readable only by
whom the access policy allows. The order a stream sends them in is
``order``'s: a committed draft's end after that version's document event."""

DOCUMENT_PREFIX = "workspace.thread."
ARTIFACT_PREFIX = "workspace.artifacts."
DRAFT_PREFIX = "workspace.drafts."
PREFIXES = (DOCUMENT_PREFIX, ARTIFACT_PREFIX, DRAFT_PREFIX)  # the order a stream sends them in (``order``)


def document_channel(thread_id: str) -> str:
    return DOCUMENT_PREFIX + thread_id


def artifact_channel(thread_id: str) -> str:
    return ARTIFACT_PREFIX + thread_id


def draft_channel(thread_id: str) -> str:
    return DRAFT_PREFIX + thread_id


def channels_of(thread_id: str) -> list[str]:
    return [document_channel(thread_id), artifact_channel(thread_id), draft_channel(thread_id)]


def thread_of(channel: str) -> str | None:
    for prefix in PREFIXES:
        if channel.startswith(prefix):
            return channel.removeprefix(prefix)
    return None
