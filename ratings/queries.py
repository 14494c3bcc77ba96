"""Read-only questions other code asks the ratings app (tournament seeding, pages)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import models
from django.db.models import QuerySet

from clubs.models import Discipline, Federation, Player
from ratings.models import PlayerRating, RatingChange, RatingPool


def _pk(obj: models.Model | int) -> int:
    return obj if isinstance(obj, int) else int(obj.pk)


def pool_for(federation: Federation | int, discipline: Discipline | int) -> RatingPool | None:
    """The federation's pool for a discipline, or None when it does not rate it (yet)."""
    return (
        RatingPool.objects.select_related("rated_discipline", "rated_discipline__federation")
        .filter(
            rated_discipline__federation_id=_pk(federation),
            rated_discipline__discipline_id=_pk(discipline),
        )
        .first()
    )


def current_ratings(
    federation: Federation | int, discipline: Discipline | int, player_ids: Iterable[int]
) -> dict[int, float]:
    """Current ratings of ``player_ids`` in the federation's pool for the discipline.

    Only players with a rating are in the dict: a player without a rated
    match (or a discipline the federation does not rate) is simply missing,
    so seeding can put unrated players after rated ones.  One query.
    """
    wanted = sorted({int(p) for p in player_ids})
    if not wanted:
        return {}
    return dict(
        PlayerRating.objects.filter(
            pool__rated_discipline__federation_id=_pk(federation),
            pool__rated_discipline__discipline_id=_pk(discipline),
            player_id__in=wanted,
        ).values_list("player_id", "rating")
    )


def player_history(pool: RatingPool | int, player: Player | int) -> QuerySet[RatingChange]:
    """A player's history rows in a pool, oldest first, with the match and both its players."""
    return (
        RatingChange.objects.filter(pool_id=_pk(pool), player_id=_pk(player))
        .select_related("match", "match__player1", "match__player2")
        .order_by("played_at", "match_id")
    )
