"""Differential verification of `legal_plays` against GNU Backgammon.

Positions are reachable ones: random games played from the start with
gnubg's own legal moves (seeded), every position along the way sampled, each
with the next of the 21 distinct rolls in turn (so all rolls are covered
evenly; the game itself advances with a separately rolled pair).

    python -m tests.engine.differential --positions 100000
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import gnubg_nn

from engine.movegen import legal_plays
from engine.rules.board import BAR, OFF, Position
from engine.rules.plays import Play
from engine.rules.variants import HYPERGAMMON, NACKGAMMON, SHORT, Variant, get_variant
from tests.engine.gnubg_oracle import from_gnubg, oracle_plays, to_gnubg

ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, a + 1))
# Variants gnubg's generator can judge: the short family (any checker count).
VARIANTS: tuple[Variant, ...] = (SHORT, NACKGAMMON, HYPERGAMMON)


@dataclass(frozen=True)
class Mismatch:
    variant: str
    position: Position
    side: int
    dice: tuple[int, int]
    missing: frozenset[Position]  # gnubg has them, we don't
    extra: frozenset[Position]  # we have them, gnubg doesn't
    duplicates: int  # plays we returned more than once

    def describe(self) -> str:
        lines = [
            f"{self.variant}: side {self.side} to play {self.dice[0]}-{self.dice[1]}, "
            f"gnubg id {gnubg_nn.position_id(to_gnubg(self.position, self.side))}",
            f"  board (mover, opponent): {_rows(self.position, self.side)}",
        ]
        for title, group in (
            ("missing (gnubg only)", self.missing),
            ("extra (ours only)", self.extra),
        ):
            for pos in sorted(group, key=lambda p: p.sides):
                lines.append(f"  {title}: {_rows(pos, self.side)}")
        if self.duplicates:
            lines.append(f"  {self.duplicates} duplicate plays")
        return "\n".join(lines)


def _rows(position: Position, side: int) -> str:
    def row(r: tuple[int, ...]) -> str:
        parts = [f"{q}:{r[q]}" for q in range(BAR, 0, -1) if r[q]]
        return " ".join(parts) + (f" off:{r[OFF]}" if r[OFF] else "")

    return f"[{row(position.sides[side])}] / [{row(position.sides[1 - side])}]"


def sample_positions(
    count: int, seed: int, variant: Variant = SHORT, *, random_rolls: bool = False
) -> Iterator[tuple[Position, int, tuple[int, int]]]:
    """``count`` (position, side on roll, dice) triples from seeded random games.

    Each sample gets the next of the 21 distinct rolls in turn, or with
    ``random_rolls`` a roll of two random dice (the rolls' natural frequencies).
    """
    rng = random.Random(seed)
    start = variant.start_position()
    position, side = start, rng.randint(0, 1)
    for i in range(count):
        dice = (rng.randint(1, 6), rng.randint(1, 6)) if random_rolls else ROLLS[i % len(ROLLS)]
        yield position, side, dice
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        keys = gnubg_nn.moves(to_gnubg(position, side), roll[0], roll[1])
        if keys:
            board = gnubg_nn.board_from_position_key(rng.choice(keys))
            position = from_gnubg(board, side, variant.checkers)
        if position.sides[side][OFF] == variant.checkers:
            position, side = start, rng.randint(0, 1)
        else:
            side = 1 - side


def compare(
    variant: Variant, position: Position, side: int, dice: tuple[int, int]
) -> Mismatch | None:
    plays: list[Play] = legal_plays(variant, position, side, dice)
    ours = {p.position for p in plays}
    theirs = oracle_plays(position, side, dice, variant.checkers)
    duplicates = len(plays) - len(ours)
    if ours == theirs and not duplicates:
        return None
    return Mismatch(
        variant.name,
        position,
        side,
        dice,
        frozenset(theirs - ours),
        frozenset(ours - theirs),
        duplicates,
    )


def run(
    count: int, seed: int, variant: Variant = SHORT, coverage: Counter[str] | None = None
) -> list[Mismatch]:
    """Compare ``count`` sampled positions; the mismatches found.  ``coverage``,
    when given, counts the kinds of positions seen."""
    found: list[Mismatch] = []
    for position, side, dice in sample_positions(count, seed, variant):
        if coverage is not None:
            row = position.sides[side]
            coverage["on the bar"] += row[BAR] > 0
            coverage["all home"] += not any(row[7:])
            coverage["doubles"] += dice[0] == dice[1]
        mismatch = compare(variant, position, side, dice)
        if mismatch is not None:
            found.append(mismatch)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--variant",
        action="append",
        choices=[v.name for v in VARIANTS],
        help="variant(s) to check (default: short)",
    )
    args = parser.parse_args(argv)
    variants = [get_variant(name) for name in args.variant or ["short"]]
    total = 0
    for variant in variants:
        started = time.perf_counter()
        coverage: Counter[str] = Counter()
        mismatches = run(args.positions, args.seed, variant, coverage)
        elapsed = time.perf_counter() - started
        for m in mismatches[:20]:
            print(m.describe())
        seen = ", ".join(f"{kind} {n}" for kind, n in coverage.items())
        print(
            f"{variant.name}: positions: {args.positions} mismatches: {len(mismatches)} "
            f"({elapsed:.1f}s; {seen})"
        )
        total += len(mismatches)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
