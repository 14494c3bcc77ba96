"""Soldiers behind the variant registry: whole games through ``engine.rules.game``
and ``engine.rules.actions`` (opening, rolls, cube, resignations, match context,
the end and its §6 score), the options reaching the start, and their errors."""

from __future__ import annotations

import random

import pytest

from engine import movegen
from engine.errors import EngineError, GameStateError, IllegalPlay
from engine.records.notation import format_moves, format_play, parse_moves
from engine.rules import actions as a
from engine.rules import game as g
from engine.rules.board import BLACK, OFF, WHITE
from engine.rules.dice import RecordedDice
from engine.rules.match import Match
from engine.rules.plays import ClassMove, ClassStep
from engine.rules.variants import SHORT, SOLDIERS, VARIANTS, variant_options
from engine.soldiers import bridge
from engine.soldiers import result as soldiers_result
from engine.soldiers.state import parse_position

DEFAULT_START = (
    "W: K24 P24 G13 P13x4 D8 P8x2 E6 O6 P6x3 | B: K24 P24 G13 P13x4 D8 P8x2 E6 O6 P6x3 | W"
)


def rules(**options: str) -> g.GameRules:
    return g.GameRules(SOLDIERS, options=variant_options(options))


def text_of(state: g.GameState) -> str:
    return bridge.position_text(state.position, WHITE)


def from_text(text: str, **options: str) -> g.GameState:
    return g.new_game(rules(**options), position=bridge.position_from_text(text))


def code_of(action: object) -> str:
    with pytest.raises(EngineError) as err:
        action()  # type: ignore[operator]
    return str(err.value.code)


def test_soldiers_is_a_registered_variant_with_the_short_rules_around_it() -> None:
    assert VARIANTS["soldiers"] is SOLDIERS and SOLDIERS.checker_classes
    assert not any(v.checker_classes for name, v in VARIANTS.items() if name != "soldiers")
    r = rules()
    assert r.cube_enabled and r.preset.name == "short-standard"
    assert SOLDIERS.opening is SHORT.opening and SOLDIERS.geometry is SHORT.geometry


def test_the_default_options_give_the_rules_start() -> None:
    state = g.new_game(rules())
    assert text_of(state) == DEFAULT_START
    # the plain counts are short nardy's start: the game's end and scoring read them
    assert state.position.sides == SHORT.start_position().sides


def test_the_options_reach_the_start_position() -> None:
    state = g.new_game(rules(army="K2 G1 D0 E1 O0", placement="K24x2 G6 E8"))
    white = text_of(state).split("|")[0]
    assert white.strip() == "W: K24x2 P13x5 E8 P8x2 G6 P6x4"
    # two placements: White's and Black's
    both = g.new_game(rules(placement="K24 G13 D8 E6 O6", placement_black="K13 G24 D6 E8 O6"))
    black = text_of(both).split("|")[1].strip()
    assert black == "B: G24 P24 K13 P13x4 E8 P8x2 D6 O6 P6x3"


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"army": "K5 G5 D5 E1"}, "army_too_large"),
        ({"army": "K1 X1"}, "unknown_class"),
        ({"army": "G6"}, "placement_no_room"),  # six guards on the 13, which holds five
        ({"placement": "K24 G13 D8 E6 O5"}, "placement_no_room"),
        ({"placement": "K24 G13"}, "placement_mismatch"),
        ({"army": "K1 Gx"}, "bad_army"),
        ({"flavour": "sweet"}, "unknown_variant_option"),
    ],
)
def test_bad_options_are_refused_with_their_code(options: dict[str, str], code: str) -> None:
    assert code_of(lambda: rules(**options)) == code
    # two generals fit the 24's two checkers by default: not an error
    assert text_of(g.new_game(rules(army="K2"))).startswith("W: K24x2 ")


def test_other_variants_take_no_options_and_a_soldiers_game_needs_classes() -> None:
    assert code_of(lambda: g.GameRules(SHORT, options=(("army", "K1"),))) == (
        "unknown_variant_option"
    )
    plain = SHORT.start_position()
    assert code_of(lambda: g.new_game(rules(), position=plain)) == "not_soldiers_position"


