"""Celery tasks of the tournaments app: what a confirmed or withdrawn result owes a
tournament, standings after results, webhook deliveries.

``compute_standings_task`` is coalesced: results mark the tournament
(``standings_requested_at``) and queue the task only when no mark was set,
so a burst of results is computed once; the task reads the mark, computes,
and clears the mark only if nobody marked it again meanwhile (else it
computes again).  Computing is idempotent (the snapshot keeps a digest of
its inputs).  Only transient database errors are retried.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError

from base import locking
from base.events import queue_on_commit
from tournaments import webhooks
from tournaments.models import Tournament, WebhookDelivery

logger = logging.getLogger(__name__)

# Transient errors only: a lost connection, or a row lock not granted in time
# (base.locking.Busy); anything else is a bug that a retry would repeat.
TRANSIENT = (OperationalError, InterfaceError, locking.Busy)
RETRY: dict[str, Any] = {
    "autoretry_for": TRANSIENT,
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "max_retries": 5,
}

# A task that keeps seeing new results recomputes this many times, then queues itself again.
MAX_PASSES = 5


def queue(task, *args):  # type: ignore[no-untyped-def]
    """Owe ``task`` in the current transaction, sent when it commits (through the outbox)."""
    queue_on_commit(task, *args)


@shared_task(
    name="tournaments.compute_standings",
    **RETRY,
)
def compute_standings_task(tournament_id: int) -> int | None:
    """Compute the tournament's standings if they were requested; the snapshot's id."""
    from tournaments import services

    snapshot_id = None
    for _ in range(MAX_PASSES):
        row = Tournament.objects.filter(pk=tournament_id).values("standings_requested_at").first()
        if row is None or row["standings_requested_at"] is None:
            return snapshot_id  # gone, or computed already by an earlier run
        marker = row["standings_requested_at"]
        try:
            snapshot = services.compute_standings(Tournament(pk=tournament_id))
            snapshot_id = snapshot.pk if snapshot is not None else None  # None: no round counts
        except ValidationError as error:
            logger.warning("standings of tournament %s: %s", tournament_id, error.messages)
        cleared = Tournament.objects.filter(pk=tournament_id, standings_requested_at=marker).update(
            standings_requested_at=None
        )
        if cleared:
            return snapshot_id
    queue(compute_standings_task, tournament_id)
    return snapshot_id


@shared_task(
    name="tournaments.result_confirmed",
    **RETRY,
)
def result_confirmed_task(match_id: int) -> None:
    """A games result became official (queued by ``receivers``): if the match is a
    pairing's, ask for standings and announce the result; safe to run twice."""
    from tournaments import services

    services.on_result_confirmed(match_id)


@shared_task(
    name="tournaments.result_withdrawn",
    **RETRY,
)
def result_withdrawn_task(match_id: int) -> None:
    """A pairing's match was cancelled (queued by ``receivers``): ask for standings again."""
    from tournaments import services

    services.on_result_withdrawn(match_id)


@shared_task(
    name="tournaments.deliver_webhook",
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    max_retries=3,
)
def deliver_webhook(delivery_id: int) -> bool:
    """One attempt; a failed attempt that may succeed later queues the next one."""
    delivery = WebhookDelivery.objects.select_related("tournament").filter(pk=delivery_id).first()
    if delivery is None or delivery.delivered_at is not None:
        return True
    if delivery.status_code is not None or delivery.error:
        return False  # this attempt was made already (a redelivered message)
    again = webhooks.deliver(delivery)
    if again:
        following = webhooks.next_attempt(delivery)
        if following is not None:
            queue_on_commit(
                deliver_webhook, following.pk, countdown=webhooks.retry_delay(following.attempts)
            )
    return delivery.delivered_at is not None
