"""Demo tournaments of the ФСНР, built through the services as the system (``by=None``).

* a **finished** Swiss until three losses in long nardy (matches to 7),
  32 players, every result entered through games.services;
* a **running** main flight with progressive consolation and a last chance in
  short nardy (main matches to 9, consolation 7, last chance 5), 24 players:
  the main's first two rounds are closed, its third round and the
  consolation's first round are under way with some results still to come.

Results come from a seeded random generator (the better rated player wins
more often), so the data is the same on every machine.  Safe to run again: a
tournament that exists (by its slug) is left alone.  Needs the clubs demo.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction

from clubs.models import Discipline, Federation, Player
from games import services as games_services
from tournaments import services
from tournaments.models import Pairing, Round, Tournament, TournamentState

SWISS_SLUG = "friendship-cup-long"
KNOCKOUT_SLUG = "moscow-open-short"
REASON = "Demo result"


@dataclass(frozen=True)
class DemoTournament:
    slug: str
    name: str
    created: bool


def _players(federation: Federation, count: int, offset: int = 0) -> list[Player]:
    players = list(
        Player.objects.filter(federation=federation, merged_into__isnull=True).order_by(
            "membership_number", "id"
        )
    )
    if len(players) < count + offset:
        raise RuntimeError(
            f"the tournaments demo needs {count + offset} players of {federation}; "
            "load the clubs demo first"
        )
    return players[offset : offset + count]


def _result(pairing: Pairing, rng: random.Random, ratings: dict[int, float]) -> None:
    """A plausible result for the pairing's match, entered as an official override."""
    match = pairing.match
    assert match is not None and pairing.entry2_id is not None
    gap = ratings[pairing.entry1_id] - ratings[pairing.entry2_id]
    first_wins = rng.random() < 1 / (1 + 10 ** (-gap / 400))
    loser_points = rng.randint(0, match.length - 1)
    score = (match.length, loser_points) if first_wins else (loser_points, match.length)
    games_services.override_result(match, by=None, score1=score[0], score2=score[1], reason=REASON)


def _play(rnd: Round, rng: random.Random, ratings: dict[int, float], share: float = 1.0) -> None:
    """Start the round and enter results for ``share`` of its matches."""
    services.start_round(rnd, by=None)
    pairings = [p for p in rnd.pairings.select_related("match").order_by("table") if p.match_id]
    decided = round(len(pairings) * share)
    for pairing in pairings[:decided]:
        _result(pairing, rng, ratings)


def _create(
    federation: Federation,
    discipline: Discipline,
    players: list[Player],
    rng: random.Random,
    **values: object,
) -> tuple[Tournament, dict[int, float]]:
    tournament = services.create_tournament(
        by=None, federation=federation, discipline=discipline, **values
    )
    services.set_state(tournament, TournamentState.REGISTRATION, by=None)
    ratings: dict[int, float] = {}
    for player in players:
        entry = services.add_entry(
            tournament, player, by=None, rating=float(rng.randint(1350, 1950))
        )
        ratings[entry.pk] = entry.rating or 1500.0
    services.start_tournament(tournament, by=None)
    return tournament, ratings


def _swiss(federation: Federation) -> DemoTournament:
    name = "Кубок Дружбы — длинные нарды"
    if Tournament.objects.filter(federation=federation, slug=SWISS_SLUG).exists():
        return DemoTournament(SWISS_SLUG, name, False)
    rng = random.Random(2025)
    tournament, ratings = _create(
        federation,
        Discipline.objects.get(code="long"),
        _players(federation, 32),
        rng,
        name=name,
        slug=SWISS_SLUG,
        format="swiss",
        max_losses=3,
        match_length=7,
        starts_on=datetime.date(2025, 5, 17),
        clock_mode="increment",
        clock_reserve_seconds=14 * 60,
        clock_move_seconds=8,
        tie_breaks=["BH-C1", "BH", "SB", "DE"],
    )
    while True:
        try:
            rnd = services.pair_next_round(tournament, by=None)
        except ValidationError as error:
            if getattr(error, "code", None) == "event_finished":
                break
            raise
        _play(rnd, rng, ratings)
        services.close_round(rnd, by=None)
    services.finish_tournament(tournament, by=None)
    return DemoTournament(SWISS_SLUG, name, True)


def _knockout(federation: Federation) -> DemoTournament:
    name = "Открытый турнир Москвы — короткие нарды"
    if Tournament.objects.filter(federation=federation, slug=KNOCKOUT_SLUG).exists():
        return DemoTournament(KNOCKOUT_SLUG, name, False)
    rng = random.Random(2026)
    tournament, ratings = _create(
        federation,
        Discipline.objects.get(code="short"),
        _players(federation, 24, offset=20),
        rng,
        name=name,
        slug=KNOCKOUT_SLUG,
        format="main_consolation",
        progressive_consolation=True,
        last_chance=True,
        match_length=9,
        match_lengths={"main": {"default": 9, "final": 11}, "consolation": 7, "last_chance": 5},
        starts_on=datetime.date.today(),
        clock_mode="increment",
        clock_reserve_seconds=18 * 60,
        clock_move_seconds=8,
    )
    for _ in range(2):
        rnd = services.pair_next_round(tournament, by=None)
        _play(rnd, rng, ratings)
        services.close_round(rnd, by=None)
    _play(services.pair_next_round(tournament, by=None), rng, ratings, share=0.5)
    _play(
        services.pair_next_round(tournament, by=None, flight="consolation"), rng, ratings, share=0.5
    )
    services.compute_standings(tournament)
    return DemoTournament(KNOCKOUT_SLUG, name, True)


def load() -> list[DemoTournament]:
    federation = Federation.objects.get(slug="fsnr")
    out = []
    for build in (_swiss, _knockout):
        with transaction.atomic():
            out.append(build(federation))
    return out
