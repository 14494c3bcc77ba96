"""The turn dispatch (engine/rules/actions.py): each action kind applied through
``apply``, and a refusal of each, with the engine's codes."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from engine.errors import EngineError, IllegalPlay
from engine.records.notation import parse_moves
from engine.rules import actions as a
from engine.rules import game as g
from engine.rules.board import BAR, BLACK, WHITE, Position
from engine.rules.dice import RecordedDice, SeededDice
from engine.rules.plays import Play
from engine.rules.variants import LONG, SHORT
from tests.engine.test_game import DICELESS, SHORT_RULES, black_on_roll

LONG_RULES = g.GameRules(LONG)
BOMB = dataclasses.replace(LONG, name="long-bomb", nuclear=True)


def refusal(action: Callable[[], object]) -> str:
    with pytest.raises(EngineError) as err:
        action()
    return err.value.code


def white_to_play_3_1() -> g.GameState:
    return a.apply(g.new_game(SHORT_RULES), a.SetOpening(WHITE, (3, 1)))


def closed_out() -> g.GameState:
    """White on the bar against Black's closed home, White on roll."""
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 3}
    position = Position.from_points({BAR: 1, 6: 14}, closed)
    state = a.apply(g.new_game(SHORT_RULES, position=position), a.SetOpening(BLACK, (2, 1)))
    keep = next(p for p in g.legal_plays(state) if min(p.position.side(BLACK)[1:7]) >= 2)
    return a.apply(state, a.ChoosePlay(keep))


def offered(rules: g.GameRules = SHORT_RULES) -> g.GameState:
    return a.apply(black_on_roll(rules), a.Double())


# --- the opening


def test_opening_roll_rerolls_ties_and_plays_the_opening_dice() -> None:
    state = a.apply(g.new_game(SHORT_RULES), a.OpeningRoll(RecordedDice([2, 2, 3, 5])))
    assert (state.phase, state.turn, state.dice) == (g.Phase.PLAY, BLACK, (5, 3))
    assert refusal(lambda: a.apply(state, a.OpeningRoll(SeededDice(1)))) == "wrong_phase"


def test_opening_throw_starts_the_higher_die_with_the_opening_dice_where_played() -> None:
    short = a.apply(g.new_game(SHORT_RULES), a.OpeningThrow((3, 5)))
    assert (short.phase, short.starter, short.dice) == (g.Phase.PLAY, BLACK, (5, 3))
    long = a.apply(g.new_game(LONG_RULES), a.OpeningThrow((6, 2)))
    assert (long.phase, long.starter, long.dice) == (g.Phase.ROLL, WHITE, ())
    diceless = a.apply(g.new_game(g.GameRules(DICELESS)), a.OpeningThrow((1, 4)))
    assert (diceless.phase, diceless.starter) == (g.Phase.ROLL, BLACK)


def test_opening_throw_refuses_ties_and_other_counts() -> None:
    fresh = g.new_game(SHORT_RULES)
    assert refusal(lambda: a.apply(fresh, a.OpeningThrow((4, 4)))) == "opening_tie"
    assert refusal(lambda: a.apply(fresh, a.OpeningThrow((4,)))) == "opening_dice"
    assert refusal(lambda: a.apply(fresh, a.OpeningThrow((4, 2, 1)))) == "opening_dice"
    started = white_to_play_3_1()
    assert refusal(lambda: a.apply(started, a.OpeningThrow((5, 2)))) == "wrong_phase"


def test_set_opening_names_the_starter() -> None:
    state = white_to_play_3_1()
    assert (state.phase, state.turn, state.dice) == (g.Phase.PLAY, WHITE, (3, 1))
    fresh = g.new_game(SHORT_RULES)
    assert refusal(lambda: a.apply(fresh, a.SetOpening(2, (3, 1)))) == "bad_side"
    assert refusal(lambda: a.apply(fresh, a.SetOpening(WHITE))) == "opening_dice_required"


# --- dice


