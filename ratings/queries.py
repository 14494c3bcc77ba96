"""Read functions of the ratings app.

``current_ratings``, ``pool_for`` and ``player_history`` serve other apps
(tournament seeding) and the services; the rest serve the rating pages,
their exports and the API.  Each is a fixed number of queries whatever the
number of rows (the pages' tests pin them).  What a visitor may read follows
clubs.permissions.visible_federations: public federations for everyone, and
the ones a signed-in user administers or belongs to.

A list's rows (``Row``) look the same whether they come from a published
RatingList or — "live" — from the players' current ratings, which are ranked
here by the same rules as a published list (ratings.core.lists).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import models
from django.db.models import Count, Exists, OuterRef, QuerySet, Subquery
from django.utils import timezone

from clubs import permissions
from clubs.models import Discipline, Federation, FederationDiscipline, Player
from ratings import adapters
from ratings.core.lists import rating_list
from ratings.core.state import PlayerState, PoolState
from ratings.models import PlayerRating, RatingChange, RatingList, RatingListEntry, RatingPool


def _pk(obj: models.Model | int) -> int:
    return obj if isinstance(obj, int) else int(obj.pk)


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


POOL_JOINS = ("rated_discipline", "rated_discipline__federation", "rated_discipline__discipline")


@dataclass(frozen=True, slots=True)
class Row:
    """One line of a rating list, published or live."""

    rank: int
    player: Player
    rating: float
    experience: int
    rd: float | None
    matches: int
    provisional: bool
    change: float | None


# --- Pools


def visible_pools(user: Any) -> QuerySet[RatingPool]:
    """Pools of the federations ``user`` may read, with their federation and discipline."""
    return RatingPool.objects.filter(
        rated_discipline__federation__in=permissions.visible_federations(user)
    ).select_related(*POOL_JOINS)


def _has_entries() -> Exists:
    # Publishing refuses empty lists (ratings.services); one published before that
    # rule is never anybody's "latest list".
    return Exists(RatingListEntry.objects.filter(rating_list=OuterRef("pk")))


def with_latest_list(pools: QuerySet[RatingPool]) -> QuerySet[RatingPool]:
    """Pools annotated with ``latest_list_id`` and ``latest_list_date``: their
    latest published list with players (None when nothing is published yet)."""
    latest = RatingList.objects.filter(
        _has_entries(), pool=OuterRef("pk"), published_at__isnull=False
    ).order_by("-date")
    return pools.annotate(
        latest_list_id=Subquery(latest.values("pk")[:1]),
        latest_list_date=Subquery(latest.values("date")[:1]),
    )


def rated_discipline(user: Any, slug: str, code: str) -> FederationDiscipline:
    """A visible federation's rated discipline with its federation, discipline and
    pool (``pool`` raises RatingPool.DoesNotExist until the pool is created): one query."""
    return FederationDiscipline.objects.select_related("federation", "discipline", "pool").get(
        federation__slug=slug,
        discipline__code=code,
        federation__in=permissions.visible_federations(user),
    )


def pool_of(link: FederationDiscipline) -> RatingPool | None:
    try:
        return link.pool  # type: ignore[no-any-return]
    except RatingPool.DoesNotExist:
        return None


def is_glicko(pool: RatingPool) -> bool:
    return adapters.is_glicko(pool)


# --- Lists


def published_lists(pool: RatingPool) -> QuerySet[RatingList]:
    """The pool's published lists, the latest first, with ``entry_count``."""
    return (
        RatingList.objects.filter(pool=pool, published_at__isnull=False)
        .annotate(entry_count=Count("entries"))
        .order_by("-date")
    )


def latest_list(pool: RatingPool) -> RatingList | None:
    """The pool's latest published list with players: what its page shows by default."""
    return (
        RatingList.objects.filter(_has_entries(), pool=pool, published_at__isnull=False)
        .order_by("-date")
        .first()
    )


