"""Legal-play generation speed against gnubg-nn on the same positions.

    python tests/benchmarks/bench_movegen.py        (or: python -m tests.benchmarks.bench_movegen)

Builds 10,000 reachable short-nardy positions with random rolls (seeded), then
times `engine.movegen.legal_plays` and `gnubg_nn.moves` over all of them and
prints calls/s and the ratio.  gnubg gets its boards ready-made, so only its
move generation is timed.  Rounds alternate between the two and each keeps
its best; times are this process's CPU time, so other load on a shared
machine disturbs the ratio less than wall-clock time would.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import gnubg_nn

from engine.movegen import legal_plays
from engine.rules.variants import SHORT
from tests.engine.differential import sample_positions
from tests.engine.gnubg_oracle import to_gnubg

GOAL = 1 / 10  # of gnubg-nn's calls/s
DEFECT = 1 / 20


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    samples = list(sample_positions(args.positions, args.seed, SHORT, random_rolls=True))
    boards = [(to_gnubg(p, side), d[0], d[1]) for p, side, d in samples]
    moves = gnubg_nn.moves

    def time_ours() -> float:
        started = time.process_time()
        for position, side, dice in samples:
            legal_plays(SHORT, position, side, dice)
        return time.process_time() - started

    def time_gnubg() -> float:
        started = time.process_time()
        for board, d1, d2 in boards:
            moves(board, d1, d2)
        return time.process_time() - started

    ours = theirs = float("inf")
    for _ in range(args.rounds):
        ours = min(ours, time_ours())
        theirs = min(theirs, time_gnubg())
    n = len(samples)
    ratio = theirs / ours
    print(f"positions: {n}")
    print(f"engine.movegen.legal_plays: {n / ours:12,.0f} calls/s")
    print(f"gnubg_nn.moves:             {n / theirs:12,.0f} calls/s")
    verdict = "goal met" if ratio >= GOAL else ("below goal" if ratio >= DEFECT else "DEFECT")
    print(f"ratio: 1/{1 / ratio:.1f} of gnubg-nn ({verdict}; goal 1/10, defect below 1/20)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
