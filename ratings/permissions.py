"""Who may publish a pool's rating lists or have it recomputed (rules of the one policy).

Registered from RatingsConfig.ready.
"""

from __future__ import annotations

from typing import Any

from clubs.permissions import is_federation_admin, register
from ratings.models import RatingPool


@register("rating_list.publish")
def _rating_list_publish(user: Any, pool: RatingPool) -> bool:
    """A federation's admins publish the rating lists of its pools."""
    return is_federation_admin(user, pool.rated_discipline.federation)


@register("rating_pool.recompute")
def _rating_pool_recompute(user: Any, pool: RatingPool) -> bool:
    """A federation's admins may have its pools recomputed from scratch."""
    return is_federation_admin(user, pool.rated_discipline.federation)


@register("rating_pool.rate_archive")
def _rating_pool_rate_archive(user: Any, pool: RatingPool) -> bool:
    """A federation's admins choose which imported archives count for its pools."""
    return is_federation_admin(user, pool.rated_discipline.federation)
