"""Shared helpers for the tournament core tests: simulated events with a seeded RNG."""

from __future__ import annotations

import random
from dataclasses import replace

from tournaments.core.bracket import Bracket
from tournaments.core.swiss import SwissSettings, pair_swiss_round, swiss_finished
from tournaments.core.types import Entry, EntryId, MatchResult, Round


def entries(n: int) -> list[Entry]:
    """Entries 1..n, hand-seeded 1..n, ratings falling with the seed."""
    return [Entry(i, seed=i, rating=2000 - 10 * i) for i in range(1, n + 1)]


def play_round(rnd: Round, rng: random.Random, *, forfeits: float = 0.0) -> list[MatchResult]:
    """Results for a round: random winners (match to 7), byes, occasional forfeits."""
    out = [MatchResult.bye_for(rnd.number, b) for b in rnd.byes]
    for p in rnd.pairings:
        winner = p.a if rng.random() < 0.55 else p.b
        if rng.random() < forfeits:
            loser = p.b if winner == p.a else p.a
            out.append(MatchResult.forfeit_win(rnd.number, winner, loser))
            continue
        lost = rng.randint(0, 6)
        out.append(
            MatchResult(
                rnd.number,
                p.a,
                p.b,
                winner,
                7 if winner == p.a else lost,
                7 if winner == p.b else lost,
                error_rate_a=round(rng.uniform(2, 15), 2),
                error_rate_b=round(rng.uniform(2, 15), 2),
            )
        )
    return out


def run_swiss(
    field: list[Entry],
    settings: SwissSettings,
    seed: int,
    *,
    forfeits: float = 0.0,
    withdraw: dict[int, EntryId] | None = None,
) -> tuple[list[Round], list[MatchResult]]:
    """Pair and play to the end; ``withdraw``: round -> entry withdrawing before it."""
    rng = random.Random(seed)
    rounds: list[Round] = []
    results: list[MatchResult] = []
    while True:
        leaving = (withdraw or {}).get(len(rounds) + 1)
        if leaving is not None:
            k = next(k for k, e in enumerate(field) if e.id == leaving)
            field[k] = replace(field[k], withdrawn=True)
        if swiss_finished(field, results, settings):
            break
        rnd = pair_swiss_round(field, results, settings)
        rounds.append(rnd)
        results += play_round(rnd, rng, forfeits=forfeits)
    return rounds, results


def run_bracket(bracket: Bracket, seed: int) -> list[frozenset[EntryId]]:
    """Play every ready match with random winners until the bracket is complete; the pairs met."""
    rng = random.Random(seed)
    met: list[frozenset[EntryId]] = []
    while not bracket.is_complete():
        ready = bracket.ready()
        assert ready, "a bracket that is not complete must have a ready match"
        for mid in ready:
            a, b = bracket.players(mid)
            assert isinstance(a, int) and isinstance(b, int)
            met.append(frozenset((a, b)))
            bracket.record(mid, a if rng.random() < 0.5 else b)
    return met