def test_roll_takes_the_dice_from_the_source() -> None:
    state = a.apply(black_on_roll(), a.Roll(RecordedDice([6, 5])))
    assert (state.phase, state.turn, state.dice) == (g.Phase.PLAY, BLACK, (6, 5))
    assert refusal(lambda: a.apply(state, a.Roll(SeededDice(2)))) == "wrong_phase"
    diceless = a.apply(g.new_game(g.GameRules(DICELESS)), a.SetOpening(WHITE))
    assert refusal(lambda: a.apply(diceless, a.Roll(SeededDice(2)))) == "dice_named_by_mover"


def test_set_dice_only_where_the_mover_names_them() -> None:
    diceless = a.apply(g.new_game(g.GameRules(DICELESS)), a.SetOpening(WHITE))
    named = a.apply(diceless, a.SetDice((6, 6)))
    assert (named.phase, named.dice) == (g.Phase.PLAY, (6, 6))
    assert refusal(lambda: a.apply(black_on_roll(), a.SetDice((6, 6)))) == "dice_not_nameable"


def test_skip_turn_only_when_no_roll_plays() -> None:
    state = closed_out()
    skipped = a.apply(state, a.SkipTurn())
    assert (skipped.turn, skipped.phase, skipped.position) == (BLACK, g.Phase.ROLL, state.position)
    assert refusal(lambda: a.apply(black_on_roll(), a.SkipTurn())) == "turn_playable"


# --- checker plays


def test_play_moves_plays_the_written_journeys() -> None:
    state = white_to_play_3_1()
    played = a.apply(state, a.PlayMoves(tuple(parse_moves("8/5 6/5"))))
    assert played.position.side(WHITE)[5] == 2 and played.turn == BLACK
    with pytest.raises(IllegalPlay) as err:
        a.apply(state, a.PlayMoves(tuple(parse_moves("13/7"))))
    assert err.value.code == "dice_mismatch"


def test_choose_play_checks_the_play_unless_it_came_from_the_legal_plays() -> None:
    state = white_to_play_3_1()
    legal = g.legal_plays(state)[0]
    checked = a.apply(state, a.ChoosePlay(legal))
    assert checked == a.apply(state, a.ChoosePlay(legal, from_legal_plays=True))
    assert checked.position == legal.position and checked.turn == BLACK
    foreign = Play((), SHORT.start_position())  # not playing 3-1 is not legal
    with pytest.raises(IllegalPlay) as err:
        a.apply(state, a.ChoosePlay(foreign))
    assert err.value.code == "not_a_legal_play"


def test_recorded_turn_starts_the_game_with_its_side_then_rolls_and_plays() -> None:
    moves = tuple(parse_moves("8/5 6/5"))
    first = a.apply(g.new_game(SHORT_RULES), a.RecordedTurn((3, 1), moves, side=WHITE))
    assert first == a.apply(white_to_play_3_1(), a.PlayMoves(moves))
    second = a.apply(first, a.RecordedTurn((6, 5), tuple(parse_moves("24/13"))))
    assert second.turn == WHITE and second.position.side(BLACK)[13] == 6
    assert second.turn_number == 2


def test_recorded_turn_names_the_dice_where_the_mover_names_them() -> None:
    state = a.apply(g.new_game(g.GameRules(DICELESS)), a.SetOpening(WHITE))
    played = a.apply(state, a.RecordedTurn((6, 5), tuple(parse_moves("24/13"))))
    assert (played.turn, played.dice) == (BLACK, ())
    assert played.position.side(WHITE)[13] == 1


def test_recorded_turn_without_dice_is_a_skipped_turn() -> None:
    state = closed_out()
    assert a.apply(state, a.RecordedTurn(None)) == a.apply(state, a.SkipTurn())
    moves = tuple(parse_moves("bar/22"))
    assert refusal(lambda: a.apply(state, a.RecordedTurn(None, moves))) == "moves_without_dice"


def test_recorded_turn_keeps_the_opening_dice_already_known() -> None:
    state = white_to_play_3_1()
    moves = tuple(parse_moves("8/5 6/5"))
    assert a.apply(state, a.RecordedTurn((1, 3), moves)) == a.apply(state, a.PlayMoves(moves))
    assert refusal(lambda: a.apply(state, a.RecordedTurn((4, 2), moves))) == "dice_already_known"


def test_recorded_turn_without_a_side_does_not_start_the_game() -> None:
    fresh = g.new_game(SHORT_RULES)
    moves = tuple(parse_moves("8/5 6/5"))
    assert refusal(lambda: a.apply(fresh, a.RecordedTurn((3, 1), moves))) == "wrong_phase"