def test_the_opening_uses_the_opening_dice_and_notation_has_class_letters() -> None:
    state = a.apply(g.new_game(rules()), a.OpeningThrow((2, 5)))
    assert (state.starter, state.dice, state.phase) == (BLACK, (5, 2), g.Phase.PLAY)
    state = a.apply(state, a.PlayMoves(tuple(parse_moves("G13/8 D8/6", SOLDIERS))))
    assert state.turn == WHITE and state.phase is g.Phase.ROLL
    black = bridge.position_text(state.position).split("|")[1]
    assert "G8" in black and "D6" in black
    # the written form is read with its letters and written back canonically
    moves = parse_moves("K6/10 G13/7 8/5*", SOLDIERS)
    assert [type(m) for m in moves] == [ClassMove] * 3
    assert format_moves(moves) == "G13/7 8/5* K6/10"


def test_a_class_move_a_druid_pin_and_a_guard_capture_through_the_game() -> None:
    # a druid pins black's blot on white's 7
    state = g.set_opening(from_text("W: D10 P3 | B: P18 P24x2 | W"), WHITE, (3, 1))
    state = g.play(state, parse_moves("D10/7* 3/2", SOLDIERS))
    assert "P18!" in bridge.position_text(state.position)
    # a pinned checker is where it stands for the counts
    assert state.position.side(BLACK)[18] == 1
    # two attackers capture black's lone guard on white's 6
    state = g.set_opening(from_text("W: P10 P8 | B: G19 P21x2 | W"), WHITE, (4, 2))
    (play,) = g.legal_plays(state)
    assert format_play(play) == "10/6 8/6*"
    assert [s.effect for s in play.steps if isinstance(s, ClassStep)] == ["attack", "capture"]
    state = g.choose_play(state, play)
    assert bridge.position_text(state.position).split("|")[1].strip().startswith("B: Gbar")
    # a general steps back to hit
    state = g.set_opening(from_text("W: K10 P3 | B: P12 | W"), WHITE, (3, 1))
    state = g.play(state, parse_moves("K10/13* 3/2", SOLDIERS))
    assert state.position.side(BLACK)[25] == 1


def test_an_illegal_play_is_refused_with_the_turn() -> None:
    state = a.apply(g.new_game(rules()), a.OpeningThrow((5, 2)))
    with pytest.raises(IllegalPlay) as err:
        g.play(state, parse_moves("G13/5", SOLDIERS))  # 13/5 is not a 5-2 move
    assert err.value.data["turn"] == 1 and err.value.data["side"] == WHITE


def test_the_board_gets_every_route_of_a_play() -> None:
    state = g.set_opening(from_text("W: P13 P3 | B: P1 | W"), WHITE, (6, 1))
    play = g.play(state, parse_moves("13/6", SOLDIERS))
    assert play.phase is g.Phase.ROLL
    (chosen,) = [p for p in g.legal_plays(state) if format_play(p) == "13/6"]
    routes = movegen.play_routes(SOLDIERS, state.position, WHITE, state.dice, chosen)
    assert {tuple((s.origin, s.dest) for s in r.steps) for r in routes} == {
        ((13, 7), (7, 6)),
        ((13, 12), (12, 6)),
    }
    assert all(r.position == chosen.position for r in routes)


def test_pinned_and_loser_checkers_count_where_they_stand_at_the_end() -> None:
    # white bears off its last two; black's checker pinned on its 22 (white's 3)
    # is freed where it stands: in the winner's home, nothing off: koks
    koks = g.set_opening(from_text("W: D3 P1 | B: P22! P13x14 | W"), WHITE, (3, 1))
    koks = g.play(koks, parse_moves("D3/off 1/off", SOLDIERS))
    assert koks.result == g.GameResult(WHITE, "koks", 3, 1, 3, g.END_BEAROFF)
    assert koks.position.side(WHITE)[OFF] == 15
    assert soldiers_result(parse_position(bridge.position_text(koks.position))) == (
        WHITE,
        "koks",
        3,
    )
    assert koks.position.side(BLACK)[22] == 1 and "!" not in bridge.position_text(koks.position)
    mars = g.set_opening(from_text("W: D3 P1 | B: P13x15 | W"), WHITE, (3, 1))
    mars = g.play(mars, parse_moves("D3/off 1/off", SOLDIERS))
    assert mars.result is not None and (mars.result.result_name, mars.result.points) == ("mars", 2)


