"""The incremental path equals a recomputation from scratch, in the database.

A random history of 10,000 matches (built with bulk_create), then the way
results really arrive: a new result, a late result and a corrected result in
the past, each through ``update_after_match`` (what the task runs).  The
ratings and every history row must then be identical to a recomputation of
the whole pool from scratch, and to the pure maths over the same matches.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest

from clubs.models import FederationDiscipline, Player
from games.models import Match, MatchState, ResultStatus
from ratings import services
from ratings.core import FibsSettings, Glicko2Settings, recompute
from ratings.models import PlayerRating, RatingChange
from tests.factories import DisciplineFactory, FederationFactory
from tests.ratings.test_services import core_matches, history_values, rating_values

pytestmark = pytest.mark.django_db

MATCHES = 10_000
PLAYERS = 150
START = dt.datetime(2023, 1, 2, 9, 0, tzinfo=dt.UTC)
SPAN_MINUTES = 2 * 365 * 24 * 60
LENGTHS = [1, 3, 5, 7, 9, 11, 13, 17, 25]


def _match(one: Player, two: Player, rng: random.Random, at: dt.datetime, **extra: Any) -> Match:
    length = extra.pop("length", rng.choice(LENGTHS))
    winner = rng.choice((1, 2))
    return Match(
        player1=one,
        player2=two,
        discipline_id=extra.pop("discipline_id"),
        federation_id=one.federation_id,
        length=length,
        state=MatchState.FINISHED,
        result_status=extra.pop("result_status", ResultStatus.CONFIRMED),
        winner=winner,
        score1=length if winner == 1 else 0,
        score2=length if winner == 2 else 0,
        finished_at=at,
        **extra,
    )


def random_history(rated: FederationDiscipline, seed: int) -> list[Player]:
    """10,000 matches in random id order against time, with ties in time and
    unrated matches (forfeits, money sessions, outsiders, unconfirmed) mixed in."""
    rng = random.Random(seed)
    players = Player.objects.bulk_create(
        Player(name_native=f"Игрок {n}", name_latin=f"Igrok {n}", federation=rated.federation)
        for n in range(PLAYERS)
    )
    outsiders = Player.objects.bulk_create(
        Player(name_native=f"Гость {n}", name_latin=f"Gost {n}", federation=FederationFactory())
        for n in range(2)
    )
    discipline_id = rated.discipline_id
    matches = []
    at = START
    for number in range(MATCHES):
        if number % 40:  # now and then several matches end at the same moment
            at = START + dt.timedelta(minutes=rng.randrange(SPAN_MINUTES))
        one, two = rng.sample(players, 2)
        extra: dict[str, Any] = {"discipline_id": discipline_id}
        kind = rng.random()
        if kind < 0.01:
            extra["forfeit"] = True
        elif kind < 0.02:
            extra["length"] = 0
        elif kind < 0.03:
            two = rng.choice(outsiders)
        elif kind < 0.04:
            extra["result_status"] = ResultStatus.PENDING
        matches.append(_match(one, two, rng, at, **extra))
    Match.objects.bulk_create(matches, batch_size=1000)
    return players


@pytest.mark.parametrize("system", ["fibs", "glicko2"])
def test_incremental_updates_equal_a_recomputation_from_scratch(system: str) -> None:
    rated = FederationDiscipline.objects.create(
        federation=FederationFactory(),
        discipline=DisciplineFactory(),
        rating_system=system,
        glicko_period_days=30,
    )
    players = random_history(rated, seed=20240601)
    pool = services.ensure_pool(rated)
    first = services.recompute_pool(pool)
    rated_count = services.rated_matches(pool).count()
    assert first.matches == rated_count > 0.95 * MATCHES
    assert RatingChange.objects.filter(pool=pool).count() == (
        2 * rated_count if system == "fibs" else first.rows
    )
    rng = random.Random(7)
    end = START + dt.timedelta(minutes=SPAN_MINUTES + 60)

    # A new result after everything computed: the incremental path.
    newest = Match.objects.create(
        **_fields(_match(*rng.sample(players, 2), rng, end, discipline_id=rated.discipline_id))
    )
    [outcome] = services.update_after_match(newest.pk)
    assert outcome.action == ("applied" if system == "fibs" else "recomputed")

    # A late result in the past: recomputed from it.
    late_at = START + dt.timedelta(days=620, minutes=17)
    late = Match.objects.create(
        **_fields(_match(*rng.sample(players, 2), rng, late_at, discipline_id=rated.discipline_id))
    )
    [outcome] = services.update_after_match(late.pk)
    assert (outcome.action, outcome.start) == ("recomputed", (late_at, late.pk))

    # A corrected result further in the past (an override: the other winner, another length).
    corrected = (
        services.rated_matches(pool)
        .filter(finished_at__lt=START + dt.timedelta(days=560))
        .order_by("-finished_at", "-id")
        .first()
    )
    assert corrected is not None
    Match.objects.filter(pk=corrected.pk).update(
        winner=3 - corrected.winner, length=corrected.length + 2
    )
    [outcome] = services.update_after_match(corrected.pk)
    assert (outcome.action, outcome.start) == (
        "recomputed",
        (corrected.finished_at, corrected.pk),
    )
    # Delivered again: nothing changes.
    for match_id in (corrected.pk, late.pk, newest.pk):
        assert [o.action for o in services.update_after_match(match_id)] == ["unchanged"]

    incremental = rating_values(pool), history_values(pool)
    services.recompute_pool(pool)
    scratch = rating_values(pool), history_values(pool)
    assert len(incremental[1]) == len(scratch[1])
    assert incremental[0] == scratch[0]  # identical PlayerRating values
    assert incremental[1] == scratch[1]  # identical history rows

    # And both are the pure maths over the same matches.
    settings: Any = FibsSettings() if system == "fibs" else Glicko2Settings()
    state, rows = recompute(settings, core_matches(pool, list(services.rated_matches(pool))))
    assert len(rows) == len(scratch[1])
    stored = {
        row.player_id: (row.rating, row.rd, row.matches) for row in PlayerRating.objects.all()
    }
    assert stored == {p: (s.rating, s.rd, s.matches) for p, s in state.players.items()}


def _fields(match: Match) -> dict[str, Any]:
    return {
        f.attname: getattr(match, f.attname)
        for f in Match._meta.concrete_fields
        if f.attname != "id" and getattr(match, f.attname) is not None
    }
