"""The bgsage analyser on hand-made games and positions: best plays cost
nothing, a bad play and wrong cube actions are marked, other variants are
refused."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from bgsage import STARTING_BOARD

from analysis.analysers import ANALYSERS, get_analyser
from analysis.analysers.bgsage_analyser import BgsageAnalyser
from analysis.analysers.boards import signed_board
from analysis.core import (
    AnalysisError,
    CheckerQuery,
    CubeContext,
    CubeQuery,
    CubeTurn,
    TakeTurn,
    analyse_match,
    analyse_turns,
)
from engine.rules.board import Position
from engine.rules.plays import Play
from engine.rules.variants import SHORT, VARIANTS
from tests.analysis.records import DICE, Turn, make_game, make_match

ANALYSER = get_analyser("bgsage")
MATCH_0_0 = CubeContext(1, "centred", (7, 7))
MONEY = CubeContext(1, "centred", (0, 0))


def best_play(query: CheckerQuery, plays: Sequence[Play]) -> int:
    (equities,) = ANALYSER.evaluate_plays([query])
    return max(range(len(equities)), key=lambda i: equities[i])


def worst_play(query: CheckerQuery, plays: Sequence[Play]) -> int:
    (equities,) = ANALYSER.evaluate_plays([query])
    return min(range(len(equities)), key=lambda i: equities[i])


def test_the_registry() -> None:
    assert ANALYSERS == ("bgsage",)
    assert ANALYSER.name == "bgsage" and ANALYSER.depth == 1
    with pytest.raises(AnalysisError) as unknown:
        get_analyser("xg")
    assert unknown.value.code == "unknown_analyser"
    with pytest.raises(AnalysisError) as deep:
        get_analyser("bgsage", depth=7)
    assert deep.value.code == "bad_depth"


@pytest.mark.parametrize("name", sorted(set(VARIANTS) - {"short"}))
def test_only_standard_backgammon_is_analysed(name: str) -> None:
    with pytest.raises(AnalysisError) as refused:
        ANALYSER.check_variant(VARIANTS[name])
    assert refused.value.code == "not_analysable"
    assert refused.value.data == {"variant": name, "analyser": "bgsage"}


def test_the_board_conversion() -> None:
    start = SHORT.start_position()
    assert signed_board(start, 0) == STARTING_BOARD == signed_board(start, 1)
    # White on the bar and on black's side; black's checker on white's 5 point.
    position = Position.from_points({25: 1, 6: 14}, {20: 1, 1: 14})
    board = signed_board(position, 0)
    assert board[25] == 1 and board[6] == 14 and board[5] == -1 and board[24] == -14
    assert board[0] == 0
    assert signed_board(position, 1)[0] == 1


def test_a_game_of_best_plays_has_pr_0() -> None:
    game = make_game([Turn(d) for d in DICE], chooser=best_play)
    analysis = analyse_match(make_match([game]), ANALYSER)
    checker = [d for d in analysis.decisions if d.kind == "checker"]
    assert len(checker) == len(DICE)
    assert all(d.error == 0.0 and d.best == d.played for d in checker)
    # Early positions: not doubling is right everywhere.
    assert all(d.error == 0.0 for d in analysis.decisions)
    assert analysis.players[0].pr == 0.0 and analysis.players[1].pr == 0.0
    assert analysis.evaluations > len(DICE) * 10


def test_a_bad_play_is_marked() -> None:
    game = make_game([Turn((6, 5)), Turn((3, 1))], chooser=worst_play)
    analysis = analyse_match(make_match([game]), ANALYSER)
    opening = analysis.decisions[0]
    assert opening.kind == "checker" and opening.played != opening.best
    assert opening.best == "24/13"  # the book play
    assert opening.error >= 0.080 and opening.mark in ("error", "blunder")
    white = analysis.players[0]
    assert white.errors + white.blunders == 1 and white.pr == pytest.approx(500 * opening.error)


def cube_turn(position: Position, cube: CubeContext, doubled: bool) -> CubeTurn:
    return CubeTurn(1, 0, 0, CubeQuery(SHORT, position, 0, cube), doubled)


# A race white wins about 86 times in 100: double, and pass.
RACE = Position.from_points({6: 3, 5: 3, 4: 3, 8: 3, 9: 3}, {6: 3, 5: 3, 4: 2, 10: 3, 11: 4})


@pytest.mark.parametrize("cube", [MATCH_0_0, MONEY])
def test_a_clear_no_double(cube: CubeContext) -> None:
    start = SHORT.start_position()
    doubled, held = analyse_turns(
        [cube_turn(start, cube, True), cube_turn(start, cube, False)], ANALYSER
    )
    assert doubled.best == "no_double" and doubled.played == "double"
    assert doubled.error > 0.2 and doubled.counted and doubled.mark == "blunder"
    assert held.error == 0.0 and not held.counted  # too far from a double to count


@pytest.mark.parametrize("cube", [MATCH_0_0, MONEY])
def test_a_clear_pass(cube: CubeContext) -> None:
    query = CubeQuery(SHORT, RACE, 0, cube)
    took, passed, doubled = analyse_turns(
        [
            TakeTurn(1, 1, 1, query, took=True),
            TakeTurn(1, 1, 1, query, took=False),
            CubeTurn(1, 0, 0, query, doubled=True),
        ],
        ANALYSER,
    )
    assert took.best == "pass" and took.played == "take"
    assert took.error > 0.2 and took.counted
    assert passed.error == 0.0 and passed.best_equity == pytest.approx(-1.0, abs=1e-3)
    assert doubled.best == "double_pass" and doubled.error == 0.0


def test_deeper_analysis_evaluates_the_played_play_at_full_depth() -> None:
    game = make_game([Turn((6, 5)), Turn((3, 1))], chooser=worst_play)
    record = make_match([game])
    shallow = analyse_match(record, ANALYSER).decisions[0]
    deep = analyse_match(record, BgsageAnalyser(depth=2)).decisions[0]
    assert deep.best == "24/13" and deep.error >= 0.080
    assert deep.error == pytest.approx(shallow.error, abs=0.1)
