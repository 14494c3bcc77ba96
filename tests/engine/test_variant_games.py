"""Game-level rules of every variant (RULES.md §2-§7), and a random game to the
end in each of them, replayed from its written record."""

from __future__ import annotations

import dataclasses
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from engine.errors import EngineError, GameStateError
from engine.records.notation import parse_moves
from engine.records.replay import format_line, replay
from engine.rules import game as g
from engine.rules.board import BAR, BLACK, OFF, WHITE, Position, other
from engine.rules.dice import RecordedDice, SeededDice
from engine.rules.match import Match
from engine.rules.scoring import PRESETS, get_preset, preset_from_dict
from engine.rules.variants import VARIANTS, Opening, Variant, get_variant

ROOT = Path(__file__).resolve().parents[2]
ALL = sorted(VARIANTS)


def v(name: str) -> Variant:
    return get_variant(name)


def code_of(action: Any) -> str:
    with pytest.raises(GameStateError) as err:
        action()
    return str(err.value.code)


def moves(state: g.GameState, text: str) -> g.GameState:
    return g.play(state, parse_moves(text))


def started(name: str, position: Position, starter: int, dice: tuple[int, ...]) -> g.GameState:
    """A game of ``name`` from ``position`` with ``starter`` to play ``dice``."""
    state = g.new_game(g.GameRules(v(name)), position=position)
    return g.set_opening(state, starter, dice)


# --- the registry ---------------------------------------------------------------


def test_every_variant_is_registered() -> None:
    assert set(VARIANTS) == {
        "short",
        "nackgammon",
        "hypergammon",
        "longgammon",
        "jacquet",
        "dutch",
        "chase",
        "garanquet",
        "caucasian",
        "tavla",
        "old-english",
        "sudden-death",
        "nuclear",
        "plakoto",
        "nauka-short",
        "long",
        "nardegammon",
        "diceless-long",
        "soldiers",
    }


@pytest.mark.parametrize("name", ALL)
def test_each_variant_scores_with_its_own_preset(name: str) -> None:
    rules = g.GameRules(v(name))
    assert rules.preset is get_preset(v(name).scoring)
    expected = {
        "tavla": "tavla",
        "old-english": "single",
        "sudden-death": "single",
        "plakoto": "plakoto",
        "nauka-short": "short-nauka-1980",
        "long": "long-masters",
        "nardegammon": "long-masters",
        "diceless-long": "long-masters",
    }.get(name, "short-standard")
    assert rules.preset.name == expected
    # GameRules.scoring overrides the variant's preset.
    assert g.GameRules(v(name), scoring=PRESETS["long-article"]).preset.name == "long-article"


@pytest.mark.parametrize("name", ALL)
def test_cube_availability(name: str) -> None:
    without = {"tavla", "old-english", "nauka-short", "long", "diceless-long"}
    assert g.GameRules(v(name)).cube_enabled is (name not in without)


# --- openings -------------------------------------------------------------------


def test_nauka_higher_throw_plays_white_with_those_dice() -> None:
    rules = g.GameRules(v("nauka-short"))
    assert v("nauka-short").opening is Opening.HIGHER_PLAYS_WHITE
    # The second seat throws higher: it plays White and starts, and stays
    # the second seat (sides are seats; the colour is the throw's).
    state = g.opening_roll(g.new_game(rules), RecordedDice([2, 5]))
    assert (state.white_player, state.starter, state.turn) == (BLACK, BLACK, BLACK)
    assert state.dice == (5, 2) and state.phase is g.Phase.PLAY
    assert state.opening_dice == (2, 5)
    state = g.opening_roll(g.new_game(rules), RecordedDice([4, 4, 6, 1]))
    assert (state.white_player, state.starter, state.dice) == (WHITE, WHITE, (6, 1))
    # In short nardy colours are fixed: the higher side starts, whichever it is.
    short = g.opening_roll(g.new_game(g.GameRules(v("short"))), RecordedDice([2, 5]))
    assert (short.white_player, short.starter) == (None, BLACK)


