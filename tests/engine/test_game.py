from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import pytest

from engine.errors import GameStateError, IllegalPlay
from engine.records.notation import parse_moves
from engine.records.replay import replay
from engine.rules import game as g
from engine.rules.board import BAR, BLACK, OFF, WHITE, Position
from engine.rules.dice import RecordedDice, SeededDice
from engine.rules.plays import Play
from engine.rules.scoring import PRESETS
from engine.rules.variants import HYPERGAMMON, LONG, NACKGAMMON, SHORT, Opening, Variant

SHORT_RULES = g.GameRules(SHORT)
DICELESS = dataclasses.replace(LONG, name="long-diceless", mover_names_dice=True)


def code_of(action: Callable[[], object]) -> str:
    with pytest.raises(GameStateError) as err:
        action()
    return err.value.code


def first_play(state: g.GameState, keep: Callable[[Play], bool] = lambda p: True) -> g.GameState:
    return g.choose_play(state, next(p for p in g.legal_plays(state) if keep(p)))


def black_on_roll(rules: g.GameRules = SHORT_RULES) -> g.GameState:
    """Start position, white opened 3-1 with its first legal play; black to roll."""
    state = g.opening_roll(g.new_game(rules), RecordedDice([3, 1]))
    return first_play(state)


# --- opening -----------------------------------------------------------------


def test_opening_uses_the_opening_dice_and_rerolls_ties() -> None:
    state = g.opening_roll(g.new_game(SHORT_RULES), RecordedDice([2, 2, 3, 5]))
    assert state.phase is g.Phase.PLAY
    assert state.turn == state.starter == BLACK
    assert state.dice == (5, 3)
    assert state.opening_dice == (3, 5)
    assert state.cube == 1  # no automatic doubles unless asked for


def test_opening_reroll_in_long_nardy() -> None:
    state = g.opening_roll(g.new_game(g.GameRules(LONG)), RecordedDice([4, 4, 6, 2, 3, 3]))
    assert state.starter == WHITE
    assert state.opening_dice == (6, 2)
    assert state.dice == (3, 3)  # the starter's new roll, doubles allowed
    assert state.phase is g.Phase.PLAY


def test_automatic_doubles_up_to_the_maximum() -> None:
    rules = g.GameRules(SHORT, automatic_doubles=2)
    state = g.opening_roll(g.new_game(rules), RecordedDice([1, 1, 2, 2, 3, 3, 4, 1]))
    assert state.cube == 4
    assert state.cube_owner is None
    assert state.automatic_doubles == 2
    assert state.dice == (4, 1)


def test_automatic_doubles_need_the_cube_and_money_play() -> None:
    assert code_of(lambda: g.GameRules(LONG, automatic_doubles=1)) == "invalid_rules"
    assert code_of(lambda: g.GameRules(LONG, jacoby=True)) == "invalid_rules"
    assert code_of(lambda: g.GameRules(SHORT, automatic_doubles=-1)) == "invalid_rules"
    rules = g.GameRules(SHORT, automatic_doubles=3)
    context = g.MatchContext(7, (0, 0))
    assert code_of(lambda: g.new_game(rules, match_context=context)) == "money_option_in_match"
    state = g.opening_roll(
        g.new_game(SHORT_RULES, match_context=context), RecordedDice([5, 5, 4, 1])
    )
    assert state.cube == 1


def test_set_opening() -> None:
    state = g.set_opening(g.new_game(SHORT_RULES), BLACK, (6, 4))
    assert (state.turn, state.dice, state.phase) == (BLACK, (6, 4), g.Phase.PLAY)
    assert (
        code_of(lambda: g.set_opening(g.new_game(SHORT_RULES), WHITE, (4, 4))) == "opening_double"
    )
    assert code_of(lambda: g.set_opening(g.new_game(SHORT_RULES), WHITE)) == "opening_dice_required"
    assert code_of(lambda: g.set_opening(g.new_game(SHORT_RULES), WHITE, (7, 1))) == "invalid_dice"
    # Long nardy: the starter re-rolls, so doubles are fine and the dice may follow.
    assert g.set_opening(g.new_game(g.GameRules(LONG)), WHITE, (4, 4)).dice == (4, 4)
    waiting = g.set_opening(g.new_game(g.GameRules(LONG)), BLACK)
    assert (waiting.phase, waiting.turn) == (g.Phase.ROLL, BLACK)


# --- dice --------------------------------------------------------------------


