from __future__ import annotations

import random

import pytest

from engine.records.replay import ReplayError, format_line, position_dict, replay
from engine.rules import game as g
from engine.rules.board import BAR, BLACK, WHITE, Position
from engine.rules.dice import SeededDice
from engine.rules.plays import Play
from engine.rules.variants import HYPERGAMMON, LONG, NACKGAMMON, SHORT, Variant, get_variant
from engine.soldiers.bridge import wrap
from engine.soldiers.state import start_position as soldiers_start


def random_record(
    rules: g.GameRules, seed: int, *, cube: bool = False, stop: int | None = None
) -> tuple[str, g.GameState, int]:
    """A random legal game written as a record: (text, final state, turn lines)."""
    dice = SeededDice(seed)
    rng = random.Random(seed)
    state = g.opening_roll(g.new_game(rules), dice)
    lines = [f"# random {rules.variant.name} game, seed {seed}", ""]
    turns = 0
    while not state.finished and (stop is None or turns < stop):
        side = state.turn
        assert side is not None
        name = "WB"[side]
        if state.phase is g.Phase.ROLL:
            if cube and g.can_double(state) and rng.random() < 0.1:
                state = g.double(state)
                lines.append(f"{name} doubles")
                if rng.random() < 0.85:
                    state = g.take(state)
                    lines.append(f"{'WB'[1 - side]} takes")
                else:
                    state = g.pass_(state)
                    lines.append(f"{'WB'[1 - side]} passes")
                continue
            if state.position.side(side)[BAR] and g.no_roll_playable(
                rules.variant, state.position, side
            ):
                state = g.skip_turn(state)
                lines.append(format_line(side, None, Play((), state.position)))
                turns += 1
                continue
            state = g.roll(state, dice)
        rolled = state.dice
        chosen = rng.choice(g.legal_plays(state))
        state = g.choose_play(state, chosen)
        lines.append(format_line(side, rolled, chosen))
        turns += 1
    return "\n".join(lines) + "\n", state, turns


@pytest.mark.parametrize("variant", [SHORT, LONG, NACKGAMMON, HYPERGAMMON], ids=lambda v: v.name)
def test_random_games_replay_to_the_same_end(variant: Variant) -> None:
    rules = g.GameRules(variant)
    for seed in range(3):
        text, expected, turns = random_record(rules, seed, cube=variant.cube)
        replayed = replay(text, rules)
        assert replayed.state.position == expected.position
        assert replayed.state.result == expected.result
        assert replayed.state.cube == expected.cube
        assert replayed.turns == turns
        out = replayed.to_dict()
        assert expected.result is not None
        assert out["winner"] == ("white", "black")[expected.result.winner]
        assert out["points"] == expected.result.points
        assert out["finished"] is True


def test_partial_record() -> None:
    rules = g.GameRules(SHORT)
    text, expected, turns = random_record(rules, 7, stop=10)
    assert turns == 10
    out = replay(text, rules)
    assert out.state.position == expected.position
    data = out.to_dict()
    assert data["winner"] is None and data["finished"] is False and data["points"] is None
    assert data["turns"] == 10
    assert data["to_act"] == ("white", "black")[expected.turn or 0]
    assert data["final"] == position_dict(expected.position)


def test_position_dict() -> None:
    position = Position.from_points({24: 2, 6: 5, BAR: 1}, {1: 3})
    assert position_dict(position) == {
        "white": {"points": {"24": 2, "6": 5}, "bar": 1, "off": 7},
        "black": {"points": {"1": 3}, "bar": 0, "off": 12},
    }


def test_position_dict_writes_a_soldiers_position_as_its_text() -> None:
    # the class-aware position is a named tuple: it must not come out as lists
    kept = soldiers_start().with_turn(BLACK)
    extra = position_dict(wrap(kept))["extra"]
    assert extra == {"soldiers": kept.text()}
    assert isinstance(extra["soldiers"], str) and extra["soldiers"].startswith("W: K24 ")


OPENING = "W 3-1: 8/5 6/5\nB 6-4: 24/18 13/9\n"


def test_cube_and_resignation_lines() -> None:
    rules = g.GameRules(SHORT, beaver=True)
    text = (
        OPENING
        + "W doubles\nB beavers\nW takes\nW 6-5: 24/13\nB resigns mars\nW rejects\nB 2-1: 13/11 6/5\nW resigns\nB accepts\n"
    )
    out = replay(text, rules)
    assert out.state.result == g.GameResult(BLACK, "single", 1, 4, 4, g.END_RESIGN)
    assert out.state.cube_owner == BLACK
    assert out.turns == 4
    passed = replay(OPENING + "W doubles\nB drops\n", rules).state.result
    assert passed == g.GameResult(WHITE, "pass", 1, 1, 1, g.END_PASS)