def test_nauka_recorded_throw_and_record_start_name_white() -> None:
    rules = g.GameRules(v("nauka-short"))
    # A recorded throw (the games app's opening): the same as the roll.
    thrown = g.opening_throw(g.new_game(rules), 2, 5)
    rolled = g.opening_roll(g.new_game(rules), RecordedDice([2, 5]))
    assert thrown == rolled
    assert (thrown.white_player, thrown.turn, thrown.dice) == (BLACK, BLACK, (5, 2))
    assert code_of(lambda: g.opening_throw(g.new_game(rules), 3, 3)) == "opening_tie"
    # A record names the starter, who won the opening: its seat is White.
    started = g.set_opening(g.new_game(rules), BLACK, (5, 2))
    assert (started.white_player, started.turn, started.dice) == (BLACK, BLACK, (5, 2))
    assert code_of(lambda: g.set_opening(g.new_game(rules), WHITE)) == "opening_dice_required"
    assert code_of(lambda: g.set_opening(g.new_game(rules), WHITE, (3, 3))) == "opening_double"
    assert g.set_opening(g.new_game(rules), WHITE, (5, 2)).white_player == WHITE


def test_garanquet_opening_winner_rolls_three_dice() -> None:
    rules = g.GameRules(v("garanquet"))
    state = g.opening_roll(g.new_game(rules), RecordedDice([3, 3, 2, 6, 5, 5, 4]))
    assert state.starter == BLACK
    assert state.opening_dice == (2, 6)
    assert state.dice == (5, 5, 4)  # rolled anew, not the opening dice
    assert state.phase is g.Phase.PLAY
    # A record may start with three equal dice; two dice are not a roll here.
    assert g.set_opening(g.new_game(rules), WHITE, (6, 6, 6)).dice == (6, 6, 6)
    assert code_of(lambda: g.set_opening(g.new_game(rules), WHITE, (6, 5))) == "invalid_dice"
    waiting = g.set_opening(g.new_game(rules), WHITE)
    assert waiting.phase is g.Phase.ROLL
    assert len(g.roll(waiting, SeededDice(1)).dice) == 3


def test_tavla_opening_winner_rerolls() -> None:
    state = g.opening_roll(g.new_game(g.GameRules(v("tavla"))), RecordedDice([6, 2, 3, 3]))
    assert (state.starter, state.opening_dice, state.dice) == (WHITE, (6, 2), (3, 3))


def test_nardegammon_plays_the_opening_dice_unlike_long() -> None:
    throw = [6, 2, 3, 3]
    narde = g.opening_roll(g.new_game(g.GameRules(v("nardegammon"))), RecordedDice(throw))
    assert narde.dice == (6, 2)
    long = g.opening_roll(g.new_game(g.GameRules(v("long"))), RecordedDice(throw))
    assert long.dice == (3, 3)


def test_diceless_opening_waits_for_named_dice() -> None:
    rules = g.GameRules(v("diceless-long"))
    state = g.opening_roll(g.new_game(rules), RecordedDice([1, 5]))
    assert (state.starter, state.phase, state.dice) == (BLACK, g.Phase.ROLL, ())
    assert g.Action.SET_DICE in g.legal_actions(state)
    assert g.Action.ROLL not in g.legal_actions(state)
    assert code_of(lambda: g.roll(state, SeededDice(0))) == "dice_named_by_mover"
    named = g.set_dice(state, (6, 6))
    assert named.dice == (6, 6) and named.phase is g.Phase.PLAY


@pytest.mark.parametrize("name", [n for n in ALL if n != "diceless-long"])
def test_only_diceless_lets_the_mover_name_dice(name: str) -> None:
    rules = g.GameRules(v(name))
    state = g.set_opening(g.new_game(rules), WHITE, (2, 1) if v(name).dice == 2 else (3, 2, 1))
    state = g.choose_play(state, g.legal_plays(state)[0])
    assert state.phase is g.Phase.ROLL
    assert code_of(lambda: g.set_dice(state, (6,) * v(name).dice)) == "dice_not_nameable"


def test_garanquet_rolls_three_dice_every_turn() -> None:
    rules = g.GameRules(v("garanquet"))
    state = g.set_opening(g.new_game(rules), WHITE, (5, 5, 4))
    state = g.choose_play(state, g.legal_plays(state)[0])
    state = g.roll(state, RecordedDice([1, 2, 3]))
    assert state.dice == (1, 2, 3)


# --- Sudden death -----------------------------------------------------------------

OPENING = "W 3-1: 8/5 6/5\nB 6-4: 24/18 13/9\n"
HIT = "W 6-1: 13/7* 8/7\n"  # black's 18 is white's 7


def test_sudden_death_first_hit_wins_at_once() -> None:
    rules = g.GameRules(v("sudden-death"))
    out = replay(OPENING + HIT, rules)
    assert out.state.result == g.GameResult(WHITE, "single", 1, 1, 1, g.END_HIT)
    assert out.turns == 3
    # The same turn in short nardy just sends the blot to the bar.
    short = replay(OPENING + HIT, g.GameRules(v("short")))
    assert not short.state.finished
    assert short.state.position.side(BLACK)[BAR] == 1


