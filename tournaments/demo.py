"""Demo tournaments of the ФСНР, built through the services as the system (``by=None``).

* a **finished** Swiss until three losses in long nardy (matches to 3),
  32 players;
* a **running** main flight with progressive consolation and a last chance in
  short nardy (main matches to 9, consolation 7, last chance 5), 24 players:
  the main's first two rounds are closed, its third round and the
  consolation's first round are under way with some results still to come.

Every finished match is played move by move (games.demo_player: a one-ply
heuristic player, weaker the lower its entry's rating, with dice seeded by the
table) and stored through games.services.record_games, so each has a replay of
every game, and its result, the standings and the ratings follow from the
games played: the better rated player wins more often, not always.  One match
of the current round has its first games recorded (a live score).  Everything
is seeded, so the data is the same on every machine.  Safe to run again: a
tournament that exists (by its slug) is left alone.  Needs the clubs demo.

Every round is played on its own date and hour (``Schedule``): the services
stamp "now" on what they record, so the demo then dates each round, match and
result report as the event had them, several rounds a day over several days.
The ratings are computed from these dates (a match is rated when it
finished), so a player's rating history spreads over the tournament's days
instead of one instant, the time the demo was loaded.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from clubs.models import Discipline, Federation, Player
from games import demo_player
from games.models import Match, ResultReport
from tournaments import services
from tournaments.formats import flights
from tournaments.models import Pairing, Round, Tournament, TournamentState

SWISS_SLUG = "friendship-cup-long"
KNOCKOUT_SLUG = "moscow-open-short"


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


# The round closes this long after it started, once its last match ended.
ROUND_LENGTH = datetime.timedelta(hours=2, minutes=45)
REPORT_DELAY = datetime.timedelta(minutes=3)
# A recorded match: its first turn this long after the round starts; a match still
# being played has its first games recorded, the last turn this long before now.
MATCH_SETUP = datetime.timedelta(minutes=2)
LIVE_GAMES = 2
LIVE_LAG = datetime.timedelta(minutes=1)


@dataclass(frozen=True)
class Schedule:
    """When each round of a demo tournament is played: ``per_day`` rounds a day from
    ``first_day``, the first at 10:00 local time and the next ones three hours apart,
    never later than ``not_after`` (a running tournament's current round started
    a while ago, not later today)."""

    first_day: datetime.date
    per_day: int
    not_after: datetime.datetime | None = None

    def round_start(self, index: int) -> datetime.datetime:
        day = self.first_day + datetime.timedelta(days=index // self.per_day)
        hour = 10 + 3 * (index % self.per_day)
        start = timezone.make_aware(datetime.datetime.combine(day, datetime.time(hour)))
        if self.not_after is not None:
            start = min(start, self.not_after)
        return start


def _date_round(rnd: Round, start: datetime.datetime) -> None:
    # The services stamp the moment they run; the demo replays a dated event.
    Round.objects.filter(pk=rnd.pk).update(started_at=start)
    rnd.started_at = start


def _date_result(match_id: int, start: datetime.datetime, finish: datetime.datetime) -> None:
    """The match as played from ``start`` to ``finish``, its result entered just after."""
    Match.objects.filter(pk=match_id).update(started_at=start, finished_at=finish)
    ResultReport.objects.filter(match_id=match_id).update(
        created_at=finish + REPORT_DELAY, decided_at=finish + REPORT_DELAY
    )


def _close(rnd: Round, start: datetime.datetime) -> None:
    services.close_round(rnd, by=None)
    Round.objects.filter(pk=rnd.pk).update(closed_at=start + ROUND_LENGTH)


def _strength(rating: float) -> demo_player.Side:
    """The demo player of an entry: the lower its rating, the more often it plays a
    random legal play instead of the heuristic's (5 % of turns at 1950, 40 % at 1350),
    so the better rated player wins more often."""
    return demo_player.Side(blunder=min(0.45, max(0.05, 0.05 + (1950 - rating) / 600 * 0.35)))


def _record(
    pairing: Pairing,
    ratings: dict[int, float],
    start: datetime.datetime,
    *,
    most_games: int | None = None,
    end_by: datetime.datetime | None = None,
) -> datetime.datetime:
    """Play the pairing's match move by move through games.services (all of it, or its
    first ``most_games`` games: a match still being played), the result scored by the
    engine; return when its last turn was played.  The dice and plays come from a
    generator seeded by the table, so every machine records the same games."""
    match = pairing.match
    assert match is not None and pairing.entry2_id is not None
    # The table played on an electronic board: the match is recorded move by move.
    Match.objects.filter(pk=match.pk).update(recorded=True)
    match.recorded = True
    rnd = pairing.round
    seed = f"{rnd.tournament.slug}:{rnd.flight}:{rnd.number}:{pairing.table}"
    sides = (_strength(ratings[pairing.entry1_id]), _strength(ratings[pairing.entry2_id]))
    demo_player.play_match(match, random.Random(seed), sides, most_games=most_games)
    return demo_player.date_turns(
        match,
        start + MATCH_SETUP,
        random.Random(f"{seed}:clock"),
        within=ROUND_LENGTH - MATCH_SETUP - 2 * REPORT_DELAY,
        end_by=end_by,
    )


def _play(
    rnd: Round,
    ratings: dict[int, float],
    start: datetime.datetime,
    share: float = 1.0,
    *,
    live_tables: int = 0,
) -> None:
    """Start the round at ``start`` and play ``share`` of its matches to their end, move
    by move (their results are the engine's scores of the games played); the first
    ``live_tables`` tables still being played have their first games recorded (a
    live score)."""
    services.start_round(rnd, by=None)
    _date_round(rnd, start)
    pairings = [
        p
        for p in rnd.pairings.select_related("match", "round__tournament").order_by("table")
        if p.match_id
    ]
    decided = round(len(pairings) * share)
    for pairing in pairings[:decided]:
        assert pairing.match_id is not None
        _date_result(pairing.match_id, start, _record(pairing, ratings, start))
    for table, pairing in enumerate(pairings[decided:]):  # still being played
        if table < live_tables:
            _record(
                pairing, ratings, start, most_games=LIVE_GAMES, end_by=timezone.now() - LIVE_LAG
            )
        Match.objects.filter(pk=pairing.match_id).update(started_at=start)


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


SWISS_STARTS_ON = datetime.date(2025, 5, 17)
# Long nardy matches to 3, not 7: every match is played move by move, and a
# 7-point match (some 850 turns) is three times the engine's work of a 3-point one;
# the whole Swiss to 7 would make ``load_demo`` take about 40 s instead of 15.
SWISS_MATCH_LENGTH = 3


def _swiss(federation: Federation) -> DemoTournament:
    name = "Кубок Дружбы — длинные нарды"
    if Tournament.objects.filter(federation=federation, slug=SWISS_SLUG).exists():
        return DemoTournament(SWISS_SLUG, name, False)
    rng = random.Random(2025)
    schedule = Schedule(SWISS_STARTS_ON, per_day=3)
    tournament, ratings = _create(
        federation,
        Discipline.objects.get(code="long"),
        _players(federation, 32),
        rng,
        name=name,
        slug=SWISS_SLUG,
        format="swiss",
        max_losses=3,
        match_length=SWISS_MATCH_LENGTH,
        starts_on=SWISS_STARTS_ON,
        clock_mode="increment",
        clock_reserve_seconds=14 * 60,
        clock_move_seconds=8,
        tie_breaks=["BH-C1", "BH", "SB", "DE"],
    )
    index = 0
    while True:
        try:
            rnd = services.pair_next_round(tournament, by=None)
        except ValidationError as error:
            if getattr(error, "code", None) == "event_finished":
                break
            raise
        start = schedule.round_start(index)
        _play(rnd, ratings, start)
        _close(rnd, start)
        index += 1
    services.finish_tournament(tournament, by=None)
    return DemoTournament(SWISS_SLUG, name, True)


def _knockout(federation: Federation) -> DemoTournament:
    name = "Открытый турнир Москвы — короткие нарды"
    if Tournament.objects.filter(federation=federation, slug=KNOCKOUT_SLUG).exists():
        return DemoTournament(KNOCKOUT_SLUG, name, False)
    rng = random.Random(2026)
    # Under way: a round a day from two days ago; the current round (main round 3 and
    # the consolation's first) started this morning, or three hours ago if that is later.
    today = timezone.localdate()
    now = timezone.now()
    schedule = Schedule(
        today - datetime.timedelta(days=2), per_day=1, not_after=now - datetime.timedelta(hours=3)
    )
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
        match_lengths={
            flights.MAIN: {"default": 9, "final": 11},
            flights.CONSOLATION: 7,
            flights.LAST_CHANCE: 5,
        },
        starts_on=schedule.first_day,
        clock_mode="increment",
        clock_reserve_seconds=18 * 60,
        clock_move_seconds=8,
    )
    for index in range(2):
        rnd = services.pair_next_round(tournament, by=None)
        start = schedule.round_start(index)
        _play(rnd, ratings, start)
        _close(rnd, start)
    current = schedule.round_start(2)
    _play(
        services.pair_next_round(tournament, by=None),
        ratings,
        current,
        share=0.5,
        live_tables=1,
    )
    consolation = services.pair_next_round(tournament, by=None, flight=flights.CONSOLATION)
    _play(consolation, ratings, current + datetime.timedelta(minutes=10), share=0.5)
    services.compute_standings(tournament)
    return DemoTournament(KNOCKOUT_SLUG, name, True)


def load() -> list[DemoTournament]:
    federation = Federation.objects.get(slug="fsnr")
    out = []
    for build in (_swiss, _knockout):
        with transaction.atomic():
            out.append(build(federation))
    return out
