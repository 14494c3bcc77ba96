"""Rating data for the page, export and API tests, written directly as rows
(computing ratings is ratings.services' business, tested elsewhere)."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from django.utils import timezone

from clubs.models import Federation, FederationDiscipline, Player, RatingSystem
from games.models import Match, MatchState, ResultStatus
from ratings.models import PlayerRating, RatingChange, RatingList, RatingListEntry, RatingPool
from tests.factories import DisciplineFactory, FederationFactory, MatchFactory, PlayerFactory


def make_pool(
    federation: Federation | None = None,
    *,
    system: str = RatingSystem.FIBS,
    code: str = "short-standard",
    name: str = "Short nardy",
) -> RatingPool:
    federation = federation or FederationFactory()
    discipline = DisciplineFactory(code=code, name=name)
    link = FederationDiscipline.objects.create(
        federation=federation, discipline=discipline, rating_system=system
    )
    return RatingPool.objects.create(rated_discipline=link)


def make_list(
    pool: RatingPool,
    date: datetime.date,
    rows: Sequence[dict[str, Any]],
    *,
    published: bool = True,
) -> RatingList:
    """A list with an entry per row (keys: player, rating, and optionally rank,
    experience, rd, matches, provisional, change); ranks follow the order given."""
    rating_list = RatingList.objects.create(
        pool=pool,
        date=date,
        published_at=timezone.now() if published else None,
    )
    RatingListEntry.objects.bulk_create(
        RatingListEntry(
            rating_list=rating_list,
            player=row["player"],
            rank=row.get("rank", number),
            rating=row["rating"],
            experience=row.get("experience", 500),
            rd=row.get("rd"),
            matches=row.get("matches", 10),
            provisional=row.get("provisional", False),
            change=row.get("change"),
        )
        for number, row in enumerate(rows, start=1)
    )
    return rating_list


def make_ratings(pool: RatingPool, count: int, *, base: float = 1600.0) -> list[PlayerRating]:
    """``count`` players of the pool's federation with current ratings, the best first."""
    federation = pool.rated_discipline.federation
    return [
        PlayerRating.objects.create(
            pool=pool,
            player=PlayerFactory(federation=federation),
            rating=base - 7.5 * number,
            experience=600,
            matches=12,
        )
        for number in range(count)
    ]


def finished_match(
    player: Player,
    opponent: Player,
    *,
    won: bool,
    length: int = 5,
    at: datetime.datetime,
    discipline: Any = None,
) -> Match:
    match: Match = MatchFactory(
        player1=player,
        player2=opponent,
        federation=player.federation,
        discipline=discipline or DisciplineFactory(),
        length=length,
        state=MatchState.FINISHED,
        result_status=ResultStatus.CONFIRMED,
        score1=length if won else 1,
        score2=1 if won else length,
        winner=1 if won else 2,
        finished_at=at,
    )
    return match


def make_history(
    pool: RatingPool,
    player: Player,
    count: int,
    *,
    start: datetime.datetime | None = None,
    opponents: Sequence[Player] | None = None,
) -> list[RatingChange]:
    """``count`` FIBS changes of ``player``, one rated match a week, won and lost in
    turn, each against a new opponent (or the ones given, in turn)."""
    start = start or datetime.datetime(2024, 1, 6, 15, 0, tzinfo=datetime.UTC)
    federation = pool.rated_discipline.federation
    rating, experience = 1500.0, 0
    changes = []
    for number in range(count):
        opponent = (
            opponents[number % len(opponents)]
            if opponents
            else PlayerFactory(federation=federation)
        )
        won = number % 2 == 0
        at = start + datetime.timedelta(weeks=number)
        match = finished_match(
            player, opponent, won=won, length=5, at=at, discipline=pool.rated_discipline.discipline
        )
        delta = (10.0 + number) * (1 if won else -0.5)
        changes.append(
            RatingChange.objects.create(
                pool=pool,
                player=player,
                match=match,
                played_at=at,
                rating_before=rating,
                rating_after=rating + delta,
                experience_before=experience,
                experience_after=experience + 5,
            )
        )
        rating += delta
        experience += 5
    PlayerRating.objects.update_or_create(
        pool=pool,
        player=player,
        defaults={"rating": rating, "experience": experience, "matches": count},
    )
    return changes
