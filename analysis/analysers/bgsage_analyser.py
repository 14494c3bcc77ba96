"""The ``bgsage`` analyser: the Open Sage neural network (bgsage, MPL-2.0).

The one module of the analysis that imports bgsage (and its compiled part,
``bgbot_cpp``); the core only sees ``analysis.core.model.Analyser``.

What it evaluates:

- checker plays: every candidate position after the roll, cubeful (bgsage's
  Janowski conversion of the network's five probabilities at the cube's
  state), at ``depth`` plies in XG's numbering: 1 is the network itself
  (GNU Backgammon's 0-ply), 2-4 search deeper.  At depth 1 all candidates of a
  whole match go to bgsage's C++ batch (``bgbot_cpp.batch_checker_play``,
  about 12 microseconds a candidate here); deeper, ``BgBotAnalyzer.checker_play``
  values the candidates cube-aware at that depth, the played one forced into
  the search (``force_boards``), so both ends of an error come from the same
  depth (about 20 ms a decision at 2 plies);
- cube decisions: ND, DT and DP from the pre-roll position, through bgsage's
  C++ batch (``bgbot_cpp.batch_evaluate_positions``): cubeful equities by
  Janowski's formulas on the network's probabilities at that depth (the
  same numbers as ``BgBotAnalyzer.cube_action`` at 1-ply, which reloads the
  networks on every call (~30 ms; the batch takes ~5 microseconds); deeper,
  bgsage's batch path rather than its slower recursive cubeful search).

Match play uses bgsage's match equity table, **Kazaross-XG2** (the table GNU
Backgammon ships as its default, compiled into bgsage's C++ as ``MET_PRE``
and ``MET_POST_CRAWFORD``, 25 x 25): equities come back normalised to the
current cube (a passed double = +1.0).  Scores beyond 25-away are read as
25-away by bgsage.  Money play (match length 0) honours Jacoby and beavers.

Variants: the network was trained on standard backgammon, the engine's
``short`` (short nardy): only that is served.  Honestly, ``nackgammon`` could
be (the same rules and scoring; only the start differs, which the net has
rarely seen, though GNU Backgammon analyses it with its standard net): it is
left out until measured.  Not servable: ``hypergammon`` (3 checkers: far from
anything the net learnt), every variant with other movement or hitting rules
(``caucasian``, ``tavla``, ``old-english``, ``nauka-short``, ``plakoto``,
``sudden-death``, ``nuclear``, ``garanquet`` with three dice, the long family)
and the other starts (``longgammon``, ``jacquet``, ``dutch``, ``chase``),
whose positions the net never saw.  Those raise ``not_analysable``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Final

import bgbot_cpp  # type: ignore[import-not-found]
from bgsage import BgBotAnalyzer  # type: ignore[import-untyped]
from bgsage.weights import bearoff_db_path, default_weights  # type: ignore[import-untyped]

from analysis.analysers.boards import signed_board
from analysis.core.model import (
    CENTRED,
    MOVER,
    AnalysisError,
    CheckerQuery,
    CubeContext,
    CubeEquities,
    CubeQuery,
)
from engine.rules.variants import Variant

NAME: Final = "bgsage"
SUPPORTED_VARIANTS: Final = frozenset({"short"})
DEPTHS: Final = (1, 2, 3, 4)
MATCH_EQUITY_TABLE: Final = "Kazaross-XG2"

# bgsage's defaults for the candidates searched deeper than 1 ply.
_FILTER_MAX_MOVES: Final = 5
_FILTER_THRESHOLD: Final = 0.08

_OWNERS: Final = {CENTRED: "CENTERED", MOVER: "PLAYER"}

# Loading the networks takes tens of milliseconds: once per process and depth.
_lock = threading.Lock()
_strategies: dict[int, Any] = {}
_analyzers: dict[tuple[int, int], Any] = {}


def _bearoff_db() -> Any:
    path = bearoff_db_path()
    if not path:
        return None
    db = bgbot_cpp.BearoffDB()
    return db if db.load(path) else None


def _strategy(depth: int) -> Any:
    """bgsage's evaluator at ``depth``, exact in bear-offs (its bear-off database)."""
    with _lock:
        if depth not in _strategies:
            weights = default_weights()
            args = (weights.strategy_type, weights.weight_paths_list, weights.hidden_sizes_list)
            db = _bearoff_db()
            if depth == 1:
                strategy = bgbot_cpp.create_strategy(*args)
                if db is not None:
                    strategy = bgbot_cpp.BearoffStrategy(strategy, db)
            else:
                strategy = bgbot_cpp.create_multipy(
                    *args,
                    n_plies=depth,
                    filter_max_moves=_FILTER_MAX_MOVES,
                    filter_threshold=_FILTER_THRESHOLD,
                    parallel_evaluate=False,
                    parallel_threads=0,
                )
                if db is not None:
                    bgbot_cpp.multipy_set_bearoff_db(strategy, db)
            _strategies[depth] = strategy
        return _strategies[depth]


def _analyzer(depth: int, threads: int) -> Any:
    with _lock:
        key = (depth, threads)
        if key not in _analyzers:
            _analyzers[key] = BgBotAnalyzer(eval_level=f"{depth}ply", parallel_threads=threads)
        return _analyzers[key]


def _owner(cube: CubeContext) -> Any:
    return getattr(bgbot_cpp.CubeOwner, _OWNERS.get(cube.owner, "OPPONENT"))