def test_mover_names_dice_only_where_the_variant_says_so() -> None:
    state = g.opening_roll(g.new_game(g.GameRules(DICELESS)), RecordedDice([2, 5]))
    assert (state.phase, state.turn) == (g.Phase.ROLL, BLACK)
    assert g.legal_actions(state)[0] is g.Action.SET_DICE
    assert code_of(lambda: g.roll(state, SeededDice(1))) == "dice_named_by_mover"
    named = g.set_dice(state, (6, 5))
    assert (named.phase, named.dice) == (g.Phase.PLAY, (6, 5))
    assert code_of(lambda: g.set_dice(state, (6, 0))) == "invalid_dice"

    short = black_on_roll()
    assert code_of(lambda: g.set_dice(short, (6, 5))) == "dice_not_nameable"
    assert g.roll(short, RecordedDice([6, 5])).dice == (6, 5)


def test_recorded_dice_run_out() -> None:
    assert code_of(lambda: g.roll(black_on_roll(), RecordedDice([6]))) == "dice_exhausted"
    assert code_of(lambda: RecordedDice([7])) == "invalid_die"


def test_seeded_dice_repeat() -> None:
    a, b = SeededDice(42), SeededDice(42)
    rolls = [a.roll() for _ in range(50)]
    assert rolls == [b.roll() for _ in range(50)]
    assert all(len(r) == 2 and all(1 <= d <= 6 for d in r) for r in rolls)
    assert len(set(rolls)) > 10


# --- cube --------------------------------------------------------------------


def test_double_take_and_ownership() -> None:
    state = black_on_roll()
    assert g.Action.DOUBLE in g.legal_actions(state)
    offered = g.double(state)
    assert offered.phase is g.Phase.TAKE
    assert offered.to_act == WHITE
    assert g.legal_actions(offered) == (g.Action.TAKE, g.Action.PASS)
    taken = g.take(offered)
    assert (taken.cube, taken.cube_owner, taken.phase, taken.turn) == (
        2,
        WHITE,
        g.Phase.ROLL,
        BLACK,
    )
    assert taken.cube_turned
    # Black no longer owns access to the cube.
    assert code_of(lambda: g.double(taken)) == "cube_not_owned"
    state = first_play(g.roll(taken, RecordedDice([6, 5])))
    assert state.turn == WHITE
    redoubled = g.take(g.double(state))
    assert (redoubled.cube, redoubled.cube_owner) == (4, BLACK)


def test_no_double_after_rolling_or_on_the_opening_turn() -> None:
    rolled = g.roll(black_on_roll(), RecordedDice([6, 5]))
    assert code_of(lambda: g.double(rolled)) == "already_rolled"
    opening = g.opening_roll(g.new_game(SHORT_RULES), RecordedDice([3, 1]))
    assert code_of(lambda: g.double(opening)) == "already_rolled"
    cube_long = g.set_opening(g.new_game(g.GameRules(LONG, cube=True)), WHITE)
    assert code_of(lambda: g.double(cube_long)) == "opening_turn"


def test_no_double_without_cube_or_in_crawford() -> None:
    state = g.opening_roll(g.new_game(g.GameRules(LONG)), RecordedDice([3, 1, 6, 5]))
    state = first_play(state)
    assert code_of(lambda: g.double(state)) == "no_cube"
    crawford = black_on_roll_in(g.new_game(SHORT_RULES, crawford=True))
    assert code_of(lambda: g.double(crawford)) == "crawford_game"
    assert code_of(lambda: g.new_game(g.GameRules(LONG), crawford=True)) == "crawford_without_cube"


def black_on_roll_in(state: g.GameState) -> g.GameState:
    return first_play(g.opening_roll(state, RecordedDice([3, 1])))


def test_pass_loses_the_current_stake() -> None:
    state = g.take(g.double(black_on_roll()))
    state = first_play(g.roll(state, RecordedDice([6, 5])))
    state = g.pass_(g.double(state))  # white redoubles to 4, black passes
    assert state.finished
    assert state.result == g.GameResult(WHITE, "pass", 1, 2, 2, g.END_PASS)
    assert state.to_act is None
    assert g.legal_actions(state) == ()