def test_the_cube_and_a_pass_end_a_game() -> None:
    state = a.apply(g.new_game(rules()), a.OpeningThrow((6, 1)))
    state = a.apply(state, a.PlayMoves(tuple(parse_moves("13/7 8/7", SOLDIERS))))
    for action in (a.Double(), a.Take()):
        state = a.apply(state, action)
    assert (state.cube, state.cube_owner) == (2, WHITE)  # black doubled, white took
    state = a.apply(state, a.RecordedTurn((3, 1), tuple(parse_moves("8/5 6/5", SOLDIERS))))
    state = a.apply(state, a.RecordedTurn((4, 2), tuple(parse_moves("G13/9 D8/6", SOLDIERS))))
    assert code_of(lambda: a.apply(state, a.Double())) == "cube_not_owned"
    state = a.apply(state, a.RecordedTurn((2, 1), tuple(parse_moves("13/11 6/5", SOLDIERS))))
    state = a.apply(state, a.Double())
    state = a.apply(state, a.Pass())
    assert state.result == g.GameResult(WHITE, "pass", 1, 2, 2, g.END_PASS)


def test_a_resignation_is_offered_rejected_then_accepted() -> None:
    state = a.apply(g.new_game(rules()), a.OpeningThrow((4, 3)))
    state = a.apply(state, a.Resign("mars", side=BLACK))
    assert state.phase is g.Phase.RESIGN
    state = a.apply(state, a.RejectResignation())
    assert state.phase is g.Phase.PLAY
    state = a.apply(state, a.Resign("koks"))
    state = a.apply(state, a.AcceptResignation())
    assert state.result == g.GameResult(BLACK, "koks", 3, 1, 3, g.END_RESIGN)


def test_a_match_knows_crawford_and_refuses_the_cube_there() -> None:
    match = Match(rules(army="K1"), 3).record(g.GameResult(WHITE, "mars", 2, 1, 2, "bearoff"))
    game = match.new_game()
    assert game.crawford and text_of(game).startswith("W: K24 P24 P13x5")
    state = a.apply(game, a.OpeningThrow((3, 1)))
    state = a.apply(state, a.PlayMoves(tuple(parse_moves("8/5 6/5", SOLDIERS))))
    assert code_of(lambda: a.apply(state, a.Double())) == "crawford_game"
    assert g.Action.DOUBLE not in g.legal_actions(state)


def random_game(seed: int) -> tuple[g.GameState, int]:
    """A random Soldiers game through the actions, every turn written in
    notation and read back, the cube turned now and then."""
    rng = random.Random(seed)
    state = a.apply(g.new_game(rules()), a.OpeningRoll(RecordedDice([(3, 3), (5, 2)])))
    turns = 0
    while not state.finished:
        assert turns < 2000
        if state.phase is g.Phase.ROLL:
            if g.can_double(state) and state.cube < 8 and rng.random() < 0.05:
                state = a.apply(a.apply(state, a.Double()), a.Take())
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            if g.Action.SKIP_TURN in g.legal_actions(state):
                state = a.apply(state, a.SkipTurn())
                turns += 1
                continue
            state = a.apply(state, a.Roll(RecordedDice([dice])))
        # in the order of the positions' texts: the game does not depend on
        # the order in which the engine lists the plays
        found = sorted(g.legal_plays(state), key=lambda play: bridge.position_text(play.position))
        chosen = rng.choice(found)
        written = format_play(chosen)
        after = a.apply(state, a.PlayMoves(tuple(parse_moves(written, SOLDIERS))))
        assert after.position == g.choose_play(state, chosen).position, written
        state = after
        turns += 1
    return state, turns


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_random_game_is_played_to_its_end_and_scored(seed: int) -> None:
    state, turns = random_game(seed)
    result = state.result
    assert result is not None and result.end == g.END_BEAROFF
    assert state.position.side(result.winner)[OFF] == 15
    # the game's score is the §6 preset on the class-aware position's counts
    final = parse_position(bridge.position_text(state.position))
    assert soldiers_result(final) == (result.winner, result.result_name, result.multiplier)
    assert result.points == result.cube * result.multiplier
    assert turns > 10


def test_the_game_state_refuses_what_short_nardy_refuses() -> None:
    state = g.new_game(rules())
    assert code_of(lambda: g.double(state)) == "wrong_phase"
    started = a.apply(state, a.OpeningThrow((6, 5)))
    assert code_of(lambda: a.apply(started, a.OpeningThrow((6, 5)))) == "wrong_phase"
    with pytest.raises(GameStateError):
        a.apply(started, a.RecordedTurn((3, 1), ()))
