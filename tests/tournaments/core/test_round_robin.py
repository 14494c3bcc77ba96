"""Round robin by Berger tables."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from tests.tournaments.core.helpers import entries, play_round
from tournaments.core.errors import ConfigError
from tournaments.core.round_robin import berger_table, round_robin_rounds
from tournaments.core.standings import StandingsSettings, compute_standings
from tournaments.core.types import Entry, MatchResult

# FIDE C.05 Annex 1, Berger tables (first-named has the first side).
BERGER_6 = [
    [(1, 6), (2, 5), (3, 4)],
    [(6, 4), (5, 3), (1, 2)],
    [(2, 6), (3, 1), (4, 5)],
    [(6, 5), (1, 4), (2, 3)],
    [(3, 6), (4, 2), (5, 1)],
]
BERGER_8 = [
    [(1, 8), (2, 7), (3, 6), (4, 5)],
    [(8, 5), (6, 4), (7, 3), (1, 2)],
    [(2, 8), (3, 1), (4, 7), (5, 6)],
    [(8, 6), (7, 5), (1, 4), (2, 3)],
    [(3, 8), (4, 2), (5, 1), (6, 7)],
    [(8, 7), (1, 6), (2, 5), (3, 4)],
    [(4, 8), (5, 3), (6, 2), (7, 1)],
]


def test_berger_tables_match_the_published_ones() -> None:
    assert berger_table(6) == BERGER_6
    assert berger_table(8) == BERGER_8
    assert berger_table(7) == BERGER_8  # odd: the dummy is number 8


@pytest.mark.parametrize("n", [6, 7])
def test_each_pair_once_and_sides_balanced(n: int) -> None:
    rounds = round_robin_rounds(entries(n))
    assert len(rounds) == n - 1 + n % 2
    met = Counter(frozenset((p.a, p.b)) for r in rounds for p in r.pairings)
    assert set(met) == {frozenset(pair) for pair in itertools.combinations(range(1, n + 1), 2)}
    assert set(met.values()) == {1}
    first = Counter(p.a for r in rounds for p in r.pairings)
    second = Counter(p.b for r in rounds for p in r.pairings)
    for pid in range(1, n + 1):
        assert abs(first[pid] - second[pid]) <= 1
    if n == 6:
        assert [first[p] for p in range(1, 7)] == [3, 3, 3, 2, 2, 2]
    else:
        assert all(first[p] == second[p] == 3 for p in range(1, 8))
        byes = [r.byes for r in rounds]
        assert sorted(b[0] for b in byes) == list(range(1, 8))  # each player sits out once
        assert rounds[0].byes == (1,) and [(p.a, p.b) for p in rounds[0].pairings] == [
            (2, 7),
            (3, 6),
            (4, 5),
        ]


def test_seeding_maps_players_to_numbers() -> None:
    field = [Entry(10 + k, rating=1500 + 100 * k) for k in range(4)]  # 13 is the best rated
    rounds = round_robin_rounds(field, seed_by="rating")
    assert [(p.a, p.b) for p in rounds[0].pairings] == [(13, 10), (12, 11)]


def test_truncated_and_double() -> None:
    field = entries(6)
    truncated = round_robin_rounds(field, rounds=3)
    assert [r.number for r in truncated] == [1, 2, 3]
    assert [[(p.a, p.b) for p in r.pairings] for r in truncated] == BERGER_6[:3]
    double = round_robin_rounds(field, cycles=2)
    assert len(double) == 10
    assert [(p.a, p.b) for p in double[5].pairings] == [(6, 1), (5, 2), (4, 3)]
    met = Counter(frozenset((p.a, p.b)) for r in double for p in r.pairings)
    assert set(met.values()) == {2}
    with pytest.raises(ConfigError):
        round_robin_rounds(field, rounds=0)
    with pytest.raises(ConfigError) as err:
        round_robin_rounds(entries(1))
    assert err.value.code == "too_few_entries"


@pytest.mark.parametrize("n", [6, 7])
def test_a_full_round_robin_has_full_standings(n: int) -> None:
    rng = random.Random(n)
    results: list[MatchResult] = []
    for rnd in round_robin_rounds(entries(n)):
        results += play_round(rnd, rng)
    rows = compute_standings(
        entries(n), results, StandingsSettings(tiebreaks=("DE", "SB", "KS"), bye_is_win=False)
    )
    assert len(rows) == n
    assert sum(r.score for r in rows) == n * (n - 1) // 2  # one win per match, byes count nothing
    assert rows[0].rank == 1
