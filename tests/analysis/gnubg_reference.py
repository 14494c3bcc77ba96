"""GNU Backgammon (the ``gnubg`` PyPI package, GPL) as a reference analyser, test-only.

It answers the same queries as the product's analysers (``analysis.core.model``),
so the core's decisions can be scored by both and compared:

- checker plays: ``gnubg.findbestmoves`` at 0-ply, cubeful, with the cube and
  score of the query (gnubg's 0-ply is the network's own evaluation, bgsage's
  "1-ply"); each gnubg move is applied to the board to find the engine
  candidate it reaches.  gnubg's Python module cuts a move tuple at the
  first checker borne off, so a roll where some play bears off is answered
  with NaN equities: the comparison leaves those decisions out;
- cube decisions: gnubg's Python module gives no ND/DT/DP, so they are built
  from its cubeful 0-ply checker-play evaluations one roll ahead: ND is the
  average over the 36 rolls of the best play's equity with the cube as it is,
  DT twice that average with the cube doubled and owned by the opponent
  (converted through gnubg's own match equity table in match play), DP the
  value of the cube (+1.0).  That is gnubg's "1-ply" cube view: one ply deeper
  than its checker plays, so the comparison of cube errors is looser.

gnubg's default match equity table is Kazaross-XG2, the table bgsage uses.
``gnubg.hint`` and ``analyse match`` hang or crash in this embedding, which is
why the module evaluates position by position.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import gnubg

from analysis.core.model import CENTRED, MOVER, CheckerQuery, CubeContext, CubeEquities, CubeQuery
from engine.rules.board import Position
from engine.rules.variants import Variant
from tests.engine.gnubg_oracle import from_gnubg, to_gnubg

_CUBEFUL_0PLY = gnubg.evalcontext(1, 0, 1, 0, 0.0)
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def cubeinfo(cube: CubeContext, value: int | None = None, owner: int | None = None) -> Any:
    """gnubg's cube info with the mover as player 0 (gnubg owners: -1 centred, 0, 1)."""
    if owner is None:
        owner = {CENTRED: -1, MOVER: 0}.get(cube.owner, 1)
    length = 0 if cube.money else max(cube.away)
    score = (0, 0) if cube.money else (length - cube.away[0], length - cube.away[1])
    # gnubg wants a match at least as long as both players need; the longer
    # away is the length for a score of 0 there.
    return gnubg.cubeinfo(value or cube.value, owner, 0, length, score, int(cube.crawford))


def apply_move(board: list[list[int]], move: Sequence[int]) -> list[list[int]] | None:
    """gnubg's move tuple (from, to, ...: 1-based points, 25 the bar, one pair
    per die) played on gnubg's board [opponent, mover]; None for a tuple that
    bears off: gnubg's Python module ends the tuple at the first step borne off
    (its destination would be 0), so the steps after it are lost."""
    if len(move) % 2:
        return None
    theirs, mine = list(board[0]), list(board[1])
    for i in range(0, len(move), 2):
        origin, dest = move[i], move[i + 1]
        mine[origin - 1] -= 1
        mine[dest - 1] += 1
        if theirs[24 - dest] == 1:
            theirs[24 - dest] = 0
            theirs[24] += 1
    return [theirs, mine]


class GnubgReference:
    name = "gnubg"
    depth = 1

    def check_variant(self, variant: Variant) -> None:
        assert variant.name == "short"

    def _moves(self, board: list[list[int]], ci: Any, dice: tuple[int, int]) -> list[Any]:
        return list(gnubg.findbestmoves(board, ci, _CUBEFUL_0PLY, dice))

    def evaluate_plays(self, queries: Sequence[CheckerQuery]) -> list[tuple[float, ...]]:
        answers = []
        for query in queries:
            board = to_gnubg(query.position, query.side)
            found: dict[Position, float] = {}
            for move in self._moves(board, cubeinfo(query.cube), query.dice):
                after = apply_move(board, move["move"])
                if after is None:
                    found.clear()
                    break
                found[from_gnubg(after, query.side, query.variant.checkers)] = float(move["score"])
            if not found:  # a bear-off gnubg's move list cannot tell apart: no answer
                answers.append(tuple(math.nan for _ in query.candidates))
            else:
                answers.append(tuple(found[c] for c in query.candidates))
        return answers

    def _roll_average(self, board: list[list[int]], ci: Any) -> float:
        total = 0.0
        for dice in ROLLS:
            moves = self._moves(board, ci, dice)
            if moves:
                equity = float(moves[0]["score"])
            else:
                # No legal play: the position stays, the opponent is on roll
                # with the cube as it is (a rare case; cubeless is close enough).
                equity = -float(gnubg.evaluate([board[1], board[0]], ci, _CUBEFUL_0PLY)[5])
            total += equity * (1 if dice[0] == dice[1] else 2)
        return total / 36

    def evaluate_cubes(self, queries: Sequence[CubeQuery]) -> list[CubeEquities]:
        answers = []
        for query in queries:
            board = to_gnubg(query.position, query.side)
            cube = query.cube
            now = cubeinfo(cube)
            no_double = self._roll_average(board, now)
            doubled = cubeinfo(cube, value=2 * cube.value, owner=1)
            after = self._roll_average(board, doubled)
            if cube.money:
                double_take = 2 * after
            else:
                double_take = gnubg.mwc2eq(gnubg.eq2mwc(after, doubled), now)
            answers.append(CubeEquities(no_double, double_take, 1.0))
        return answers
