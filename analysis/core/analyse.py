"""A match analysed: each decision's error, and the totals per game and player.

``analyse_match(record, analyser)`` finds the decisions (``decisions``), asks
the analyser for all checker plays in one batch and all cube positions in
another, and scores them (``scoring``).  The results are plain frozen data
for the Django side to store and show:

- ``Decision``: one decision, where it was (game number, index of the action
  in that game's actions, side), its kind, error and mark, and the best and
  played choices with their equities, from the deciding player's view;
- ``SideTotals``: a player's counted decisions, equity lost, marks and PR,
  per game (``GameAnalysis.sides``) and for the match (``MatchAnalysis.players``).

A cube decision is listed even when trivial (``counted`` False: PR leaves it
out), so that a replay can show the cube equities at every turn.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from analysis.core import scoring
from analysis.core.decisions import (
    CheckerTurn,
    CubeTurn,
    DecisionTurn,
    TakeTurn,
    find_decisions,
)
from analysis.core.model import Analyser, AnalysisError, CubeEquities
from analysis.core.scoring import Mark
from engine.records.notation import format_play
from engine.records.record import MatchRecord

Kind = Literal["checker", "cube", "take"]

# Cube and take choices, as codes the pages translate.
NO_DOUBLE: Final = "no_double"
DOUBLE: Final = "double"
DOUBLE_TAKE: Final = "double_take"
DOUBLE_PASS: Final = "double_pass"
TAKE: Final = "take"
PASS: Final = "pass"


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision.  ``best`` and ``played`` are a play in standard notation for
    checker plays and a code (``NO_DOUBLE``, ``DOUBLE``, ``DOUBLE_TAKE``,
    ``DOUBLE_PASS``, ``TAKE``, ``PASS``) for cube actions; their equities are the
    deciding player's (``error = best_equity - played_equity``).  ``cube`` keeps
    the analyser's ND/DT/DP for cube and take decisions, from the doubler's view."""

    game: int
    action: int
    side: int
    kind: Kind
    error: float
    counted: bool
    best: str
    best_equity: float
    played: str
    played_equity: float
    cube: CubeEquities | None = None

    @property
    def mark(self) -> Mark:
        return scoring.mark(self.error) if self.counted else ""


@dataclass(frozen=True, slots=True)
class SideTotals:
    """One player's counted decisions and what they cost."""

    checker_decisions: int = 0
    cube_decisions: int = 0  # the player's own cube decisions and their takes/passes
    checker_lost: float = 0.0
    cube_lost: float = 0.0
    doubtful: int = 0
    errors: int = 0
    blunders: int = 0

    @property
    def decisions(self) -> int:
        return self.checker_decisions + self.cube_decisions

    @property
    def equity_lost(self) -> float:
        return self.checker_lost + self.cube_lost

    @property
    def pr(self) -> float | None:
        """PR over all counted decisions (None without any)."""
        return _rate(self.equity_lost, self.decisions)

    @property
    def checker_pr(self) -> float | None:
        return _rate(self.checker_lost, self.checker_decisions)

    @property
    def cube_pr(self) -> float | None:
        return _rate(self.cube_lost, self.cube_decisions)


def _rate(lost: float, count: int) -> float | None:
    return scoring.PR_SCALE * lost / count if count else None


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    number: int
    sides: tuple[SideTotals, SideTotals]


@dataclass(frozen=True, slots=True)
class MatchAnalysis:
    """``evaluations`` counts the analyser's position evaluations (candidate
    plays plus cube positions): the work the analysis took."""

    analyser: str
    depth: int
    decisions: tuple[Decision, ...]
    games: tuple[GameAnalysis, ...]
    players: tuple[SideTotals, SideTotals]
    evaluations: int


def totals(decisions: Iterable[Decision]) -> tuple[SideTotals, SideTotals]:
    """Each side's totals over these decisions (counted ones only)."""
    counts = [[0, 0, 0.0, 0.0, 0, 0, 0], [0, 0, 0.0, 0.0, 0, 0, 0]]
    for decision in decisions:
        if not decision.counted:
            continue
        row = counts[decision.side]
        if decision.kind == "checker":
            row[0] += 1
            row[2] += decision.error
        else:
            row[1] += 1
            row[3] += decision.error
        marked = decision.mark
        if marked:
            row[4 + ("doubtful", "error", "blunder").index(marked)] += 1
    sides = [
        SideTotals(int(r[0]), int(r[1]), float(r[2]), float(r[3]), int(r[4]), int(r[5]), int(r[6]))
        for r in counts
    ]
    return sides[0], sides[1]


