"""Edmonds' weighted blossom against brute force on small graphs."""

from __future__ import annotations

import itertools
import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.core.matching import max_weight_matching, max_weight_perfect_matching

Edges = list[tuple[int, int, int]]


def brute(n: int, edges: Edges, mode: str) -> tuple[int, int] | None:
    """Best (cardinality, weight): mode 'weight', 'cardinality' (max card., then weight) or 'perfect'."""
    adj: dict[tuple[int, int], int] = {}
    for i, j, w in edges:
        key = (min(i, j), max(i, j))
        adj[key] = max(adj.get(key, w), w)

    @cache
    def best(mask: int) -> tuple[int, int] | None:
        free = [v for v in range(n) if not mask >> v & 1]
        if not free:
            return (0, 0)
        v = free[0]
        options = []
        if mode != "perfect":
            rest = best(mask | 1 << v)
            if rest is not None:
                options.append(rest)
        for u in free[1:]:
            if (v, u) in adj:
                rest = best(mask | 1 << v | 1 << u)
                if rest is not None:
                    options.append((rest[0] + 1, rest[1] + adj[(v, u)]))
        if not options:
            return None
        if mode == "weight":
            return max(options, key=lambda x: (x[1], x[0]))
        return max(options)

    return best(0)


def measure(mate: list[int], edges: Edges) -> tuple[int, int]:
    adj = {}
    for i, j, w in edges:
        adj[(i, j)] = adj[(j, i)] = w
    card = weight = 0
    for v, u in enumerate(mate):
        if u >= 0:
            assert mate[u] == v
        if u > v:
            card += 1
            weight += adj[(v, u)]
    return card, weight


graphs = st.integers(1, 9).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(-4, 30)).filter(
                lambda e: e[0] != e[1]
            ),
            max_size=n * (n - 1) // 2,
            unique_by=lambda e: (min(e[0], e[1]), max(e[0], e[1])),
        ),
    )
)


@settings(max_examples=300, deadline=None)
@given(graphs)
def test_maximum_weight_matching_is_optimal(graph: tuple[int, Edges]) -> None:
    n, edges = graph
    best = brute(n, edges, "weight")
    assert best is not None
    assert measure(max_weight_matching(n, edges), edges)[1] == best[1]


@settings(max_examples=300, deadline=None)
@given(graphs)
def test_maximum_cardinality_matching_is_optimal(graph: tuple[int, Edges]) -> None:
    n, edges = graph
    assert measure(max_weight_matching(n, edges, max_cardinality=True), edges) == brute(
        n, edges, "cardinality"
    )


@settings(max_examples=300, deadline=None)
@given(graphs)
def test_perfect_matching_is_optimal_with_a_dual_certificate(graph: tuple[int, Edges]) -> None:
    n, edges = graph
    result = max_weight_perfect_matching(n, edges)
    best = brute(n, edges, "perfect")
    if best is None:
        assert result is None
        return
    assert result is not None
    assert measure(result.mate, edges) == best
    assert all(result.slack(i, j, w) >= 0 for i, j, w in edges)
    hinted = max_weight_perfect_matching(n, edges, first=[n - 1, 0])
    assert hinted is not None and measure(hinted.mate, edges) == best
    assert all(result.slack(i, result.mate[i], w) == 0 for i, j, w in edges if result.mate[i] == j)


@pytest.mark.parametrize("seed", range(5))
def test_larger_graphs_agree_between_the_two_starts(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(20):
        n = rng.randrange(10, 60, 2)
        density = rng.choice([0.1, 0.3, 0.9])
        edges = [
            (i, j, rng.randint(0, rng.choice([3, 1000])))
            for i, j in itertools.combinations(range(n), 2)
            if rng.random() < density
        ]
        classic = max_weight_matching(n, edges, max_cardinality=True)
        warm = max_weight_perfect_matching(n, edges)
        card, weight = measure(classic, edges)
        if 2 * card == n:
            assert warm is not None
            assert measure(warm.mate, edges) == (card, weight)
        else:
            assert warm is None


def test_odd_or_empty_graphs() -> None:
    assert max_weight_perfect_matching(3, [(0, 1, 1), (1, 2, 1)]) is None
    empty = max_weight_perfect_matching(0, [])
    assert empty is not None and empty.mate == []
    assert max_weight_matching(2, []) == [-1, -1]
    with pytest.raises(ValueError):
        max_weight_matching(2, [(0, 0, 1)])
