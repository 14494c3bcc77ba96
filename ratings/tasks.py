"""Celery tasks of the ratings app: thin wrappers around ratings.services.

Every task is idempotent (the services lock the pool row and compute from
what is stored), so a task delivered twice or retried does no harm.  The
retry policy (transient database errors only) is ``base.tasks.OwedTask``'s.
"""

from __future__ import annotations

import datetime as dt

from celery import shared_task

from base.tasks import OwedTask, load
from ratings import services
from ratings.models import RatingPool


@shared_task(base=OwedTask, name="ratings.update_for_match")
def update_for_match(match_id: int) -> list[str]:
    """After a result became official (owed on commit by the result subscribers)."""
    return [str(outcome) for outcome in services.update_after_match(match_id)]


@shared_task(base=OwedTask, name="ratings.recompute_pool")
def recompute_pool(pool_id: int) -> str:
    """A whole pool from scratch (after its settings changed, or by hand)."""
    pool = load(RatingPool, pool_id)
    if pool is None:
        return f"pool {pool_id}: gone"
    return str(services.recompute_pool(pool))


@shared_task(base=OwedTask, name="ratings.recompute_pool_from")
def recompute_pool_from(pool_id: int, played_at: str, match_id: int) -> str:
    """A pool from the match at (``played_at`` ISO 8601, ``match_id``) onward."""
    pool = load(RatingPool, pool_id)
    if pool is None:
        return f"pool {pool_id}: gone"
    return str(services.recompute_pool_from(pool, (dt.datetime.fromisoformat(played_at), match_id)))


@shared_task(base=OwedTask, name="ratings.names_changed")
def names_changed_task(player_ids: list[int], club_ids: list[int]) -> list[int]:
    """Names or clubs shown on rating lists changed (owed by ``receivers``): the pools
    whose lists show them get a new names version; the pools moved.  Safe to run twice."""
    return services.bump_where_names_show(player_ids, club_ids)


@shared_task(base=OwedTask, name="ratings.publish_monthly_lists")
def publish_monthly_lists() -> int:
    """The lists of the 1st of the month (Celery beat, CELERY_BEAT_SCHEDULE)."""
    return len(services.publish_monthly())
