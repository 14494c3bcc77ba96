"""Celery tasks of the ratings app: thin wrappers around ratings.services.

Every task is idempotent (the services lock the pool row and compute from
what is stored), so a task delivered twice or retried does no harm.  Only
transient database errors are retried (a lost connection, a deadlock, a
serialisation failure: Django's OperationalError and InterfaceError); a
programming or data error fails at once and is logged by the worker.
"""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.db import InterfaceError, OperationalError

from ratings import services
from ratings.models import RatingPool

TRANSIENT = (OperationalError, InterfaceError)
RETRY = {
    "autoretry_for": TRANSIENT,
    "retry_backoff": 2,
    "retry_backoff_max": 120,
    "retry_jitter": True,
    "max_retries": 6,
}


@shared_task(name="ratings.update_for_match", **RETRY)
def update_for_match(match_id: int) -> list[str]:
    """After a result became official (queued on commit by the result_confirmed subscriber)."""
    return [str(outcome) for outcome in services.update_after_match(match_id)]


@shared_task(name="ratings.recompute_pool", **RETRY)
def recompute_pool(pool_id: int) -> str:
    """A whole pool from scratch (after its settings changed, or by hand)."""
    pool = RatingPool.objects.filter(pk=pool_id).first()
    if pool is None:
        return f"pool {pool_id}: gone"
    return str(services.recompute_pool(pool))


@shared_task(name="ratings.recompute_pool_from", **RETRY)
def recompute_pool_from(pool_id: int, played_at: str, match_id: int) -> str:
    """A pool from the match at (``played_at`` ISO 8601, ``match_id``) onward."""
    pool = RatingPool.objects.filter(pk=pool_id).first()
    if pool is None:
        return f"pool {pool_id}: gone"
    return str(services.recompute_pool_from(pool, (dt.datetime.fromisoformat(played_at), match_id)))


@shared_task(name="ratings.publish_monthly_lists", **RETRY)
def publish_monthly_lists() -> int:
    """The lists of the 1st of the month (Celery beat, CELERY_BEAT_SCHEDULE)."""
    return len(services.publish_monthly())
