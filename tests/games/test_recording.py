from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from engine.rules.scoring import get_preset
from games import adapters, services
from games.models import ClockMode, Game, MatchState, ReportSource, ResultStatus, Turn, TurnKind
from tests.factories import MatchFactory, UserFactory
from tests.games.helpers import current_state, play_out, recorded_ago, user_of

pytestmark = pytest.mark.django_db


def test_a_recorded_match_plays_to_its_end_with_the_right_score() -> None:
    match = MatchFactory(length=3)
    turns = play_out(match, seed=7)
    match.refresh_from_db()
    assert turns > 20
    assert match.state == MatchState.FINISHED
    games = list(match.games.order_by("number"))
    totals = [0, 0]
    for game in games:
        assert game.points == game.cube * game.multiplier or game.end == "pass"
        totals[game.winner - 1] += game.points
    assert max(totals) >= 3 and min(totals) < 3
    report = match.reports.get()
    assert report.source == ReportSource.RECORD
    assert (report.score1, report.score2) == (min(totals[0], 3), min(totals[1], 3))
    # Each player entered their own turns: the record is official when the match ends.
    assert match.result_status == ResultStatus.CONFIRMED
    # Every stored game replays through the engine to the stored result.
    for game in games:
        live = list(game.turns.filter(undone_at__isnull=True).order_by("number"))
        state = adapters.replay(match, game, live)
        assert state.finished and state.result.points == game.points


def test_an_illegal_turn_is_refused_with_the_engines_reason_and_saves_nothing() -> None:
    match = MatchFactory()
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    before = (Turn.objects.count(), Game.objects.count())
    with pytest.raises(services.RecordingError) as refused:
        services.record_turn(
            match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="24/21"
        )
    assert refused.value.code == "must_play_both"
    assert refused.value.turn == 2
    assert "24/21 6/5" in refused.value.reason
    assert (Turn.objects.count(), Game.objects.count()) == before
    recorded = services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
    )
    assert recorded.turn.moves == "8/5 6/5"
    assert recorded.turn.position_id == "4HPwATCwZ/ABMA"  # GNU Backgammon's ID after 8/5 6/5
    assert recorded.state.turn == 1  # black to move


def test_the_same_turn_twice_saves_once_and_tells_the_second() -> None:
    match = MatchFactory()
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[6, 2])
    services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[6, 2], moves="24/18 13/11"
    )
    with pytest.raises(services.TurnConflict) as conflict:
        services.record_turn(
            match, by=white, number=2, kind=TurnKind.PLAY, dice=[6, 2], moves="24/18 13/11"
        )
    assert conflict.value.expected == 3
    assert Turn.objects.filter(game__match=match).count() == 2


def test_only_players_and_arbiters_record() -> None:
    match = MatchFactory()
    with pytest.raises(PermissionDenied):
        services.record_turn(match, by=UserFactory(), number=1, kind=TurnKind.OPENING, dice=[3, 1])
    assert not Turn.objects.exists()


def test_opening_with_equal_dice_is_refused() -> None:
    match = MatchFactory()
    with pytest.raises(services.RecordingError) as refused:
        services.record_turn(
            match, by=user_of(match, 0), number=1, kind=TurnKind.OPENING, dice=[4, 4]
        )
    assert refused.value.code == "opening_tie"


def test_undo_by_agreement_keeps_the_history() -> None:
    match = MatchFactory()
    white, black = user_of(match, 0), user_of(match, 1)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="24/21 6/5"
    )
    request = services.request_undo(match, by=white)
    with pytest.raises(PermissionDenied, match="opponent"):
        services.agree_undo(request, by=white)
    undone = services.agree_undo(request, by=black)
    assert undone.number == 2 and undone.undone_at is not None
    number, _state = current_state(match)
    assert number == 2  # the turn can be recorded again
    services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
    )
    assert Turn.objects.filter(game__match=match, number=2).count() == 2  # both versions kept


def test_a_money_session_is_closed_by_hand_and_a_match_is_not() -> None:
    to_three = MatchFactory(length=3)
    with pytest.raises(ValidationError, match="money session"):
        services.end_session(to_three, by=user_of(to_three, 0))
    session = MatchFactory(length=0)
    white = user_of(session, 0)
    services.record_turn(session, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    services.record_turn(
        session, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
    )
    with pytest.raises(ValidationError, match="game in progress"):
        services.end_session(session, by=white)
    services.record_turn(
        session, by=user_of(session, 1), number=3, kind=TurnKind.RESIGN, level="single"
    )
    services.record_turn(session, by=white, number=4, kind=TurnKind.ACCEPT)
    services.end_session(session, by=white)
    session.refresh_from_db()
    assert session.state == MatchState.FINISHED
    report = session.reports.get()
    assert (report.score1, report.score2) == (1, 0)


def test_loss_on_time_ends_the_match() -> None:
    match = MatchFactory(length=5, clock_mode=ClockMode.DELAY, clock_reserve_seconds=600)
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    recorded_ago(match, 601)
    # White's flag fell: White does not enter it for Black, Black claims it.
    with pytest.raises(PermissionDenied):
        services.record_timeout(match, by=white, loser=1)
    services.record_timeout(match, by=user_of(match, 1), loser=1)
    match.refresh_from_db()
    assert match.lost_on_time and match.state == MatchState.FINISHED
    report = match.reports.get()
    assert (report.score1, report.score2) == (0, 5)
    assert match.games.get().end == "time"


def test_crawford_cap_comes_from_the_scoring_preset() -> None:
    match = MatchFactory()
    assert adapters.max_points_without_cube(match) == 3
    assert max(r.multiplier for r in get_preset("short-standard").rules) == 3
