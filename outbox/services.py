"""The transactional outbox: background work is recorded in the transaction that owes it.

A write that must be followed by Celery work (a rating update after a result,
standings, a webhook) calls ``queue_on_commit`` inside its transaction.  That
stores a ``PendingTask`` row in the same transaction, so the work owed commits
or rolls back with the write itself.  Once the transaction commits, the row is
handed to the broker and deleted.  If the broker cannot be reached, the
failure is logged and the row stays: the request that committed still
answers success, and ``drain`` (a beat task every minute, the
``drain_outbox`` command, and every worker when it starts) sends it when the
broker is back.

Only broker connection errors are treated as transient (the row is tried
again).  Any other failure to send (an unknown task name, arguments that do
not serialise) will not heal by itself: the row is kept, marked failed with
its error, and is not retried until someone runs ``drain_outbox --failed``.

Delivery is at least once: a row may be sent twice (a drain and the commit
hook at the same moment), so every task queued this way is idempotent.
"""

from __future__ import annotations

import datetime
import enum
import hashlib
import json
import logging
import uuid
from collections import Counter
from typing import Any

from celery import current_app
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerOperationalError

from outbox.models import PendingTask

logger = logging.getLogger(__name__)

# What a publish raises when the broker is away: kombu wraps the transport's
# connection errors in its OperationalError; a socket error may still come
# through bare (OSError covers ConnectionError and TimeoutError).
BROKER_ERRORS: tuple[type[BaseException], ...] = (BrokerOperationalError, OSError)


class Sent(enum.StrEnum):
    SENT = "sent"
    KEPT = "kept"  # the broker is unreachable: tried again by the next drain
    FAILED = "failed"  # will not heal by itself: kept for a person to look at


def dedupe_key(task_name: str, args: tuple[Any, ...] | list[Any], kwargs: dict[str, Any]) -> str:
    """The same task with the same arguments is the same work, owed once."""
    canonical = json.dumps(
        [task_name, list(args), kwargs], sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def queue_on_commit(task: Any, *args: Any, countdown: float | None = None, **kwargs: Any) -> None:
    """Record ``task(*args, **kwargs)`` as owed by the current transaction; send it on commit.

    Outside a transaction the row is written and sent at once.  ``countdown``
    (seconds) asks the worker to run it no earlier than that.  The product owes
    work through ``base.tasks.owe``, which also takes a task's registered name.
    """
    name = task.name
    now = timezone.now()
    # The arguments travel as JSON, like Celery's own messages: refuse anything else now.
    json.dumps([list(args), kwargs])
    key = dedupe_key(name, args, kwargs)
    row = PendingTask(
        task=name,
        args=list(args),
        kwargs=kwargs,
        key=key,
        token=uuid.uuid4().hex,
        owed_at=now,
        not_before=now + datetime.timedelta(seconds=countdown) if countdown else None,
    )
    # Owed again before it was sent: the same row, with a new token (see the model).
    PendingTask.objects.bulk_create(
        [row],
        update_conflicts=True,
        unique_fields=["key"],
        update_fields=["token", "owed_at", "not_before", "failed_at", "args", "kwargs"],
    )
    # robust: whatever happens after the commit, the request that committed succeeds.
    transaction.on_commit(lambda: send(key, task), robust=True)


def send(key: str, task: Any = None) -> Sent:
    """Hand the work stored under ``key`` to the broker (nothing if it was sent meanwhile)."""
    row = PendingTask.objects.filter(key=key).first()
    if row is None:
        return Sent.SENT
    return _publish(row, task)


def _publish(row: PendingTask, task: Any = None) -> Sent:
    now = timezone.now()
    try:
        if task is None:
            task = current_app.tasks[row.task]
        if row.not_before is not None and row.not_before > now:
            task.apply_async(row.args, row.kwargs, eta=row.not_before)
        else:
            task.delay(*row.args, **row.kwargs)
    except BROKER_ERRORS as error:
        logger.warning("broker unreachable; %s stays in the outbox: %s", row, error)
        PendingTask.objects.filter(pk=row.pk).update(
            attempts=F("attempts") + 1, last_error=str(error)[:2000]
        )
        return Sent.KEPT
    except Exception as error:
        logger.exception("%s could not be sent; it is kept as failed, not retried", row)
        PendingTask.objects.filter(pk=row.pk, token=row.token).update(
            attempts=F("attempts") + 1, last_error=repr(error)[:2000], failed_at=now
        )
        return Sent.FAILED
    # Only if nobody owed it again meanwhile: else the newer owner's commit sends it again.
    PendingTask.objects.filter(pk=row.pk, token=row.token).delete()
    return Sent.SENT


def drain(
    *, older_than: float = 0, include_failed: bool = False, limit: int = 1000
) -> Counter[str]:
    """Send the rows still in the outbox, oldest first; stop at the first broker error.

    ``older_than`` (seconds) leaves alone rows whose own commit hook is probably
    sending them right now.  The answer counts rows by outcome, and ``left``.
    """
    pending = PendingTask.objects.filter(
        owed_at__lte=timezone.now() - datetime.timedelta(seconds=older_than)
    )
    if not include_failed:
        pending = pending.filter(failed_at__isnull=True)
    counts: Counter[str] = Counter()
    for row in pending.order_by("id")[:limit]:
        outcome = _publish(row)
        counts[outcome.value] += 1
        if outcome is Sent.KEPT:
            break  # still unreachable: the next drain tries again
    counts["left"] = PendingTask.objects.count()
    return counts