# --- the cube


def test_double_then_take() -> None:
    state = offered()
    assert (state.phase, state.to_act) == (g.Phase.TAKE, WHITE)
    taken = a.apply(state, a.Take())
    assert (taken.phase, taken.cube, taken.cube_owner) == (g.Phase.ROLL, 2, WHITE)
    assert refusal(lambda: a.apply(white_to_play_3_1(), a.Double())) == "already_rolled"
    waiting = a.apply(g.new_game(LONG_RULES), a.SetOpening(WHITE))
    assert refusal(lambda: a.apply(waiting, a.Double())) == "no_cube"
    assert refusal(lambda: a.apply(black_on_roll(), a.Take())) == "wrong_phase"


def test_pass_ends_the_game_at_the_stake_before_the_double() -> None:
    passed = a.apply(offered(), a.Pass())
    assert passed.result is not None
    assert (passed.result.winner, passed.result.points, passed.result.end) == (BLACK, 1, "pass")
    assert refusal(lambda: a.apply(black_on_roll(), a.Pass())) == "wrong_phase"


def test_beaver_only_where_the_rules_allow_it() -> None:
    beavered = a.apply(offered(g.GameRules(SHORT, beaver=True)), a.Beaver())
    assert beavered.offer == g.CubeOffer(doubler=BLACK, value=4, beaver=True)
    assert refusal(lambda: a.apply(offered(), a.Beaver())) == "beaver_not_allowed"


# --- the bomb and resignations


def test_explode_passes_the_bomb() -> None:
    waiting = a.apply(g.new_game(g.GameRules(BOMB)), a.SetOpening(WHITE))
    assert refusal(lambda: a.apply(waiting, a.Explode())) == "opening_turn"
    played = a.apply(waiting, a.RecordedTurn((6, 5), tuple(parse_moves("24/13"))))
    exploded = a.apply(played, a.Explode())
    assert g.bomb_owner(exploded.position) == WHITE
    assert (exploded.phase, exploded.turn) == (g.Phase.ROLL, BLACK)
    assert refusal(lambda: a.apply(black_on_roll(), a.Explode())) == "no_bomb"


def test_resign_then_accept() -> None:
    offer = a.apply(black_on_roll(), a.Resign("mars"))
    assert offer.resignation is not None
    assert (offer.phase, offer.resignation.side, offer.to_act) == (g.Phase.RESIGN, BLACK, WHITE)
    accepted = a.apply(offer, a.AcceptResignation())
    assert accepted.result is not None
    assert (accepted.result.winner, accepted.result.points, accepted.result.end) == (
        WHITE,
        2,
        "resign",
    )
    code = refusal(lambda: a.apply(black_on_roll(), a.Resign("nothing")))
    assert code == "unknown_resignation_level"
    assert refusal(lambda: a.apply(black_on_roll(), a.AcceptResignation())) == "wrong_phase"


def test_resign_by_a_named_side_then_reject() -> None:
    state = white_to_play_3_1()
    offer = a.apply(state, a.Resign(side=BLACK))
    assert offer.resignation is not None and offer.resignation.side == BLACK
    rejected = a.apply(offer, a.RejectResignation())
    assert (rejected.phase, rejected.resignation, rejected.dice) == (g.Phase.PLAY, None, (3, 1))
    assert refusal(lambda: a.apply(state, a.RejectResignation())) == "wrong_phase"


# --- the dispatch itself


def test_each_kind_is_the_engines_legal_action() -> None:
    on_roll = black_on_roll()
    allowed = g.legal_actions(on_roll)
    for action in (a.Roll(SeededDice(3)), a.Double(), a.Resign()):
        assert action.kind in allowed
        a.apply(on_roll, action)  # allowed, so applied without a refusal
    assert a.Take.kind not in allowed
    assert a.PlayMoves.kind == a.ChoosePlay.kind == a.RecordedTurn.kind == g.Action.PLAY


def test_something_that_is_not_an_action_is_a_programming_error() -> None:
    with pytest.raises(TypeError):
        a.apply(black_on_roll(), g.Action.DOUBLE)  # type: ignore[arg-type]