def test_sudden_death_hit_after_a_double_wins_the_cube() -> None:
    rules = g.GameRules(v("sudden-death"))
    out = replay(OPENING + "W doubles\nB takes\n" + HIT, rules)
    assert out.state.result == g.GameResult(WHITE, "single", 1, 2, 2, g.END_HIT)
    with pytest.raises(EngineError) as err:
        replay(OPENING + HIT + "B 6-5: 24/13\n", rules)
    assert err.value.code == "game_over"


def test_sudden_death_has_no_mars() -> None:
    position = Position.from_points({1: 1}, {6: 15})
    for name, expected in (("sudden-death", ("single", 1)), ("short", ("mars", 2))):
        state = moves(started(name, position, WHITE, (2, 1)), "1/off")
        assert state.result is not None
        assert state.result.end == g.END_BEAROFF
        assert (state.result.result_name, state.result.multiplier) == expected


# --- Nuclear ------------------------------------------------------------------------


def blots(position: Position) -> list[tuple[int, int]]:
    return [(s, q) for s in (WHITE, BLACK) for q in range(1, BAR) if position.side(s)[q] == 1]


def test_nuclear_explosion_before_rolling() -> None:
    rules = g.GameRules(v("nuclear"))
    state = replay(OPENING, rules).state  # black left blots on its 24, 18 and 9
    assert g.bomb_owner(state.position) is None
    assert g.Action.EXPLODE in g.legal_actions(state)
    assert sorted(blots(state.position)) == [(BLACK, 9), (BLACK, 18), (BLACK, 24)]
    bar_before = state.position.side(BLACK)[BAR]
    after = g.explode(state)
    assert blots(after.position) == []
    assert after.position.side(BLACK)[BAR] == bar_before + 3
    assert after.position.side(WHITE) == state.position.side(WHITE)
    assert g.bomb_owner(after.position) == BLACK
    # Still white's turn, before rolling; the bomb has passed on.
    assert after.phase is g.Phase.ROLL and after.turn == WHITE
    assert g.Action.EXPLODE not in g.legal_actions(after)
    assert code_of(lambda: g.explode(after)) == "bomb_not_yours"
    rolled = g.roll(after, RecordedDice([6, 5]))
    assert code_of(lambda: g.explode(rolled)) == "already_rolled"
    black_turn = g.choose_play(rolled, g.legal_plays(rolled)[0])
    assert g.can_explode(black_turn)
    back = g.explode(black_turn)
    assert g.bomb_owner(back.position) == WHITE


def test_nuclear_bomb_waits_for_the_first_move_and_exists_only_in_nuclear() -> None:
    opening = g.opening_roll(g.new_game(g.GameRules(v("nuclear"))), RecordedDice([3, 1]))
    assert code_of(lambda: g.explode(opening)) == "already_rolled"
    short = replay(OPENING, g.GameRules(v("short"))).state
    assert code_of(lambda: g.explode(short)) == "no_bomb"
    assert g.Action.EXPLODE not in g.legal_actions(short)


def test_nuclear_replay_syntax() -> None:
    rules = g.GameRules(v("nuclear"))
    out = replay(OPENING + "W explodes\nW 6-5: 24/13\nB explodes\n", rules)
    assert out.state.phase is g.Phase.ROLL
    assert out.state.turn == BLACK
    assert g.bomb_owner(out.state.position) == WHITE
    with pytest.raises(EngineError) as err:
        replay(OPENING + "W explodes\nW explodes\n", rules)
    assert (err.value.code, err.value.data["line"]) == ("bomb_not_yours", 4)
    with pytest.raises(EngineError) as err:
        replay(OPENING + "B explodes\n", rules)
    assert err.value.code == "wrong_mover"


# --- Plakoto ------------------------------------------------------------------------


def plakoto_position(white: dict[int, int], black: dict[int, int]) -> Position:
    base = Position.from_points(white, black)
    return Position(base.sides, v("plakoto").start_extra)


def test_plakoto_pinning_the_mother_ends_the_game_with_mars() -> None:
    # Black's last checker on its own 24 (white's 1) is the mother.
    position = plakoto_position({3: 1, 6: 14}, {24: 1, 1: 2, 2: 12})
    state = moves(started("plakoto", position, WHITE, (2, 1)), "3/1 6/5")
    assert state.result == g.GameResult(WHITE, "mars", 2, 1, 2, g.END_MOTHER_PINNED)
    # Some black checkers are already off: the mother still makes it a mars.
    position = plakoto_position({3: 1, 6: 14}, {24: 1, 1: 2})
    state = moves(started("plakoto", position, WHITE, (2, 1)), "3/1 6/5")
    assert state.result is not None and state.result.multiplier == 2


