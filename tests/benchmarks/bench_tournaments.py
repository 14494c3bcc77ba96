"""Swiss pairing and standings speed, each against a naive reference measured in the same run.

    python -m tests.benchmarks.bench_tournaments        (or: python tests/benchmarks/bench_tournaments.py)

1. Pairing: a Swiss of 1,000 players is paired and played (seeded random
   results) for 4 rounds; then round 5 is paired by
   ``tournaments.core.swiss.pair_swiss_round`` (maximum-weight matching, no
   rematches).  Reference: a naive greedy pairing of the same round (score
   order, each player takes the first player below him he has not met), which
   gives no guarantee at all.  Goal: under 2 s.
2. Standings: the same event played to 9 rounds; full standings with every
   tie-break (``compute_standings`` with all 13 codes, DE first).  Reference:
   a plain sort of the same results by wins.  Goal: under 50 ms.

Each measurement keeps the best of ``--repeat`` runs; times are this process's
CPU time, so other load on a shared machine disturbs them less than wall-clock
time would.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tournaments.core.standings import StandingsSettings, compute_standings
from tournaments.core.swiss import SwissSettings, pair_swiss_round
from tournaments.core.tiebreaks import TIEBREAK_CODES
from tournaments.core.types import Entry, EntryId, MatchResult, Round

PAIRING_GOAL = 2.0
STANDINGS_GOAL = 0.050


def simulate(rnd: Round, rng: random.Random) -> list[MatchResult]:
    out = [MatchResult.bye_for(rnd.number, b) for b in rnd.byes]
    for p in rnd.pairings:
        if rng.random() < 0.01:
            out.append(MatchResult.forfeit_win(rnd.number, p.a, p.b))
            continue
        winner = p.a if rng.random() < 0.55 else p.b
        lost = rng.randint(0, 8)
        out.append(
            MatchResult(
                rnd.number,
                p.a,
                p.b,
                winner,
                9 if winner == p.a else lost,
                9 if winner == p.b else lost,
                error_rate_a=round(rng.uniform(2.0, 15.0), 2),
                error_rate_b=round(rng.uniform(2.0, 15.0), 2),
            )
        )
    return out


def greedy_pairing(
    field: Sequence[Entry], results: Sequence[MatchResult]
) -> list[tuple[EntryId, EntryId]]:
    """The naive reference: score order, each takes the first unmet player below him."""
    score = {e.id: 0 for e in field}
    met: dict[EntryId, set[EntryId]] = {e.id: set() for e in field}
    for r in results:
        if r.b is None:
            score[r.a] += 1
            continue
        met[r.a].add(r.b)
        met[r.b].add(r.a)
        if r.winner is not None:
            score[r.winner] += 1
    rating = {e.id: e.rating or 0.0 for e in field}
    order = sorted(score, key=lambda p: (-score[p], -rating[p], p))
    free = set(order)
    pairs = []
    for p in order:
        if p not in free:
            continue
        free.discard(p)
        for q in order:
            if q in free and q not in met[p]:
                free.discard(q)
                pairs.append((p, q))
                break
    return pairs


def plain_sort(field: Sequence[Entry], results: Sequence[MatchResult]) -> list[EntryId]:
    wins = {e.id: 0 for e in field}
    for r in results:
        if r.b is None:
            wins[r.a] += 1
        elif r.winner is not None:
            wins[r.winner] += 1
    return sorted(wins, key=lambda p: -wins[p])


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2025)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    field = [Entry(i, rating=float(rng.randint(1200, 2200))) for i in range(1, args.players + 1)]
    settings = SwissSettings(rounds=9)
    results: list[MatchResult] = []
    for _ in range(4):
        results += simulate(pair_swiss_round(field, results, settings), rng)

    round5: list[Round] = []
    ours = best_of(args.repeat, lambda: round5.append(pair_swiss_round(field, results, settings)))
    reference = best_of(args.repeat, lambda: greedy_pairing(field, results))
    paired = round5[-1]
    floaters = sum(p.floated for p in paired.pairings)
    met = {frozenset((r.a, r.b)) for r in results if r.b is not None and not r.forfeit}
    rematches = sum(frozenset((p.a, p.b)) in met for p in paired.pairings)
    print(f"players: {args.players}")
    print(
        f"Swiss pairing, round 5: {ours:8.3f} s  (goal < {PAIRING_GOAL:.0f} s: "
        f"{'met' if ours < PAIRING_GOAL else 'MISSED'}); {len(paired.pairings)} pairs, "
        f"{len(paired.byes)} bye, {floaters} floaters, {rematches} rematches"
    )
    print(f"  reference, naive greedy pairing of the same round: {reference:8.4f} s")
    print(f"  ratio: {ours / reference:,.0f}x the greedy reference's time")

    for _ in range(5):
        results += simulate(pair_swiss_round(field, results, settings), rng)
    every = StandingsSettings(tiebreaks=TIEBREAK_CODES, rounds=9)
    rows: list[object] = []
    ours = best_of(args.repeat * 3, lambda: rows.append(compute_standings(field, results, every)))
    reference = best_of(args.repeat * 3, lambda: plain_sort(field, results))
    print(
        f"Standings, {args.players} players x 9 rounds, all {len(TIEBREAK_CODES)} tie-breaks: "
        f"{ours * 1000:8.1f} ms  (goal < {STANDINGS_GOAL * 1000:.0f} ms: "
        f"{'met' if ours < STANDINGS_GOAL else 'MISSED'})"
    )
    print(f"  reference, plain sort of the same results by wins: {reference * 1000:8.2f} ms")
    print(f"  ratio: {ours / reference:,.1f}x the plain sort's time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