def error_of(text: str, rules: g.GameRules | None = None) -> ReplayError:
    with pytest.raises(ReplayError) as err:
        replay(text, rules or g.GameRules(SHORT))
    return err.value


def test_errors_name_turn_and_line() -> None:
    err = error_of("# comment\n\n" + OPENING + "W 5-2: 13/8 13/10\n")  # 13/10 is a 3
    assert err.data["turn"] == 3 and err.data["line"] == 5
    assert err.data["text"] == "W 5-2: 13/8 13/10"
    assert err.as_dict()["code"]

    err = error_of(OPENING + "B 5-2: 13/8 13/11\n")
    assert (err.code, err.data["turn"], err.data["line"]) == ("wrong_mover", 3, 3)
    assert err.data["expected"] == "white"

    assert error_of(OPENING + "W 5-2 13/8\n").code == "bad_turn"
    assert error_of("X 3-1: 8/5 6/5\n").code == "bad_line"
    assert error_of("W doubles\n").code == "not_started"
    assert error_of(OPENING + "W redoubles\n").code == "bad_line"
    assert error_of(OPENING + "W ?-?: Ø\n").code == "turn_playable"
    assert error_of(OPENING + "W ?-?: 13/8\n").code == "moves_without_dice"
    assert error_of("W 3-3: 8/5(2) 6/3(2)\n").code == "opening_double"
    assert error_of(OPENING + "W doubles\nW 6-5: 24/13\n").code == "wrong_mover"
    assert error_of(OPENING + "W doubles\nB drops\nW 6-5: 24/13\n").code == "game_over"
    no_cube = error_of("W 6-5: 24/13\nB 4-3: 24/17\nW doubles\n", g.GameRules(LONG))
    assert (no_cube.code, no_cube.data["turn"], no_cube.data["line"]) == ("no_cube", 3, 3)


def test_closed_out_from_a_given_start() -> None:
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 3}
    start = Position.from_points({BAR: 1, 6: 14}, closed)
    out = replay("B 2-1: 7/5 7/6\nW ?-?: Ø\nB 6-5: 7/1 6/1\n", g.GameRules(SHORT), start=start)
    assert out.turns == 3
    assert out.state.turn == WHITE
    assert out.state.position.side(WHITE) == start.side(WHITE)


# --- three dice, named dice --------------------------------------------------------

GARANQUET = get_variant("garanquet")


def test_three_dice_lines() -> None:
    rules = g.GameRules(GARANQUET)
    # Three equal dice: six moves, written with a repeat beyond (4).
    out = replay("W 2-2-2: 13/11(5) 6/4\nB 5-5-4: 13/3(2) 13/9\n", rules)
    white, black = out.state.position.sides
    assert (white[13], white[11], white[6], white[4]) == (0, 5, 4, 1)
    assert (black[13], black[3], black[9]) == (2, 2, 1)
    assert out.turns == 2 and out.state.turn == WHITE
    spaced = replay("W 2 - 2 - 2 : 13/11 13/11 13/11(3) 6/4\n", rules)
    assert spaced.state.position.sides[0] == white


def test_three_dice_errors() -> None:
    rules = g.GameRules(GARANQUET)
    line = "W 5-5-4: 13/8(2) 13/9 13/x"
    err = error_of(line + "\n", rules)
    assert (err.code, err.data["line"], err.data["token"]) == ("bad_token", 1, "13/x")
    assert err.data["offset"] == line.index("13/x") - 2  # offsets count from the dice
    assert error_of("W 5-4: 13/8 13/9\n", rules).code == "invalid_dice"
    assert error_of("W 5-5-4: 13/3(2) 13/9\n").code == "invalid_dice"  # short: two dice
    # 5-5-6: the fives are no doublet, so there are three moves, not five.
    assert error_of("W 5-5-6: 13/3(2) 13/7 6/1\n", rules).code == "dice_mismatch"
    played = replay("W 5-5-6: 13/3 13/7\n", rules).state.position.side(WHITE)
    assert (played[13], played[7], played[3]) == (3, 1, 1)


def test_named_dice_only_in_diceless_long() -> None:
    rules = g.GameRules(get_variant("diceless-long"))
    out = replay("W 6-6: 24/18(2)\nB 1-2: 24/21\nW 3-5: 24/16\n", rules)
    assert out.turns == 3
    assert out.state.position.side(WHITE)[24] == 12
    assert out.state.position.side(BLACK)[21] == 1
    assert out.state.position.side(WHITE)[16] == 1
