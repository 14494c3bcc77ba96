"""A whole record stored at once (services.record_games) against the same record entered
turn by turn (services.record_turn): the same rows, the same refusals."""

from __future__ import annotations

import random
from typing import Any
from unittest import mock

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from engine.records.notation import format_play
from engine.rules import game as eg
from engine.rules import match as em
from engine.rules.dice import RecordedDice
from games import adapters, demo_player, services
from games.models import ClockMode, Game, Match, MatchState, ReportSource, ResultStatus, Turn
from games.models import TurnKind as K
from tests.factories import DisciplineFactory, PlayerFactory

pytestmark = pytest.mark.django_db

T = adapters.TurnInput


def _match(world: Any, *, length: int = 5, clocked: bool = True, short: bool = True) -> Match:
    discipline = (
        world.discipline
        if short
        else DisciplineFactory(
            code="long",
            name="Long nardy",
            variant="long",
            scoring_preset="long-masters",
            cube=False,
        )
    )
    return services.create_match(
        by=None,
        player1=world.member,
        player2=world.second_club_member,
        discipline=discipline,
        length=length,
        recorded=True,
        clock_mode=ClockMode.INCREMENT if clocked else ClockMode.NONE,
        clock_reserve_seconds=600 if clocked else 0,
        clock_move_seconds=8 if clocked else 0,
    )


def _random_record(match: Match, seed: int) -> list[list[adapters.TurnInput]]:
    """A whole match of random legal actions with the cube (doubles, takes, passes) and
    resignations, played in the engine alone: every kind of action a record holds."""
    rng = random.Random(seed)
    record = em.Match(adapters.rules_for(match), length=match.length)
    games: list[list[adapters.TurnInput]] = []
    while not record.finished:
        white, black = rng.sample(range(1, 7), 2)
        turns = [T(K.OPENING, (white, black))]
        state = adapters.apply_turn(record.new_game(), turns[0])
        while not state.finished:
            if state.phase is eg.Phase.TAKE:
                turn = T(K.TAKE if rng.random() < 0.7 else K.PASS)
            elif state.phase is eg.Phase.RESIGN:
                turn = T(K.ACCEPT)
            elif state.phase is eg.Phase.ROLL and eg.can_double(state) and rng.random() < 0.04:
                turn = T(K.DOUBLE)
            elif state.phase is eg.Phase.ROLL and state.turn_number > 30 and rng.random() < 0.02:
                turn = T(K.RESIGN, level="single")
            else:
                if state.phase is eg.Phase.ROLL:
                    dice: tuple[int, ...] = (rng.randint(1, 6), rng.randint(1, 6))
                    rolled = eg.roll(state, RecordedDice([dice]))
                else:
                    dice, rolled = state.dice, state
                turn = T(K.PLAY, dice, format_play(rng.choice(eg.legal_plays(rolled))))
            turns.append(turn)
            state = adapters.apply_turn(state, turn)
        assert state.result is not None
        record = record.record(state.result)
        games.append(turns)
    return games


def _turn_by_turn(match: Match, games: list[list[adapters.TurnInput]]) -> None:
    for actions in games:
        for number, turn in enumerate(actions, start=1):
            services.record_turn(
                match,
                by=None,
                number=number,
                kind=turn.kind,
                dice=list(turn.dice),
                moves=turn.moves,
                level=turn.level,
            )


def _rows(match: Match) -> dict[str, Any]:
    match.refresh_from_db()
    return {
        "match": (
            match.state,
            match.result_status,
            match.score1,
            match.score2,
            match.winner,
            match.started_at,
            match.finished_at,
        ),
        "games": list(
            Game.objects.filter(match=match)
            .order_by("number")
            .values_list(
                "number",
                "score1_before",
                "score2_before",
                "crawford",
                "winner",
                "result",
                "multiplier",
                "cube",
                "points",
                "end",
            )
        ),
        "turns": list(
            Turn.objects.filter(game__match=match)
            .order_by("game__number", "number")
            .values_list(
                "game__number",
                "number",
                "side",
                "kind",
                "dice",
                "moves",
                "level",
                "position_id",
                "clock1_ms",
                "clock2_ms",
                "clock_source",
                "clock_entered_by",
                "recorded_by",
                "recorded_at",
                "undone_at",
            )
        ),
        "reports": list(
            match.reports.order_by("pk").values_list(
                "source",
                "reported_by",
                "reporter_side",
                "score1",
                "score2",
                "games",
                "status",
                "deadline",
                "created_at",
                "decided_at",
            )
        ),
    }


@pytest.mark.parametrize(("seed", "clocked"), [(1, True), (2, False), (3, True)])
def test_a_whole_record_stores_the_rows_record_turn_stores(world, seed, clocked) -> None:  # type: ignore[no-untyped-def]
    """The same actions, entered one by one and stored whole at the same instant, leave
    the same games, turns (clocks included), score, result report and official result."""
    one, whole = _match(world, clocked=clocked), _match(world, clocked=clocked)
    games = _random_record(one, seed)
    kinds = {t.kind for g in games for t in g}
    assert {K.OPENING, K.PLAY} <= kinds and len(games) > 1
    instant = timezone.now()
    with mock.patch("django.utils.timezone.now", return_value=instant):
        _turn_by_turn(one, games)
        stored = services.record_games(whole, games, by=None)
    assert stored.finished and stored.games == len(games)
    assert stored.turns == sum(len(g) for g in games)
    expected, got = _rows(one), _rows(whole)
    assert got == expected
    assert got["match"][0] == MatchState.FINISHED and got["match"][1] == ResultStatus.CONFIRMED
    assert got["reports"][0][0] == ReportSource.RECORD