def test_plakoto_pinning_another_checker_goes_on() -> None:
    # Black's 20 is white's 5: pinning that blot is no mother.
    position = plakoto_position({7: 1, 6: 14}, {24: 2, 20: 1, 2: 12})
    state = moves(started("plakoto", position, WHITE, (2, 1)), "7/5 6/5")
    assert not state.finished
    assert state.turn == BLACK
    assert state.position.side(BLACK)[20] == 1 and state.position.side(WHITE)[5] == 2


def test_plakoto_mother_pinned_with_a_cube() -> None:
    position = plakoto_position({3: 1, 6: 14}, {24: 1, 1: 2, 2: 12})
    state = started("plakoto", position, WHITE, (2, 1))
    state = moves(dataclasses.replace(state, cube=4, cube_owner=BLACK), "3/1 6/5")
    assert state.result == g.GameResult(WHITE, "mars", 2, 4, 8, g.END_MOTHER_PINNED)


# --- Scoring presets in games -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "black", "expected"),
    [
        ("short", {6: 14, 19: 1}, ("koks", 3)),
        ("tavla", {6: 14, 19: 1}, ("mars", 2)),  # no koks in Tavla
        ("old-english", {6: 14, 19: 1}, ("single", 1)),  # every win scores 1
        ("nauka-short", {6: 14, BAR: 1}, ("mars x8", 8)),
        ("nauka-short", {6: 14, 7: 1}, ("mars x4", 4)),
        ("nauka-short", {6: 15}, ("mars", 2)),
    ],
)
def test_short_family_presets_in_games(
    name: str, black: dict[int, int], expected: tuple[str, int]
) -> None:
    position = Position.from_points({1: 1}, black)
    state = moves(started(name, position, WHITE, (2, 1)), "1/off")
    assert state.result is not None
    assert (state.result.result_name, state.result.multiplier) == expected


def test_a_user_defined_preset_plays_a_game() -> None:
    fed = preset_from_dict(
        {
            "name": "fed",
            "rules": [
                {"name": "koks", "multiplier": 4, "conditions": ["on_start"]},
                {"name": "mars", "multiplier": 2, "conditions": ["none_off"]},
            ],
        }
    )
    position = Position.from_points({1: 1}, {24: 1, 1: 14})  # long: black's head is 24
    rules = g.GameRules(v("long"), scoring=preset_from_dict(fed.to_dict()))
    state = g.set_opening(g.new_game(rules, position=position), WHITE, (2, 1))
    state = moves(state, "1/off")
    assert state.result == g.GameResult(WHITE, "koks", 4, 1, 4, g.END_BEAROFF)
    resigning = replay("W 2-1: 24/21\nB resigns koks\n", rules)
    assert resigning.state.resignation is not None
    assert resigning.state.resignation.multiplier == 4


# --- Matches ------------------------------------------------------------------------


def test_crawford_only_where_the_variant_has_a_cube() -> None:
    def to_four(rules: g.GameRules) -> Match:
        return Match(rules, 5).record(g.GameResult(WHITE, "koks", 4, 1, 4, g.END_BEAROFF))

    narde = to_four(g.GameRules(v("nardegammon")))
    assert narde.next_game_crawford and narde.new_game().crawford
    long = to_four(g.GameRules(v("long")))
    assert long.crawford_game is None and not long.new_game().crawford


# --- a random game to the end in every variant ---------------------------------------


def random_game(rules: g.GameRules, seed: int) -> tuple[str, g.GameState, int, list[g.GameState]]:
    """A random legal game, cube and bomb included where the variant has them:
    (record text, final state, turn lines, every state passed through)."""
    variant = rules.variant
    dice = SeededDice(seed)
    rng = random.Random(seed)
    state = g.opening_roll(g.new_game(rules), dice)
    states = [state]
    lines = [f"# random {variant.name} game, seed {seed}"]
    turns = 0
    while not state.finished:
        assert turns < 3000, f"{variant.name}: no end after {turns} turns"
        side = state.turn
        assert side is not None
        if state.phase is g.Phase.ROLL:
            if g.can_double(state) and state.cube < 64 and rng.random() < 0.05:
                state = g.take(g.double(state))  # taken: the game goes to its end
                lines += [f"{'WB'[side]} doubles", f"{'WB'[other(side)]} takes"]
                states.append(state)
            if g.can_explode(state) and rng.random() < 0.15:
                state = g.explode(state)
                lines.append(f"{'WB'[side]} explodes")
                states.append(state)
            if variant.mover_names_dice:
                state = g.set_dice(state, (rng.randint(1, 6), rng.randint(1, 6)))
            else:
                state = g.roll(state, dice)
        rolled = state.dice
        chosen = rng.choice(g.legal_plays(state))
        state = g.choose_play(state, chosen)
        states.append(state)
        lines.append(format_line(side, rolled, chosen))
        turns += 1
    return "\n".join(lines) + "\n", state, turns, states


