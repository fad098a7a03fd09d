"""Idempotent retries: a tool call made with a key is applied at most once per
(caller, key) within 24 hours; a retry is answered with the first call's answer.

The key is claimed by the first statement of the call's transaction and the
answer stored by its last, so both commit with the change or not at all: a
call that failed (and so changed nothing) leaves no record, and a retry of it
runs again. A second call with the key while the first runs waits on the
claimed row, then replays the answer; where that wait ends in an error it is
told 409.
"""

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db import OperationalError, connections, router
from django.utils import timezone

from ..exceptions import IdempotencyConflict, IdempotencyKeyReused
from ..models import IdempotencyRecord

KEPT_FOR = timedelta(hours=24)
LOCK_NOT_AVAILABLE = "55P03"  # PostgreSQL's SQLSTATE when lock_timeout ends a wait
TRIM_INTERVAL = timedelta(minutes=1)


@dataclass(frozen=True)
class Claim:
    record_id: int | None = None  # the claimed record, to store the answer in
    status_code: int = 0  # a replay: the first call's status and envelope
    envelope: dict | None = None


def fingerprint(thread_id: str, tool: str, arguments: dict) -> str:
    canonical = json.dumps([thread_id, tool, arguments], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def claim(owner: str, key: str, request_fingerprint: str) -> Claim:
    """Claim ``key`` for this call, inside its transaction; or the stored answer to replay."""
    connection = connections[router.db_for_write(IdempotencyRecord)]
    table = connection.ops.quote_name(IdempotencyRecord._meta.db_table)
    now = timezone.now()
    _trim_expired(now)
    adapt = connection.ops.adapt_datetimefield_value
    try:
        with connection.cursor() as cursor:
            # A record older than 24 hours is taken over as if absent.
            cursor.execute(
                f"INSERT INTO {table} (owner, key, fingerprint, status_code, envelope, created_at) "
                "VALUES (%s, %s, %s, 0, '', %s) ON CONFLICT (owner, key) DO UPDATE SET "
                "fingerprint = EXCLUDED.fingerprint, status_code = 0, envelope = '', created_at = EXCLUDED.created_at "
                f"WHERE {table}.created_at < %s RETURNING id",
                [owner, key, request_fingerprint, adapt(now), adapt(now - KEPT_FOR)],
            )
            row = cursor.fetchone()
    except OperationalError as error:
        if getattr(error.__cause__, "sqlstate", None) != LOCK_NOT_AVAILABLE:
            raise  # the database failed (503), not the wait for the first call
        raise IdempotencyConflict(
            "a call with this Idempotency-Key is still running; retry with the same key once it has finished"
        ) from error
    if row:
        return Claim(record_id=row[0])
    first = (
        IdempotencyRecord.objects.filter(owner=owner, key=key).values("fingerprint", "status_code", "envelope").first()
    )
    if first is None or first["status_code"] == 0:
        raise IdempotencyConflict(
            "a call with this Idempotency-Key is still running; retry with the same key once it has finished"
        )
    if first["fingerprint"] != request_fingerprint:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was used for a different call (another thread, tool or arguments) "
            "within the last 24 hours; use a new key for a new call"
        )
    return Claim(status_code=first["status_code"], envelope=json.loads(first["envelope"]))


def store_answer(claimed: Claim, status_code: int, envelope: dict) -> None:
    """Store the call's answer in the record it claimed, for a retry to replay."""
    assert claimed.record_id is not None, "a replayed claim has no record to store in"
    IdempotencyRecord.objects.filter(pk=claimed.record_id).update(
        status_code=status_code, envelope=json.dumps(envelope, ensure_ascii=False)
    )


# Per process, in UTC whatever USE_TZ says: timezone.now() is naive under
# USE_TZ = False, and a naive time cannot be compared with this aware one.
_next_trim = datetime.min.replace(tzinfo=UTC)


TRIM_BATCH = 1000


def _trim_expired(now: datetime) -> None:
    """Delete up to TRIM_BATCH expired records, at most once a minute per process."""
    global _next_trim
    now_in_utc = datetime.now(UTC)
    if now_in_utc < _next_trim:
        return
    _next_trim = now_in_utc + TRIM_INTERVAL
    expired = IdempotencyRecord.objects.filter(created_at__lt=now - KEPT_FOR).values_list("pk", flat=True)
    IdempotencyRecord.objects.filter(pk__in=list(expired[:TRIM_BATCH])).delete()