def published_list(pool: RatingPool, date: datetime.date) -> RatingList:
    """The list published at ``date`` (RatingList.DoesNotExist for a draft or none)."""
    return RatingList.objects.get(pool=pool, date=date, published_at__isnull=False)


def list_entries(rating_list_: RatingList) -> QuerySet[RatingListEntry]:
    return (
        RatingListEntry.objects.filter(rating_list=rating_list_)
        .select_related("player")
        .order_by("rank", "player_id")
    )


def list_rows(rating_list_: RatingList) -> list[Row]:
    """The rows of a published list: one query."""
    return [
        Row(
            rank=entry.rank,
            player=entry.player,
            rating=entry.rating,
            experience=entry.experience,
            rd=entry.rd,
            matches=entry.matches,
            provisional=entry.provisional,
            change=entry.change,
        )
        for entry in list_entries(rating_list_)
    ]


def live_rows(pool: RatingPool, previous: RatingList | None) -> list[Row]:
    """The players' current ratings ranked like a list, ``change`` against the
    ``previous`` (published) list: two queries (one without a previous list)."""
    settings = adapters.settings_for(pool)
    ratings = {
        rating.player_id: rating
        for rating in PlayerRating.objects.filter(
            pool=pool, matches__gte=settings.list_min_matches
        ).select_related("player")
    }
    state = PoolState(
        settings,
        {
            player_id: PlayerState(
                rating=rating.rating,
                experience=rating.experience,
                matches=rating.matches,
                rd=rating.rd,
                volatility=rating.volatility,
                last_played_at=rating.last_played_at,
            )
            for player_id, rating in ratings.items()
        },
    )
    before: dict[int, float] = {}
    if previous is not None:
        before = dict(
            RatingListEntry.objects.filter(rating_list=previous).values_list("player_id", "rating")
        )
    built = rating_list(state, date=timezone.localdate(), previous=before)
    return [
        Row(
            rank=entry.rank,
            player=ratings[entry.player].player,
            rating=entry.rating,
            experience=entry.experience,
            rd=entry.rd,
            matches=entry.matches,
            provisional=entry.provisional,
            change=entry.change,
        )
        for entry in built.entries
    ]


# --- Players


def player_rating(player_id: int, pool: RatingPool) -> PlayerRating | None:
    return PlayerRating.objects.filter(pool=pool, player_id=player_id).first()


def player_ratings(user: Any, player: Player) -> list[PlayerRating]:
    """The player's current rating in every pool ``user`` may read: one query."""
    return list(
        PlayerRating.objects.filter(
            player=player,
            pool__rated_discipline__federation__in=permissions.visible_federations(user),
        )
        .select_related(*(f"pool__{join}" for join in POOL_JOINS))
        .order_by(
            "pool__rated_discipline__federation__name", "pool__rated_discipline__discipline__name"
        )
    )


def opponent(change: RatingChange) -> Player | None:
    """The other player of the change's match (None for a row without a match)."""
    match = change.match
    if match is None:
        return None
    return match.player2 if match.player1_id == change.player_id else match.player1


def outcome(change: RatingChange) -> str | None:
    """The player's result, "won" or "lost"; None while the match has no winner."""
    match = change.match
    if match is None or match.winner is None:
        return None
    side = 1 if match.player1_id == change.player_id else 2
    return "won" if match.winner == side else "lost"


def score(change: RatingChange) -> tuple[int, int] | None:
    """The match score from the player's side."""
    match = change.match
    if match is None or match.score1 is None or match.score2 is None:
        return None
    if match.player1_id == change.player_id:
        return match.score1, match.score2
    return match.score2, match.score1


def summary(changes: Sequence[RatingChange]) -> dict[str, float] | None:
    """First, last, highest and lowest rating of a history (None when empty)."""
    if not changes:
        return None
    after = [change.rating_after for change in changes]
    return {
        "start": changes[0].rating_before,
        "current": after[-1],
        "highest": max(after),
        "lowest": min(after),
    }