def check_finished(variant: Variant, state: g.GameState, states: list[g.GameState]) -> None:
    result = state.result
    assert result is not None and result.winner in (WHITE, BLACK)
    preset = get_preset(variant.scoring)
    assert result.result_name in preset.result_names()
    assert result.multiplier == preset.multiplier_of(result.result_name)
    assert result.points == result.cube * result.multiplier
    assert result.cube == state.cube
    for seen in states:
        assert seen.position.checkers(WHITE) == seen.position.checkers(BLACK) == variant.checkers
    winner = state.position.side(result.winner)
    if result.end == g.END_BEAROFF:
        assert winner[OFF] == variant.checkers
    elif result.end == g.END_HIT:
        assert variant.first_hit_wins
        assert state.position.side(result.loser)[BAR] >= 1
    else:
        assert result.end == g.END_MOTHER_PINNED and variant.pinning
        assert result.multiplier == 2


SEEDS = {name: 1000 + i for i, name in enumerate(ALL)}


@pytest.mark.parametrize("name", ALL)
def test_random_game_to_the_end_replays_the_same(name: str) -> None:
    variant = v(name)
    rules = g.GameRules(variant)
    text, state, turns, states = random_game(rules, SEEDS[name])
    check_finished(variant, state, states)
    replayed = replay(text, rules)
    assert replayed.state.result == state.result
    assert replayed.state.position == state.position
    assert replayed.turns == turns
    if "doubles" in text:
        assert variant.cube and state.cube > 1


def test_random_games_use_cube_bomb_three_dice_and_every_ending() -> None:
    nuclear, *_ = random_game(g.GameRules(v("nuclear")), SEEDS["nuclear"])
    assert "explodes" in nuclear
    short, *_ = random_game(g.GameRules(v("short")), SEEDS["short"])
    narde, *_ = random_game(g.GameRules(v("nardegammon")), SEEDS["nardegammon"])
    assert "doubles" in short and "doubles" in narde
    garanquet, *_ = random_game(g.GameRules(v("garanquet")), SEEDS["garanquet"])
    assert re.search(r"^[WB] [1-6]-[1-6]-[1-6]: ", garanquet, re.MULTILINE)
    _, sudden, *_ = random_game(g.GameRules(v("sudden-death")), SEEDS["sudden-death"])
    assert sudden.result is not None and sudden.result.end == g.END_HIT
    ends = set()
    for seed in range(10):
        _, plakoto, *_ = random_game(g.GameRules(v("plakoto")), seed)
        assert plakoto.result is not None
        ends.add(plakoto.result.end)
    assert ends == {g.END_BEAROFF, g.END_MOTHER_PINNED}


def expected_json(state: g.GameState, turns: int) -> dict[str, Any]:
    result = state.result
    assert result is not None
    return {
        "winner": ("white", "black")[result.winner],
        "result": result.result_name,
        "multiplier": result.multiplier,
        "cube": result.cube,
        "points": result.points,
        "end": result.end,
        "turns": turns,
        "finished": True,
    }


@pytest.mark.parametrize(
    "name", ["short", "long", "plakoto", "garanquet", "diceless-long", "nuclear"]
)
def test_random_game_replays_through_the_command_line(tmp_path: Path, name: str) -> None:
    text, state, turns, _ = random_game(g.GameRules(v(name)), SEEDS[name])
    path = tmp_path / f"{name}.txt"
    path.write_text(text, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(path), "--variant", name],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout
    out = json.loads(proc.stdout)
    expected = expected_json(state, turns)
    assert {k: out[k] for k in expected} == expected


@pytest.mark.parametrize("name", ALL)
def test_random_game_replays_through_main(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    text, state, turns, _ = random_game(g.GameRules(v(name)), SEEDS[name] + 1)
    path = tmp_path / "game.txt"
    path.write_text(text, encoding="utf-8")
    assert main(["replay", str(path), "--variant", name]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = expected_json(state, turns)
    assert {k: out[k] for k in expected} == expected