def test_the_whole_record_covers_every_kind_of_action(world) -> None:  # type: ignore[no-untyped-def]
    """The seeds above exercise the cube and resignations, not only plays."""
    kinds = {t.kind for seed in (1, 2, 3) for g in _random_record(_match(world), seed) for t in g}
    assert {K.DOUBLE, K.TAKE, K.PASS, K.RESIGN, K.ACCEPT} <= kinds


def test_the_demo_player_stores_a_long_nardy_match_like_record_turn(world) -> None:  # type: ignore[no-untyped-def]
    one, whole = _match(world, length=1, short=False), _match(world, length=1, short=False)
    games = demo_player.play(one, random.Random(4), (demo_player.Side(0.1), demo_player.Side(0.3)))
    instant = timezone.now()
    with mock.patch("django.utils.timezone.now", return_value=instant):
        _turn_by_turn(one, games)
        services.record_games(whole, games, by=None)
    assert _rows(whole) == _rows(one)
    assert _rows(whole)["match"][0] == MatchState.FINISHED


def test_a_record_may_stop_in_a_game_and_record_turn_goes_on(world) -> None:  # type: ignore[no-untyped-def]
    match = _match(world)
    games = _random_record(match, 1)
    first, second = games[0], games[1]
    stored = services.record_games(match, [first, second[:5]], by=None)
    assert not stored.finished and stored.turns == len(first) + 5
    match.refresh_from_db()
    assert match.state == MatchState.PLAYING and match.result_status == ResultStatus.NONE
    services.record_turn(
        match,
        by=None,
        number=6,
        kind=second[5].kind,
        dice=list(second[5].dice),
        moves=second[5].moves,
        level=second[5].level,
    )
    assert Turn.objects.filter(game__match=match, game__number=2).count() == 6


def test_a_refused_action_saves_nothing(world) -> None:  # type: ignore[no-untyped-def]
    match = _match(world)
    games = _random_record(match, 1)
    plays = [i for i, t in enumerate(games[1]) if t.kind == K.PLAY and t.moves != "Ø"]
    bad = plays[3]
    broken = list(games[1])
    turn = broken[bad]
    broken[bad] = T(K.PLAY, turn.dice, "24/1")  # no die moves a checker 23 points
    with pytest.raises(services.RecordingError) as refused:
        services.record_games(match, [games[0], broken], by=None)
    assert refused.value.turn == bad + 1
    assert not Game.objects.filter(match=match).exists()
    match.refresh_from_db()
    assert match.state == MatchState.SCHEDULED


def test_a_record_is_refused_where_it_does_not_fit(world) -> None:  # type: ignore[no-untyped-def]
    match = _match(world)
    games = _random_record(match, 1)
    with pytest.raises(ValidationError, match="stops before it is over"):
        services.record_games(match, [games[0][:4], games[1]], by=None)
    with pytest.raises(ValidationError, match="The match is over"):
        services.record_games(match, [*games, games[0]], by=None)
    assert not Game.objects.filter(match=match).exists()
    services.record_games(match, games[:1], by=None)
    with pytest.raises(ValidationError, match="a whole record goes into a new match"):
        services.record_games(match, games[1:], by=None)
    unrecorded = services.create_match(
        by=None,
        player1=world.member,
        player2=world.second_club_member,
        discipline=world.discipline,
        length=5,
    )
    with pytest.raises(ValidationError, match="not recorded move by move"):
        services.record_games(unrecorded, games, by=None)


def test_only_the_side_to_act_records_its_actions(world) -> None:  # type: ignore[no-untyped-def]
    """``by`` is checked for every action as record_turn checks it: a player enters
    their own side's actions, not the opponent's."""
    player = PlayerFactory(federation=world.federation, user=world.plain)
    match = services.create_match(
        by=None,
        player1=player,
        player2=world.second_club_member,
        discipline=world.discipline,
        length=1,
        recorded=True,
    )
    games = _random_record(match, 1)
    with pytest.raises(PermissionDenied):
        services.record_games(match, games, by=world.plain)
    assert not Game.objects.filter(match=match).exists()
    first = games[0]
    opening_and_own = 1
    state = adapters.apply_turn(
        adapters.new_game_state(match, Game(score1_before=0, score2_before=0)), first[0]
    )
    if state.to_act == 0:  # player 1 moves first: they record the opening and their play
        opening_and_own = 2
    stored = services.record_games(match, [first[:opening_and_own]], by=world.plain)
    assert stored.turns == opening_and_own
    assert set(Turn.objects.filter(game__match=match).values_list("recorded_by", flat=True)) == {
        world.plain.pk
    }