def _owner_name(cube: CubeContext) -> str:
    return {CENTRED: "centered", MOVER: "player"}.get(cube.owner, "opponent")


def _options(cube: CubeContext) -> tuple[bool, bool]:
    """(jacoby, beaver) as bgsage applies them: money play only."""
    return (cube.jacoby and cube.money, cube.beaver and cube.money)


class BgsageAnalyser:
    """bgsage at ``depth`` plies (1 by default), with ``threads`` C++ threads
    for its batches (1: a worker process per core does the parallelism)."""

    def __init__(self, depth: int = 1, threads: int = 1) -> None:
        if depth not in DEPTHS:
            raise AnalysisError(
                "bad_depth",
                f"bgsage evaluates at 1 to {DEPTHS[-1]} plies, not {depth}",
                depth=depth,
                depths=list(DEPTHS),
            )
        self._depth = depth
        self._threads = max(1, threads)

    @property
    def name(self) -> str:
        return NAME

    @property
    def depth(self) -> int:
        return self._depth

    def check_variant(self, variant: Variant) -> None:
        if variant.name not in SUPPORTED_VARIANTS:
            raise AnalysisError(
                "not_analysable",
                f"{NAME} analyses standard backgammon ({', '.join(sorted(SUPPORTED_VARIANTS))}),"
                f" not {variant.name}",
                variant=variant.name,
                analyser=NAME,
            )

    # --- checker plays

    def evaluate_plays(self, queries: Sequence[CheckerQuery]) -> list[tuple[float, ...]]:
        for query in queries:
            self.check_variant(query.variant)
        if self._depth == 1:
            return self._plays_in_batches(queries)
        return [self._plays_searched(query) for query in queries]

    def _plays_in_batches(self, queries: Sequence[CheckerQuery]) -> list[tuple[float, ...]]:
        answers: list[tuple[float, ...]] = [()] * len(queries)
        # One batch per Jacoby setting: the C++ batch takes it once for all.
        for jacoby in (False, True):
            chosen = [i for i, q in enumerate(queries) if _options(q.cube)[0] == jacoby]
            if not chosen:
                continue
            inputs = []
            for i in chosen:
                query = queries[i]
                entry: dict[str, Any] = {
                    "board": signed_board(query.position, query.side),
                    "die1": query.dice[0],
                    "die2": query.dice[1],
                    "cube_value": query.cube.value,
                    "cube_owner": _owner(query.cube),
                }
                if not query.cube.money:
                    entry["away1"], entry["away2"] = query.cube.away
                    entry["is_crawford"] = query.cube.crawford
                inputs.append(entry)
            results = bgbot_cpp.batch_checker_play(
                inputs,
                _strategy(1),
                _FILTER_MAX_MOVES,
                _FILTER_THRESHOLD,
                self._threads,
                jacoby=jacoby,
            )
            for i, result in zip(chosen, results, strict=True):
                moves = {tuple(m["board"]): float(m["equity"]) for m in result["moves"]}
                answers[i] = _candidate_equities(queries[i], moves)
        return answers

    def _plays_searched(self, query: CheckerQuery) -> tuple[float, ...]:
        played = signed_board(query.candidates[query.played], query.side)
        jacoby, beaver = _options(query.cube)
        away1, away2 = query.cube.away
        result = _analyzer(self._depth, self._threads).checker_play(
            signed_board(query.position, query.side),
            query.dice[0],
            query.dice[1],
            query.cube.value,
            _owner_name(query.cube),
            away1=away1,
            away2=away2,
            is_crawford=query.cube.crawford,
            jacoby=jacoby,
            beaver=beaver,
            force_boards=[played],
        )
        moves = {tuple(m.board): float(m.equity) for m in result.moves}
        return _candidate_equities(query, moves)

    # --- cube decisions

    def evaluate_cubes(self, queries: Sequence[CubeQuery]) -> list[CubeEquities]:
        for query in queries:
            self.check_variant(query.variant)
        answers: list[CubeEquities | None] = [None] * len(queries)
        for options in ((False, False), (True, False), (False, True), (True, True)):
            chosen = [i for i, q in enumerate(queries) if _options(q.cube) == options]
            if not chosen:
                continue
            positions: list[tuple[object, ...]] = []
            for i in chosen:
                query = queries[i]
                board = signed_board(query.position, query.side)
                cube = query.cube
                if cube.money:
                    positions.append((board, cube.value, _owner(cube)))
                else:
                    positions.append((board, cube.value, _owner(cube), *cube.away, cube.crawford))
            results = bgbot_cpp.batch_evaluate_positions(
                positions,
                _strategy(self._depth),
                self._threads,
                jacoby=options[0],
                beaver=options[1],
            )
            for i, result in zip(chosen, results, strict=True):
                answers[i] = CubeEquities(
                    no_double=float(result["equity_nd"]),
                    double_take=float(result["equity_dt"]),
                    double_pass=float(result["equity_dp"]),
                )
        return [answer for answer in answers if answer is not None]


def _candidate_equities(
    query: CheckerQuery, moves: dict[tuple[int, ...], float]
) -> tuple[float, ...]:
    """The equity of each engine candidate, found by its board among bgsage's."""
    equities = []
    for candidate in query.candidates:
        board = tuple(signed_board(candidate, query.side))
        if board not in moves:
            raise AnalysisError(
                "analyser_disagrees",
                f"{NAME} does not list a play the engine finds legal",
                analyser=NAME,
                board=list(board),
            )
        equities.append(moves[board])
    return tuple(equities)
