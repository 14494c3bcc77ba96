"""Soldiers' legal-play generation against short nardy's own, in the same run.

    python -m tests.benchmarks.bench_soldiers_movegen        (from the project folder)

Soldiers (RULES.md §3.1) is short nardy with checker classes, so the engine's
fast generator for ``short`` (`engine.movegen.legal_plays`) is its reference:
the issue's goal is at most 3 times its time per position.  Each side gets
3,000 positions from its own random games (seeded; a random roll at each
position, a random legal play of it to go on, a new game after each end): the
Soldiers games with the default army (K1 G1 D1 E1 O1) played by
`engine.soldiers.legal_plays`, the short games by `engine.movegen.legal_plays`.
Times are this process's CPU time, and each side's time is the sum, over
chunks of 250 positions, of its best time for that chunk in any round; within a
round the two sides' chunks take turns (which goes first alternates).  A burst
of load on a shared machine then spoils one chunk of one round, not a whole
side's run: with the best of whole runs, the side with the longer run (here
Soldiers) was the likelier to have every round disturbed somewhere.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.movegen import legal_plays as short_plays
from engine.rules.board import OFF, Position
from engine.rules.variants import SHORT
from engine.soldiers import legal_plays as soldiers_plays
from engine.soldiers import start_position, winner
from engine.soldiers.state import SoldiersPosition

GOAL = 3.0  # at most 3 times short nardy's time per position (issue 21)

Roll = tuple[int, int]


def soldiers_samples(count: int, seed: int) -> list[tuple[SoldiersPosition, Roll]]:
    rng = random.Random(seed)
    start = start_position()
    position = start.with_turn(rng.randint(0, 1))
    out: list[tuple[SoldiersPosition, Roll]] = []
    while len(out) < count:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        out.append((position, dice))
        # in the order of the positions' texts: the sample does not depend
        # on the order in which the generator lists the plays
        found = sorted(soldiers_plays(position, dice), key=lambda play: play.position.text())
        position = rng.choice(found).position
        if winner(position) is not None:
            position = start.with_turn(rng.randint(0, 1))
    return out


def short_samples(count: int, seed: int) -> list[tuple[Position, int, Roll]]:
    rng = random.Random(seed)
    start = SHORT.start_position()
    position, side = start, rng.randint(0, 1)
    out: list[tuple[Position, int, Roll]] = []
    while len(out) < count:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        out.append((position, side, dice))
        position = rng.choice(short_plays(SHORT, position, side, dice)).position
        if position.sides[side][OFF] == SHORT.checkers:
            position, side = start, rng.randint(0, 1)
        else:
            side = 1 - side
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--positions", type=int, default=3_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args(argv)

    soldiers = soldiers_samples(args.positions, args.seed)
    short = short_samples(args.positions, args.seed)

    ours, theirs = interleaved(soldiers, short, args.rounds)
    per_ours = ours / len(soldiers) * 1000
    per_theirs = theirs / len(short) * 1000
    ratio = per_ours / per_theirs
    print(
        f"positions: {len(soldiers)} Soldiers, {len(short)} short nardy "
        f"(best of {args.rounds} rounds, by chunks of {CHUNK})"
    )
    print(f"engine.soldiers.legal_plays: {per_ours:8.4f} ms per position")
    print(f"engine.movegen.legal_plays:  {per_theirs:8.4f} ms per position (short)")
    verdict = "goal met" if ratio <= GOAL else "above goal"
    print(f"ratio: {ratio:.2f}x short nardy's time ({verdict}; goal at most {GOAL:g}x)")
    by_roll(soldiers, short, args.rounds)
    return 0


CHUNK = 250  # positions timed at a stretch


def interleaved(
    soldiers: list[tuple[SoldiersPosition, Roll]],
    short: list[tuple[Position, int, Roll]],
    rounds: int,
) -> tuple[float, float]:
    """Each side's CPU time for all its positions: the sum over its chunks
    of the chunk's best time in ``rounds`` rounds, the two sides' chunks
    timed in turn (the module says why)."""

    def time_soldiers(chunk: list[tuple[SoldiersPosition, Roll]]) -> float:
        started = time.process_time()
        for position, dice in chunk:
            soldiers_plays(position, dice)
        return time.process_time() - started

    def time_short(chunk: list[tuple[Position, int, Roll]]) -> float:
        started = time.process_time()
        for position, side, dice in chunk:
            short_plays(SHORT, position, side, dice)
        return time.process_time() - started

    ours = [soldiers[i : i + CHUNK] for i in range(0, len(soldiers), CHUNK)]
    theirs = [short[i : i + CHUNK] for i in range(0, len(short), CHUNK)]
    best_ours = [float("inf")] * len(ours)
    best_theirs = [float("inf")] * len(theirs)
    for turn in range(rounds):
        for i in range(max(len(ours), len(theirs))):
            soldiers_first = (turn + i) % 2 == 0
            if soldiers_first and i < len(ours):
                best_ours[i] = min(best_ours[i], time_soldiers(ours[i]))
            if i < len(theirs):
                best_theirs[i] = min(best_theirs[i], time_short(theirs[i]))
            if not soldiers_first and i < len(ours):
                best_ours[i] = min(best_ours[i], time_soldiers(ours[i]))
    return sum(best_ours), sum(best_theirs)


def by_roll(
    soldiers: list[tuple[SoldiersPosition, Roll]],
    short: list[tuple[Position, int, Roll]],
    rounds: int,
) -> None:
    """Where the time goes: each side's doubles and other rolls timed apart
    (as `interleaved` times them), with their plays per position and time
    per play."""
    for doubles in (False, True):
        ours = [(p, d) for p, d in soldiers if (d[0] == d[1]) is doubles]
        theirs = [(p, s, d) for p, s, d in short if (d[0] == d[1]) is doubles]
        our_plays = sum(len(soldiers_plays(p, d)) for p, d in ours)
        their_plays = sum(len(short_plays(SHORT, p, s, d)) for p, s, d in theirs)
        our_time, their_time = interleaved(ours, theirs, rounds)
        name = "doubles" if doubles else "two dice"
        print(
            f"{name:8}: Soldiers {len(ours)} positions, {our_plays / len(ours):5.1f} plays each, "
            f"{our_time / our_plays * 1e6:4.1f} us a play; short {len(theirs)} positions, "
            f"{their_plays / len(theirs):5.1f} plays each, {their_time / their_plays * 1e6:4.1f} us "
            f"a play; {our_time / len(ours) / (their_time / len(theirs)):.2f}x per position"
        )


if __name__ == "__main__":
    sys.exit(main())