def test_beaver() -> None:
    rules = g.GameRules(SHORT, beaver=True)
    offered = g.double(black_on_roll(rules))
    assert g.Action.BEAVER in g.legal_actions(offered)
    beavered = g.beaver(offered)
    assert beavered.to_act == BLACK  # the doubler answers the beaver
    assert g.Action.BEAVER not in g.legal_actions(beavered)
    assert code_of(lambda: g.beaver(beavered)) == "already_beavered"
    taken = g.take(beavered)
    assert (taken.cube, taken.cube_owner, taken.turn, taken.phase) == (
        4,
        WHITE,
        BLACK,
        g.Phase.ROLL,
    )
    passed = g.pass_(beavered)
    assert passed.result == g.GameResult(WHITE, "pass", 1, 2, 2, g.END_PASS)
    assert code_of(lambda: g.beaver(g.double(black_on_roll()))) == "beaver_not_allowed"
    context = g.MatchContext(5, (0, 0))
    assert code_of(lambda: g.new_game(rules, match_context=context)) == "money_option_in_match"


# --- results -----------------------------------------------------------------


def finish(
    position: Position,
    rules: g.GameRules = SHORT_RULES,
    *,
    double: bool = False,
    opening: tuple[int, ...] = (2, 1),
) -> g.GameResult:
    """Black opens with ``opening`` (its first legal play), white (one checker
    on its 1) may double, then rolls 2-1 and bears off."""
    state = g.set_opening(g.new_game(rules, position=position), BLACK, opening)
    state = first_play(state)
    if double:
        state = g.take(g.double(state))
    state = first_play(g.roll(state, RecordedDice([2, 1])))
    assert state.finished
    assert state.result is not None
    assert state.position.side(WHITE)[OFF] == 15
    return state.result


def test_short_results() -> None:
    single = finish(Position.from_points({1: 1}, {BAR: 1}))
    assert (single.result_name, single.multiplier, single.points) == ("single", 1, 1)
    mars = finish(Position.from_points({1: 1}, {12: 15}))
    assert (mars.result_name, mars.multiplier, mars.points) == ("mars", 2, 2)
    koks = finish(Position.from_points({1: 1}, {BAR: 1, 6: 14}))
    assert (koks.result_name, koks.multiplier, koks.points) == ("koks", 3, 3)
    assert koks.end == g.END_BEAROFF
    assert (koks.winner, koks.loser) == (WHITE, BLACK)


def test_points_are_cube_times_multiplier() -> None:
    koks = finish(Position.from_points({1: 1}, {BAR: 1, 6: 14}), double=True)
    assert (koks.result_name, koks.cube, koks.points) == ("koks", 2, 6)


def test_long_results_via_presets() -> None:
    def long_finish(black: dict[int, int], preset: str = "long-masters") -> tuple[str, int]:
        rules = g.GameRules(LONG, scoring=PRESETS[preset])
        state = g.set_opening(
            g.new_game(rules, position=Position.from_points({1: 1}, black)), WHITE, (2, 1)
        )
        state = first_play(state)
        assert state.result is not None
        return state.result.result_name, state.result.points

    assert long_finish({1: 15}) == ("home mars", 3)
    assert long_finish({14: 15}) == ("mars", 2)
    assert long_finish({1: 1}) == ("single", 1)
    assert long_finish({1: 15}, "long-article") == ("single", 1)
    assert long_finish({1: 1, 20: 1}, "long-article") == ("mars", 2)


def test_jacoby() -> None:
    rules = g.GameRules(SHORT, jacoby=True)
    mars_position = Position.from_points({1: 1}, {12: 15})
    cut = finish(mars_position, rules)
    assert (cut.result_name, cut.multiplier, cut.points, cut.jacoby) == ("mars", 1, 1, True)
    counted = finish(mars_position, rules, double=True)
    assert (counted.multiplier, counted.points, counted.jacoby) == (2, 4, False)
    # An automatic double is nobody's double: Jacoby still applies.
    rules = g.GameRules(SHORT, jacoby=True, automatic_doubles=1)
    state = g.new_game(rules, position=mars_position)
    state = first_play(g.opening_roll(state, RecordedDice([3, 3, 1, 2])))  # black opens 2-1
    state = first_play(g.roll(state, RecordedDice([2, 1])))
    assert state.result == g.GameResult(WHITE, "mars", 1, 2, 2, g.END_BEAROFF, jacoby=True)
    # No Jacoby in a match, even if nobody doubled.
    in_match = g.new_game(
        SHORT_RULES, position=mars_position, match_context=g.MatchContext(5, (0, 0))
    )
    state = first_play(g.set_opening(in_match, BLACK, (2, 1)))
    state = first_play(g.roll(state, RecordedDice([2, 1])))
    assert state.result is not None and state.result.points == 2


