"""Celery tasks of the tournaments app: what a confirmed or withdrawn result owes a
tournament, standings after results, webhook deliveries.

Every task is a ``base.tasks.OwedTask`` (owed on commit, retried on transient
errors only, given ids).  The services and ``webhooks`` owe these tasks by
their registered names, so this module imports them and not the other way round.

``compute_standings_task`` is coalesced: results mark the tournament
(``standings_requested_at``) and queue the task only when no mark was set,
so a burst of results is computed once; the task reads the mark, computes,
and clears the mark only if nobody marked it again meanwhile (else it
computes again).  Computing is idempotent (the snapshot keeps a digest of
its inputs).
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.core.exceptions import ValidationError

from base import locking
from base.tasks import OwedTask, load, owe
from tournaments import services, webhooks
from tournaments.models import Tournament, WebhookDelivery

logger = logging.getLogger(__name__)

# A task that keeps seeing new results recomputes this many times, then queues itself again.
MAX_PASSES = 5


@shared_task(base=OwedTask, name="tournaments.compute_standings")
def compute_standings_task(tournament_id: int) -> int | None:
    """Compute the tournament's standings if they were requested; the snapshot's id."""
    snapshot_id = None
    for _ in range(MAX_PASSES):
        row = Tournament.objects.filter(pk=tournament_id).values("standings_requested_at").first()
        if row is None or row["standings_requested_at"] is None:
            return snapshot_id  # gone, or computed already by an earlier run
        marker = row["standings_requested_at"]
        try:
            snapshot = services.compute_standings(Tournament(pk=tournament_id))
            snapshot_id = snapshot.pk if snapshot is not None else None  # None: no round counts
        except locking.Busy:
            raise  # transient: retried, the mark kept
        except ValidationError as error:
            logger.warning("standings of tournament %s: %s", tournament_id, error.messages)
        cleared = Tournament.objects.filter(pk=tournament_id, standings_requested_at=marker).update(
            standings_requested_at=None
        )
        if cleared:
            return snapshot_id
    owe(compute_standings_task, tournament_id)
    return snapshot_id


@shared_task(base=OwedTask, name="tournaments.result_confirmed")
def result_confirmed_task(match_id: int) -> None:
    """A games result became official (owed by ``receivers``): if the match is a
    pairing's, ask for standings and announce the result; safe to run twice."""
    services.on_result_confirmed(match_id)


@shared_task(base=OwedTask, name="tournaments.result_withdrawn")
def result_withdrawn_task(match_id: int) -> None:
    """A pairing's match was cancelled (owed by ``receivers``): ask for standings again."""
    services.on_result_withdrawn(match_id)


@shared_task(base=OwedTask, name="tournaments.analysis_changed")
def analysis_changed_task(match_id: int) -> None:
    """A pairing's match was analysed (owed by ``receivers``): standings and pages follow."""
    services.on_analysis_changed(match_id)


@shared_task(base=OwedTask, name="tournaments.names_changed")
def names_changed_task(player_ids: list[int], club_ids: list[int]) -> int:
    """Names or clubs shown on tournament pages changed (owed by ``receivers``): the
    tournaments that show them get a new public version; safe to run twice."""
    return services.bump_where_names_show(player_ids, club_ids)


@shared_task(base=OwedTask, name=webhooks.DELIVER_TASK)
def deliver_webhook(delivery_id: int) -> bool:
    """One attempt; a failed attempt that may succeed later owes the next one."""
    delivery = load(WebhookDelivery, delivery_id, "tournament")
    if delivery is None or delivery.delivered_at is not None:
        return True
    if delivery.status_code is not None or delivery.error:
        return False  # this attempt was made already (a redelivered message)
    again = webhooks.deliver(delivery)
    if again:
        following = webhooks.next_attempt(delivery)
        if following is not None:
            owe(deliver_webhook, following.pk, countdown=webhooks.retry_delay(following.attempts))
    return delivery.delivered_at is not None
