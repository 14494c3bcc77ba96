"""Match analysis speed: decisions analysed per second, and one long match.

    python -m tests.benchmarks.bench_analysis        (from the project folder)

Reads every short-nardy (backgammon) ``.mat`` record under ``../shared/corpus``
(relative to the project root) and times, in the same run:

- ours: ``analysis.core.analyse_match`` with the product's analyser (bgsage at
  ``--depth`` plies, 1 by default, one thread): the engine's replay of each
  match (legal plays of every roll, to find the unforced ones), bgsage's
  evaluation of every candidate play and cube position in batches, and the
  scoring; the replay alone is timed too, to show where the time goes;
- reference: GNU Backgammon (the ``gnubg`` package, C) evaluating the same
  positions at its 0-ply, the network's own evaluation like bgsage's 1-ply:
  ``findbestmoves`` (cubeful) for each checker decision, ``evaluate`` for
  each cube position, the boards and cube states prepared beforehand.  It
  does none of the replay and scoring: the ratio is the whole analysis
  against bare evaluation in C.

The corpus holds no 9-point match; the match timed alone is a 9-point one if
the corpus gains any, else the one with the most decisions, and a 9-point match
written for the bench (``tests.engine.test_matfile.random_match``: legal plays
chosen at random, so more decisions than a real one) is timed as well.  Rounds alternate
and each keeps its best; times are this process's CPU time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import gnubg

from analysis.analysers import get_analyser
from analysis.core import Analyser, CheckerTurn, analyse_match, find_decisions
from analysis.core.decisions import DecisionTurn
from engine.records.matfile import parse_mat
from engine.records.record import MatchRecord
from tests.analysis.gnubg_reference import cubeinfo
from tests.engine.gnubg_oracle import to_gnubg

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
NINE = 9
CACHE_OFF = 0


def corpus_records() -> list[tuple[str, MatchRecord]]:
    files = sorted(CORPUS.glob("mat/**/*.txt")) + sorted(CORPUS.glob("mat/**/*.mat"))
    records = []
    for path in files:
        if path.name == "LICENSE.md":
            continue
        record = parse_mat(path.read_text(encoding="utf-8", errors="replace"))
        if record.settings.variant.name == "short":
            records.append((path.name, record))
    return records


def reference_inputs(
    turns: list[DecisionTurn],
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """gnubg's boards and cube states for the checker plays and the cube positions."""
    checker, cube = [], []
    for turn in turns:
        query = turn.query
        board = to_gnubg(query.position, query.side)
        if isinstance(turn, CheckerTurn):
            checker.append((board, cubeinfo(turn.query.cube), turn.query.dice))
        else:
            cube.append((board, cubeinfo(query.cube)))
    return checker, cube


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--depth", type=int, default=1, help="bgsage's plies (1-4)")
    args = parser.parse_args(argv)

    records = corpus_records()
    if not records:
        print(f"no corpus under {CORPUS}")
        return 1
    analyser: Analyser = get_analyser("bgsage", depth=args.depth)
    turns = {name: find_decisions(record) for name, record in records}
    nines = [name for name, record in records if record.length == NINE]
    long_name = nines[0] if nines else max(turns, key=lambda name: len(turns[name]))
    long_record = dict(records)[long_name]
    inputs = {name: reference_inputs(turns[name]) for name in turns}
    evaluation = gnubg.evalcontext(1, 0, 1, 0, 0.0)
    # gnubg caches evaluations: without this a second round would only read its cache.
    gnubg.command(f"set cache {CACHE_OFF}")
    analyse_match(records[0][1], analyser)  # load the networks outside the timing

    def time_ours(subset: list[tuple[str, MatchRecord]]) -> float:
        started = time.process_time()
        for _, record in subset:
            analyse_match(record, analyser)
        return time.process_time() - started

    def time_replay() -> float:
        started = time.process_time()
        for _, record in records:
            find_decisions(record)
        return time.process_time() - started

    def time_reference(names: list[str]) -> float:
        started = time.process_time()
        for name in names:
            checker, cube = inputs[name]
            for board, info, dice in checker:
                gnubg.findbestmoves(board, info, evaluation, dice)
            for board, info in cube:
                gnubg.evaluate(board, info, evaluation)
        return time.process_time() - started

    ours = replay = reference = long_ours = long_reference = float("inf")
    for _ in range(args.rounds):
        ours = min(ours, time_ours(records))
        replay = min(replay, time_replay())
        reference = min(reference, time_reference(list(turns)))
        long_ours = min(long_ours, time_ours([(long_name, long_record)]))
        long_reference = min(long_reference, time_reference([long_name]))

    decisions = sum(len(t) for t in turns.values())
    checker = sum(isinstance(t, CheckerTurn) for ts in turns.values() for t in ts)
    candidates = sum(
        len(t.query.candidates) for ts in turns.values() for t in ts if isinstance(t, CheckerTurn)
    )
    long_count = len(turns[long_name])
    what = "9-point match" if nines else f"longest match ({long_record.length} points)"
    print(
        f"matches: {len(records)}, decisions: {decisions} ({checker} checker plays with"
        f" {candidates} candidates, {decisions - checker} cube positions); bgsage depth {args.depth}"
    )
    print(
        f"ours (analyse_match):            {ours * 1000:8.1f} ms  {decisions / ours:8.0f} decisions/s"
    )
    print(f"  of which the engine's replay:  {replay * 1000:8.1f} ms")
    print(
        f"reference (gnubg 0-ply evals):   {reference * 1000:8.1f} ms"
        f"  {decisions / reference:8.0f} decisions/s"
    )
    print(f"ratio: ours takes {ours / reference:.2f}x the reference")
    if not nines:
        from tests.engine.test_matfile import Dialect, random_match, write_mat

        nine = parse_mat(
            write_mat(
                random_match(9, length=NINE, players=("A", "B"), resign_rate=0.0), Dialect("gnubg")
            )
        )
        nine_time = min(time_ours([("nine", nine)]) for _ in range(args.rounds))
        print(
            f"a 9-point match written for the bench ({len(nine.games)} games, "
            f"{len(find_decisions(nine))} decisions): ours {nine_time * 1000:.1f} ms"
        )
    print(
        f"{what}, {long_name}: {long_count} decisions, ours {long_ours * 1000:.1f} ms,"
        f" reference {long_reference * 1000:.1f} ms ({long_ours / long_reference:.2f}x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