# --- resignations ----------------------------------------------------------


def test_resignation_refused_then_accepted() -> None:
    state = g.take(g.double(black_on_roll()))  # cube 2, black on roll
    offered = g.resign(state, "mars")
    assert offered.phase is g.Phase.RESIGN
    assert offered.to_act == WHITE
    assert g.legal_actions(offered) == (g.Action.ACCEPT_RESIGNATION, g.Action.REJECT_RESIGNATION)
    assert code_of(lambda: g.roll(offered, SeededDice(1))) == "wrong_phase"
    refused = g.reject_resignation(offered)
    assert refused.phase is g.Phase.ROLL and refused.resignation is None
    rolled = g.roll(refused, RecordedDice([6, 5]))
    accepted = g.accept_resignation(g.resign(rolled, "koks"))
    assert accepted.result == g.GameResult(WHITE, "koks", 3, 2, 6, g.END_RESIGN)


def test_resignation_levels_follow_the_preset() -> None:
    state = first_play(g.opening_roll(g.new_game(g.GameRules(LONG)), RecordedDice([3, 1, 6, 5])))
    assert code_of(lambda: g.resign(state, "koks")) == "unknown_resignation_level"
    accepted = g.accept_resignation(g.resign(state, "home mars"))
    assert accepted.result == g.GameResult(WHITE, "home mars", 3, 1, 3, g.END_RESIGN)
    # The opponent may offer too.
    by_white = g.accept_resignation(g.resign(state, side=WHITE))
    assert by_white.result is not None and by_white.result.winner == BLACK
    assert code_of(lambda: g.resign(g.double(black_on_roll()))) == "wrong_phase"


def test_jacoby_applies_to_resignations() -> None:
    state = black_on_roll(g.GameRules(SHORT, jacoby=True))
    result = g.accept_resignation(g.resign(state, "mars")).result
    assert result == g.GameResult(WHITE, "mars", 1, 1, 1, g.END_RESIGN, jacoby=True)


# --- plays -------------------------------------------------------------------


def test_play_from_notation() -> None:
    state = g.opening_roll(g.new_game(SHORT_RULES), RecordedDice([3, 1]))
    after = g.play(state, parse_moves("8/5 6/5"))
    assert after.position.side(WHITE)[5] == 2
    assert after.turn == BLACK and after.phase is g.Phase.ROLL
    assert after.first_turn == (False, True)
    assert after.turn_number == 1
    with pytest.raises(IllegalPlay):
        g.play(state, parse_moves("8/4 6/4"))


def test_choose_play_rejects_foreign_positions() -> None:
    state = g.opening_roll(g.new_game(SHORT_RULES), RecordedDice([3, 1]))
    with pytest.raises(IllegalPlay) as err:
        g.choose_play(state, Play((), state.position))
    assert err.value.code == "not_a_legal_play"


def test_wrong_phase() -> None:
    state = g.new_game(SHORT_RULES)
    assert g.legal_actions(state) == (g.Action.OPENING_ROLL, g.Action.SET_OPENING)
    assert code_of(lambda: g.roll(state, SeededDice(1))) == "wrong_phase"
    assert code_of(lambda: g.take(state)) == "wrong_phase"
    assert code_of(lambda: g.legal_plays(state)) == "wrong_phase"
    assert (
        code_of(lambda: g.new_game(SHORT_RULES, position=Position.from_points({1: 1}, {}, total=3)))
        == "bad_position"
    )


def test_skip_turn_only_when_no_roll_plays() -> None:
    # White on the bar against black's closed home (white's 19..24).
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 3}
    position = Position.from_points({BAR: 1, 6: 14}, closed)
    state = g.set_opening(g.new_game(SHORT_RULES, position=position), BLACK, (2, 1))
    state = first_play(state, lambda p: min(p.position.side(BLACK)[1:7]) >= 2)
    assert g.Action.SKIP_TURN in g.legal_actions(state)
    skipped = g.skip_turn(state)
    assert (skipped.turn, skipped.phase, skipped.position) == (BLACK, g.Phase.ROLL, state.position)
    # Rolling is still allowed, and every roll is then played as nothing.
    rolled = g.roll(state, RecordedDice([6, 6]))
    assert [p.steps for p in g.legal_plays(rolled)] == [()]
    assert code_of(lambda: g.skip_turn(black_on_roll())) == "turn_playable"
    assert g.Action.SKIP_TURN not in g.legal_actions(black_on_roll())