def _checker(turn: CheckerTurn, equities: tuple[float, ...]) -> Decision:
    if len(equities) != len(turn.plays):
        raise AnalysisError(
            "analyser_answer",
            "the analyser did not evaluate every candidate play",
            game=turn.game,
            action=turn.action,
        )
    # The first of equal equities: the ranking stays the same from run to run.
    best = max(range(len(equities)), key=lambda i: (equities[i], -i))
    played = turn.query.played
    return Decision(
        game=turn.game,
        action=turn.action,
        side=turn.side,
        kind="checker",
        error=max(0.0, equities[best] - equities[played]),
        counted=True,
        best=format_play(turn.plays[best]),
        best_equity=equities[best],
        played=format_play(turn.plays[played]),
        played_equity=equities[played],
    )


def _cube(turn: CubeTurn, cube: CubeEquities) -> Decision:
    chosen = min(cube.double_take, cube.double_pass) if turn.doubled else cube.no_double
    return Decision(
        game=turn.game,
        action=turn.action,
        side=turn.side,
        kind="cube",
        error=scoring.cube_error(cube, turn.doubled),
        counted=scoring.cube_counts(cube, turn.doubled),
        best=scoring.best_cube_action(cube),
        best_equity=scoring.best_cube_equity(cube),
        played=DOUBLE if turn.doubled else NO_DOUBLE,
        played_equity=chosen,
        cube=cube,
    )


def _take(turn: TakeTurn, cube: CubeEquities) -> Decision:
    # The taker's equity is minus the doubler's.
    take_is_right = cube.double_take <= cube.double_pass
    chosen = cube.double_take if turn.took else cube.double_pass
    return Decision(
        game=turn.game,
        action=turn.action,
        side=turn.side,
        kind="take",
        error=scoring.take_error(cube, turn.took),
        counted=scoring.take_counts(cube),
        best=TAKE if take_is_right else PASS,
        best_equity=-min(cube.double_take, cube.double_pass),
        played=TAKE if turn.took else PASS,
        played_equity=-chosen,
        cube=cube,
    )


def _check_answer(asked: int, answered: int) -> None:
    if asked != answered:
        raise AnalysisError(
            "analyser_answer",
            f"the analyser answered {answered} of {asked} queries",
            asked=asked,
            answered=answered,
        )


def analyse_turns(turns: Sequence[DecisionTurn], analyser: Analyser) -> list[Decision]:
    """The decisions of these turns, in the same order."""
    checker = [t for t in turns if isinstance(t, CheckerTurn)]
    cubes = [t for t in turns if not isinstance(t, CheckerTurn)]
    play_equities = analyser.evaluate_plays([t.query for t in checker]) if checker else []
    _check_answer(len(checker), len(play_equities))
    cube_equities = analyser.evaluate_cubes([t.query for t in cubes]) if cubes else []
    _check_answer(len(cubes), len(cube_equities))
    found: dict[int, Decision] = {}
    for turn, equities in zip(checker, play_equities, strict=True):
        found[id(turn)] = _checker(turn, equities)
    for cube_turn, cube in zip(cubes, cube_equities, strict=True):
        if isinstance(cube_turn, CubeTurn):
            found[id(cube_turn)] = _cube(cube_turn, cube)
        else:
            found[id(cube_turn)] = _take(cube_turn, cube)
    return [found[id(turn)] for turn in turns]


def analyse_match(
    record: MatchRecord, analyser: Analyser, *, max_decisions: int | None = None
) -> MatchAnalysis:
    """Analyse every decision of ``record`` with ``analyser``.

    Raises ``AnalysisError``: ``not_analysable`` for a variant the analyser
    does not serve, ``too_many_decisions`` past ``max_decisions`` (the bound on
    one match's work), ``play_not_legal``/``unchecked_record`` for a record the
    engine did not check.
    """
    analyser.check_variant(record.settings.variant)
    turns = find_decisions(record)
    if max_decisions is not None and len(turns) > max_decisions:
        raise AnalysisError(
            "too_many_decisions",
            f"{len(turns)} decisions, more than the {max_decisions} one analysis may take",
            decisions=len(turns),
            limit=max_decisions,
        )
    decisions = tuple(analyse_turns(turns, analyser))
    games = tuple(
        GameAnalysis(game.number, totals(d for d in decisions if d.game == game.number))
        for game in record.games
    )
    evaluations = sum(len(t.query.candidates) if isinstance(t, CheckerTurn) else 1 for t in turns)
    return MatchAnalysis(
        analyser=analyser.name,
        depth=analyser.depth,
        decisions=decisions,
        games=games,
        players=totals(decisions),
        evaluations=evaluations,
    )
