"""The analysis core with a scripted analyser: which turns are decisions, the
error formulas, marks and PR (no evaluator involved)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from analysis.core import (
    AnalysisError,
    CheckerQuery,
    CheckerTurn,
    CubeEquities,
    CubeQuery,
    CubeTurn,
    TakeTurn,
    analyse_match,
    find_decisions,
    mark,
    pr,
    scoring,
)
from engine.movegen import legal_plays
from engine.records.record import (
    BEAVER,
    DOUBLE,
    PLAY,
    TAKE,
    MatchRecord,
    MatchSettings,
    RecordAction,
)
from engine.rules.plays import Play
from engine.rules.variants import LONG, SHORT, Variant
from tests.analysis.records import DICE, Turn, make_game, make_match
from tests.imports import ROOT, imported_modules


class Scripted:
    """Candidate ``i`` is worth ``-step * i`` (the first is best); every cube
    position gets the same ``cube`` equities."""

    name = "scripted"
    depth = 1

    def __init__(self, step: float = 0.01, cube: CubeEquities | None = None) -> None:
        self.step = step
        self.cube = cube or CubeEquities(0.1, -0.3, 1.0)
        self.cube_queries: list[CubeQuery] = []

    def check_variant(self, variant: Variant) -> None:
        if variant.name != "short":
            raise AnalysisError("not_analysable", "short only", variant=variant.name)

    def evaluate_plays(self, queries: Sequence[CheckerQuery]) -> list[tuple[float, ...]]:
        return [tuple(-self.step * i for i in range(len(q.candidates))) for q in queries]

    def evaluate_cubes(self, queries: Sequence[CubeQuery]) -> list[CubeEquities]:
        self.cube_queries.extend(queries)
        return [self.cube for _ in queries]


# --- Formulas


def test_pr_is_500_times_the_mean_error() -> None:
    assert pr([0.1, 0.0, 0.05, 0.05]) == pytest.approx(25.0)
    assert pr([0.0, 0.0]) == 0.0
    assert pr([]) is None


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (0.0, ""),
        (0.039, ""),
        (0.040, "doubtful"),
        (0.079, "doubtful"),
        (0.080, "error"),
        (0.16, "blunder"),
    ],
)
def test_marks_follow_gnubg_thresholds(error: float, expected: str) -> None:
    assert mark(error) == expected


def test_cube_and_take_errors() -> None:
    no_double = CubeEquities(no_double=0.1, double_take=-0.3, double_pass=1.0)
    assert scoring.best_cube_action(no_double) == "no_double"
    assert scoring.cube_error(no_double, doubled=False) == 0.0
    assert scoring.cube_error(no_double, doubled=True) == pytest.approx(0.4)
    # Far from a double: not counted unless the player doubled.
    assert not scoring.cube_counts(no_double, doubled=False)
    assert scoring.cube_counts(no_double, doubled=True)

    double_pass = CubeEquities(no_double=0.9, double_take=1.4, double_pass=1.0)
    assert scoring.best_cube_action(double_pass) == "double_pass"
    assert scoring.cube_error(double_pass, doubled=False) == pytest.approx(0.1)
    assert scoring.take_error(double_pass, took=True) == pytest.approx(0.4)
    assert scoring.take_error(double_pass, took=False) == 0.0
    assert scoring.take_counts(double_pass)

    double_take = CubeEquities(no_double=0.5, double_take=0.6, double_pass=1.0)
    assert scoring.best_cube_action(double_take) == "double_take"
    assert scoring.take_error(double_take, took=False) == pytest.approx(0.4)
    assert scoring.cube_counts(double_take, doubled=False)  # a close decision counts
    # Too good to double: ND above DP by more than 0.2 is trivial.
    too_good = CubeEquities(no_double=1.3, double_take=1.9, double_pass=1.0)
    assert scoring.best_cube_action(too_good) == "no_double"
    assert not scoring.cube_counts(too_good, doubled=False)


# --- Which turns are decisions


def test_opening_is_a_checker_decision_but_not_a_cube_one() -> None:
    turns = find_decisions(make_match([make_game([Turn(d) for d in DICE[:4]])]))
    kinds = [(type(t).__name__, t.side, t.action) for t in turns]
    assert kinds == [
        ("CheckerTurn", 0, 0),
        ("CubeTurn", 1, 1),
        ("CheckerTurn", 1, 1),
        ("CubeTurn", 0, 2),
        ("CheckerTurn", 0, 2),
        ("CubeTurn", 1, 3),
        ("CheckerTurn", 1, 3),
    ]
    cube = next(t for t in turns if isinstance(t, CubeTurn))
    assert (
        not cube.doubled and cube.query.cube.away == (7, 7) and cube.query.cube.owner == "centred"
    )


def test_a_double_taken_and_the_cube_thereafter() -> None:
    game = make_game([Turn(DICE[0]), Turn(DICE[1]), Turn(DICE[2], double="take"), Turn(DICE[3])])
    turns = find_decisions(make_match([game]))
    cube_turns = [t for t in turns if not isinstance(t, CheckerTurn)]
    first, double, take, black = cube_turns
    assert isinstance(first, CubeTurn) and first.side == 1 and not first.doubled
    assert isinstance(double, CubeTurn) and double.doubled and double.side == 0
    assert double.action == 2  # the DOUBLE action
    assert isinstance(take, TakeTurn) and take.took and take.side == 1 and take.action == 3
    assert take.query == double.query  # judged by the doubler's cube position
    # Black owns the 2-cube now: black's next turn is a redouble decision.
    assert isinstance(black, CubeTurn) and black.side == 1 and not black.doubled
    assert black.query.cube.value == 2 and black.query.cube.owner == "mover"


def test_the_cube_owner_alone_decides_and_a_drop_ends_the_game() -> None:
    game = make_game(
        [
            Turn(DICE[0]),
            Turn(DICE[1], double="take"),
            Turn(DICE[2]),
            Turn(DICE[3]),
            Turn(None, "drop"),
        ]
    )
    turns = find_decisions(make_match([game]))
    cube_sides = [(type(t).__name__, t.side) for t in turns if not isinstance(t, CheckerTurn)]
    # White owns the cube after taking: black has no cube decision later, white has.
    assert cube_sides == [
        ("CubeTurn", 1),
        ("TakeTurn", 0),
        ("CubeTurn", 0),
        ("CubeTurn", 0),
        ("TakeTurn", 1),
    ]
    drop = turns[-1]
    assert isinstance(drop, TakeTurn) and not drop.took


def test_money_play_and_a_beaver() -> None:
    opening = make_game([Turn(DICE[0]), Turn(DICE[1])], length=0)
    white_play, black_play = opening.actions
    # Black doubles before its next roll, white beavers (cube 4, white's), black takes.
    actions = (
        white_play,
        black_play,
        RecordAction(0, 0, PLAY, dice=DICE[2], play=first_legal(black_play.play, 0, DICE[2])),
        RecordAction(0, 1, DOUBLE, value=2),
        RecordAction(0, 0, BEAVER, value=4),
        RecordAction(0, 1, TAKE),
    )
    game = replace(opening, actions=actions)
    record = MatchRecord(MatchSettings(length=0, jacoby=True, beaver=True), (game,))
    turns = find_decisions(record)
    cube_turns = [t for t in turns if not isinstance(t, CheckerTurn)]
    kinds = [(type(t).__name__, t.side, t.action) for t in cube_turns]
    # The doubler's answer to the beaver (action 5) is no decision.
    assert kinds == [("CubeTurn", 1, 1), ("CubeTurn", 0, 2), ("CubeTurn", 1, 3), ("TakeTurn", 0, 4)]
    beaver = cube_turns[-1]
    assert isinstance(beaver, TakeTurn) and beaver.took
    cube = beaver.query.cube
    assert cube.money and cube.away == (0, 0) and cube.jacoby and cube.beaver
    assert cube.value == 1 and cube.owner == "centred"


def first_legal(play: Play | None, side: int, dice: tuple[int, int]) -> Play:
    assert play is not None
    return legal_plays(SHORT, play.position, side, dice)[0]


def test_no_cube_decisions_in_the_crawford_game_or_with_a_dead_cube() -> None:
    crawford = make_game([Turn(d) for d in DICE[:4]], score=(6, 3), crawford=True)
    assert all(isinstance(t, CheckerTurn) for t in find_decisions(make_match([crawford])))
    # Post-Crawford: the leader (1-away) has a dead cube, the trailer doubles.
    post = make_game([Turn(d) for d in DICE[:4]], score=(6, 3))
    cube_sides = {t.side for t in find_decisions(make_match([post])) if isinstance(t, CubeTurn)}
    assert cube_sides == {1}


def test_forced_plays_are_no_decisions() -> None:
    game = make_game([Turn(d) for d in DICE[:6]])
    plays = [a for a in game.actions]
    checker = [t for t in find_decisions(make_match([game])) if isinstance(t, CheckerTurn)]
    assert len(checker) == len(plays)  # these rolls all leave a choice
    assert all(len(t.query.candidates) >= 2 for t in checker)


# --- A match analysed


def test_a_game_of_best_plays_and_right_cube_actions_has_pr_0() -> None:
    analysis = analyse_match(make_match([make_game([Turn(d) for d in DICE])]), Scripted())
    assert analysis.players[0].pr == 0.0 and analysis.players[1].pr == 0.0
    assert all(d.error == 0.0 for d in analysis.decisions)
    assert analysis.players[0].checker_decisions == 5 and analysis.players[1].checker_decisions == 5
    # The scripted cube is far from a double: listed, never counted.
    assert analysis.players[0].cube_decisions == 0
    assert {d.counted for d in analysis.decisions if d.kind == "cube"} == {False}


def test_errors_marks_and_pr_per_game_and_player() -> None:
    # White always plays the 5th candidate (0.04 lost: doubtful), black the 9th
    # (0.08: an error) where there are that many.
    def chooser(query: CheckerQuery, plays: Sequence[object]) -> int:
        return min(4 if query.side == 0 else 8, len(plays) - 1)

    record = make_match(
        [
            make_game([Turn(d) for d in DICE], chooser=chooser),
            make_game([Turn(d) for d in DICE[:4]], number=2, score=(1, 0)),
        ]
    )
    analysis = analyse_match(record, Scripted())
    white_errors = [
        d.error for d in analysis.decisions if d.side == 0 and d.game == 1 and d.kind == "checker"
    ]
    expected = [
        0.01 * min(4, len(t.plays) - 1)
        for t in find_decisions(record)
        if isinstance(t, CheckerTurn) and t.side == 0 and t.game == 1
    ]
    assert expected and max(expected) == pytest.approx(0.04)
    assert white_errors == pytest.approx(expected)
    first, second = analysis.games
    assert first.sides[0].pr == pytest.approx(500 * sum(expected) / len(expected))
    assert second.sides[0].pr == 0.0 and second.sides[1].pr == 0.0
    white = analysis.players[0]
    assert white.checker_decisions == len(expected) + 2
    assert white.pr == pytest.approx(500 * sum(expected) / (len(expected) + 2))
    assert white.doubtful == sum(1 for e in expected if 0.04 <= e + 1e-12 < 0.08)
    assert white.doubtful >= 1
    black = analysis.players[1]
    assert black.errors >= 1
    assert black.errors == sum(
        1 for d in analysis.decisions if d.side == 1 and 0.08 <= d.error + 1e-12 < 0.16
    )
    decision = analysis.decisions[0]
    assert (decision.game, decision.action, decision.side, decision.kind) == (1, 0, 0, "checker")
    assert decision.best_equity - decision.played_equity == pytest.approx(decision.error)
    assert decision.best != decision.played


def test_a_wrong_double_and_a_wrong_take() -> None:
    game = make_game([Turn(DICE[0]), Turn(DICE[1], double="take"), Turn(DICE[2])])
    analysis = analyse_match(make_match([game]), Scripted(cube=CubeEquities(0.9, 1.4, 1.0)))
    double = next(d for d in analysis.decisions if d.kind == "cube" and d.side == 1)
    assert double.played == "double" and double.best == "double_pass" and double.error == 0.0
    take = next(d for d in analysis.decisions if d.kind == "take")
    assert take.side == 0 and take.played == "take" and take.best == "pass"
    assert take.error == pytest.approx(0.4) and take.mark == "blunder"
    assert take.best_equity == pytest.approx(-1.0) and take.played_equity == pytest.approx(-1.4)
    assert analysis.players[0].blunders == 1 and analysis.players[0].cube_decisions >= 1


def test_other_variants_and_long_matches_are_refused() -> None:
    record = make_match([make_game([Turn(d) for d in DICE[:2]])])
    long_record = type(record)(type(record.settings)(length=7, variant=LONG), record.games)
    with pytest.raises(AnalysisError) as refused:
        analyse_match(long_record, Scripted())
    assert refused.value.code == "not_analysable"
    with pytest.raises(AnalysisError) as bounded:
        analyse_match(record, Scripted(), max_decisions=1)
    assert bounded.value.code == "too_many_decisions" and bounded.value.data["limit"] == 1
    assert SHORT.name == "short"


def test_the_core_imports_only_the_standard_library_the_engine_and_itself() -> None:
    import sys

    allowed = set(sys.stdlib_module_names) | {"__future__", "engine", "analysis"}
    modules = sorted((ROOT / "analysis" / "core").rglob("*.py"))
    assert len(modules) >= 4
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            name
            for name in imported_modules(path)
            if name.split(".")[0] not in allowed or name.startswith("analysis.analysers")
        )
        for path in modules
    }
    assert not any(offenders.values()), offenders
