from __future__ import annotations

import pytest

from engine.errors import GameStateError
from engine.rules import game as g
from engine.rules.board import BLACK, WHITE
from engine.rules.dice import RecordedDice
from engine.rules.match import Match
from engine.rules.variants import LONG, SHORT

SHORT_RULES = g.GameRules(SHORT)


def won(winner: int, points: int, cube: int = 1) -> g.GameResult:
    return g.GameResult(winner, "single", points // cube, cube, points, g.END_BEAROFF)


def record(match: Match, *results: g.GameResult) -> Match:
    for result in results:
        match = match.record(result)
    return match


def to_second_turn(state: g.GameState) -> g.GameState:
    """Opening 3-1 for white, white's first legal play: black is on roll."""
    state = g.opening_roll(state, RecordedDice([3, 1]))
    return g.choose_play(state, g.legal_plays(state)[0])


@pytest.mark.parametrize("leader", [WHITE, BLACK])
def test_crawford_game_for_either_player(leader: int) -> None:
    match = record(Match(SHORT_RULES, 5), won(leader, 2), won(1 - leader, 1), won(leader, 2))
    assert match.score[leader] == 4
    assert match.crawford_game == 4
    assert match.next_game_crawford
    assert not match.next_game_post_crawford
    state = match.new_game()
    assert state.crawford
    assert state.match_context == g.MatchContext(5, match.score)
    state = to_second_turn(state)
    assert g.Action.DOUBLE not in g.legal_actions(state)
    with pytest.raises(GameStateError) as err:
        g.double(state)
    assert err.value.code == "crawford_game"

    after = match.record(won(1 - leader, 1))
    assert not after.next_game_crawford
    assert after.next_game_post_crawford
    assert after.crawford_game == 4
    state = to_second_turn(after.new_game())
    assert not state.crawford
    doubled = g.double(state)
    assert doubled.phase is g.Phase.TAKE


def test_crawford_happens_once() -> None:
    # White reaches 4 first: game 2 is Crawford; black reaching 4 later makes no second one.
    match = record(Match(SHORT_RULES, 5), won(WHITE, 4), won(BLACK, 2), won(BLACK, 2))
    assert match.score == (4, 4)
    assert match.crawford_game == 2
    assert not match.next_game_crawford
    assert match.next_game_post_crawford


def test_no_crawford_before_n_minus_one() -> None:
    match = record(Match(SHORT_RULES, 7), won(WHITE, 2), won(BLACK, 4))
    assert match.crawford_game is None
    assert not match.next_game_crawford
    assert not match.next_game_post_crawford
    assert not match.new_game().crawford


def test_one_point_match_first_game_is_crawford() -> None:
    match = Match(SHORT_RULES, 1)
    assert match.next_game_crawford
    assert match.new_game().crawford


def test_crawford_only_with_a_cube() -> None:
    match = Match(g.GameRules(LONG), 5).record(won(WHITE, 4))
    assert match.crawford_game is None
    assert not match.new_game().crawford
    nardegammon = Match(g.GameRules(LONG, cube=True), 5).record(won(WHITE, 4))
    assert nardegammon.next_game_crawford


def test_cube_cannot_have_moved_in_the_crawford_game() -> None:
    match = Match(SHORT_RULES, 5).record(won(WHITE, 4))
    with pytest.raises(GameStateError) as err:
        match.record(won(BLACK, 2, cube=2))
    assert err.value.code == "cube_in_crawford_game"


def test_excess_points_and_match_end() -> None:
    match = record(Match(SHORT_RULES, 5), won(WHITE, 4), won(BLACK, 1))
    assert match.winner is None
    match = match.record(won(WHITE, 6, cube=2))
    assert match.finished
    assert match.winner == WHITE
    assert match.score == (10, 1)  # every game's full points
    assert match.final_score == (5, 1)  # the excess does not carry
    assert match.results[-1].points == 6
    for action in (lambda: match.record(won(BLACK, 1)), match.new_game):
        with pytest.raises(GameStateError) as err:
            action()
        assert err.value.code == "match_over"
        assert err.value.data["winner"] == WHITE


def test_match_refuses_money_options() -> None:
    for rules in (
        g.GameRules(SHORT, jacoby=True),
        g.GameRules(SHORT, beaver=True),
        g.GameRules(SHORT, automatic_doubles=1),
    ):
        with pytest.raises(GameStateError) as err:
            Match(rules, 7)
        assert err.value.code == "money_option_in_match"
        # The same rules are fine for a money session.
        assert Match(rules, 0).new_game().match_context is None


def test_money_session_never_ends() -> None:
    session = Match(g.GameRules(SHORT, jacoby=True, beaver=True), 0)
    for i in range(30):
        session = session.record(won(i % 2, 8, cube=4))
    assert session.score == (120, 120)
    assert session.final_score == (120, 120)
    assert session.winner is None
    assert not session.finished
    assert session.crawford_game is None
    assert session.context() is None
    assert session.new_game().phase is g.Phase.OPENING


def test_bad_inputs() -> None:
    with pytest.raises(GameStateError) as err:
        Match(SHORT_RULES, -1)
    assert err.value.code == "bad_match_length"
    with pytest.raises(GameStateError) as err:
        Match(SHORT_RULES, 3).record(g.GameResult(WHITE, "single", 1, 1, 0, g.END_BEAROFF))
    assert err.value.code == "bad_result"


def test_played_game_feeds_the_match() -> None:
    match = Match(SHORT_RULES, 3)
    state = to_second_turn(match.new_game())
    state = g.resign(state, "mars")
    state = g.accept_resignation(state)
    assert state.result is not None
    match = match.record(state.result)
    assert match.score == (2, 0)  # black resigned a mars at cube 1
    assert match.next_game_crawford