# --- whole games -----------------------------------------------------------


def random_game(
    rules: g.GameRules, seed: int, *, cube_rng: random.Random | None = None
) -> g.GameState:
    dice = SeededDice(seed)
    rng = random.Random(seed)
    variant = rules.variant
    state = g.opening_roll(g.new_game(rules), dice)
    while not state.finished:
        if state.phase is g.Phase.ROLL:
            if cube_rng and g.can_double(state) and cube_rng.random() < 0.05:
                state = g.double(state)
                state = g.take(state) if cube_rng.random() < 0.8 else g.pass_(state)
                continue
            state = g.roll(state, dice)
        plays = g.legal_plays(state)
        state = g.choose_play(state, rng.choice(plays))
        for side in (WHITE, BLACK):
            assert state.position.checkers(side) == variant.checkers
            assert all(n >= 0 for n in state.position.side(side))
        assert state.turn_number < 2000
    return state


@pytest.mark.parametrize("variant", [SHORT, LONG, NACKGAMMON, HYPERGAMMON], ids=lambda v: v.name)
def test_random_game_to_the_end(variant: Variant) -> None:
    rules = g.GameRules(variant)
    for seed in range(3):
        state = random_game(rules, seed, cube_rng=random.Random(seed) if variant.cube else None)
        result = state.result
        assert result is not None
        assert state.phase is g.Phase.FINISHED
        assert result.points == result.cube * result.multiplier
        assert result.cube == state.cube or result.end == g.END_PASS
        if result.end == g.END_BEAROFF:
            assert state.position.side(result.winner)[OFF] == variant.checkers
            assert state.position.side(result.loser)[OFF] < variant.checkers
            assert result.result_name in rules.preset.result_names()
            assert rules.preset.multiplier_of(result.result_name) == result.multiplier
        # The same seed plays the same game.
        assert (
            random_game(rules, seed, cube_rng=random.Random(seed) if variant.cube else None)
            == state
        )


def test_an_illegal_play_names_its_turn_and_side() -> None:
    state = g.opening_roll(g.new_game(g.GameRules(SHORT)), RecordedDice([(3, 1)]))
    with pytest.raises(IllegalPlay) as refused:
        g.play(state, parse_moves("24/21"))
    assert refused.value.code == "must_play_both"
    assert refused.value.data["turn"] == 1
    assert refused.value.data["side"] == 0
    assert "24/21 6/5" in refused.value.reason


# --- game-level rules come from flags, not names --------------------------------


def test_game_rules_follow_variant_flags_whatever_the_name() -> None:
    record = "W 3-1: 8/5 6/5\nB 6-4: 24/18 13/9\n"
    sudden = dataclasses.replace(SHORT, name="house-rules", first_hit_wins=True)
    state = first_play(
        g.roll(replay(record, g.GameRules(sudden)).state, RecordedDice([6, 1])),
        lambda p: any(s.hit for s in p.steps),
    )
    assert state.result is not None and state.result.end == g.END_HIT
    assert state.result.result_name == "koks"  # still short-standard: scoring is its own flag
    bomb = dataclasses.replace(SHORT, name="house-bomb", nuclear=True)
    state = g.explode(replay(record, g.GameRules(bomb)).state)
    assert state.position.side(BLACK)[BAR] == 3
    assert g.bomb_owner(state.position) == BLACK
    whites = dataclasses.replace(SHORT, name="house-colours", opening=Opening.HIGHER_PLAYS_WHITE)
    state = g.opening_roll(g.new_game(g.GameRules(whites)), RecordedDice([1, 6]))
    assert (state.white_player, state.turn, state.dice) == (BLACK, BLACK, (6, 1))


def test_explode_refused_on_the_opening_turn_and_outside_the_roll_phase() -> None:
    bomb = dataclasses.replace(LONG, name="long-bomb", nuclear=True)
    waiting = g.set_opening(g.new_game(g.GameRules(bomb)), WHITE)
    assert waiting.phase is g.Phase.ROLL
    assert code_of(lambda: g.explode(waiting)) == "opening_turn"
    state = first_play(g.roll(waiting, RecordedDice([6, 5])))
    assert g.Action.EXPLODE in g.legal_actions(state)
    resigning = g.resign(state)
    assert code_of(lambda: g.explode(resigning)) == "wrong_phase"
