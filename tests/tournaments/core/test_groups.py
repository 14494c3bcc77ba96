"""Snake groups, knock-out from groups, cups ranked by total wins."""

from __future__ import annotations

import random

import pytest

from tests.tournaments.core.helpers import entries, play_round, run_bracket, run_swiss
from tournaments.core.elimination import seed_positions
from tournaments.core.errors import ConfigError, QualificationError
from tournaments.core.groups import (
    Group,
    cup_standings,
    group_name,
    group_rounds,
    group_standings,
    knockout_from_groups,
    snake_groups,
)
from tournaments.core.standings import StandingRow, StandingsSettings
from tournaments.core.swiss import SwissSettings
from tournaments.core.types import MatchResult


def test_snake_seeding() -> None:
    groups = snake_groups(entries(12), 3)
    assert groups == [
        Group("A", (1, 6, 7, 12)),
        Group("B", (2, 5, 8, 11)),
        Group("C", (3, 4, 9, 10)),
    ]
    assert [g.entries for g in snake_groups(entries(7), 2)] == [(1, 4, 5), (2, 3, 6, 7)]
    assert [group_name(k) for k in (0, 1, 25, 26, 27)] == ["A", "B", "Z", "AA", "AB"]
    with pytest.raises(ConfigError) as err:
        snake_groups(entries(5), 3)
    assert err.value.code == "bad_group_count"


def test_group_round_robin_uses_the_group_order() -> None:
    field = entries(8)
    group = snake_groups(field, 2)[1]  # B: 2, 3, 6, 7
    rounds = group_rounds(field, group)
    assert [(p.a, p.b) for p in rounds[0].pairings] == [(2, 7), (3, 6)]


def row(place: str, entry: int, score: int) -> StandingRow:
    return StandingRow(place, int(place.split("-")[0]), entry, score, {})


def test_group_winners_are_seeded_apart_and_group_mates_meet_late() -> None:
    # Four groups, two qualify: winners A1..D1 take seeds 1-4; runners-up are
    # laid so that nobody meets his own group's winner before the final.
    tables = [
        [row("1", 101, 3), row("2", 102, 2), row("3", 103, 1)],
        [row("1", 201, 3), row("2", 202, 2), row("3", 203, 1)],
        [row("1", 301, 2), row("2", 302, 2), row("3", 303, 1)],
        [row("1", 401, 3), row("2", 402, 1), row("3", 403, 1)],
    ]
    b = knockout_from_groups(tables, 2)
    first: list[tuple[int, int]] = []
    for k in range(1, 5):
        a, c = b.players(f"M1-{k}")
        assert isinstance(a, int) and isinstance(c, int)
        first.append((a, c))
    winners = {101, 201, 301, 401}
    assert all(len(winners & set(pair)) == 1 for pair in first), "a winner against a runner-up"
    # Winners by score then group order: A1 (3), B1 (3), D1 (3), C1 (2) are
    # seeds 1-4, in bracket order 1, 4, 2, 3.
    assert [p[0] for p in first] == [101, 301, 201, 401]
    group_of = {p: p // 100 for pair in first for p in pair}
    slot = {}
    for k, pair in enumerate(first):
        slot[pair[0]], slot[pair[1]] = 2 * k, 2 * k + 1
    for g in (1, 2, 3, 4):
        a, c = (p for p in slot if group_of[p] == g)
        assert (slot[a] ^ slot[c]).bit_length() == 3, "group mates only in the final"


def test_three_groups_into_a_bracket_with_byes() -> None:
    tables = [
        [row("1", 10 * g + 1, 3), row("2", 10 * g + 2, 2), row("3", 10 * g + 3, 0)]
        for g in (1, 2, 3)
    ]
    b = knockout_from_groups(tables, 2)  # six qualifiers, bracket of 8: byes to seeds 1 and 2
    assert b.winner("M1-1") == 11 and b.winner("M1-3") == 21
    for k in range(1, 5):
        pair = b.players(f"M1-{k}")
        ids = [p for p in pair if isinstance(p, int)]
        assert len({p // 10 for p in ids}) == len(ids), "no group mates in the first round"
    assert seed_positions(8)[:2] == [1, 8]


def test_a_tie_at_the_cut_is_an_error() -> None:
    tables = [
        [row("1", 1, 2), row("2-3", 2, 1), row("2-3", 3, 1)],
        [row("1", 4, 2), row("2", 5, 1), row("3", 6, 0)],
    ]
    with pytest.raises(QualificationError) as err:
        knockout_from_groups(tables, 2)
    assert err.value.code == "tie_at_cut"
    assert knockout_from_groups(tables, 1).players("M1-1") == (1, 4)


def test_groups_then_knockout_full_event() -> None:
    field = entries(16)
    rng = random.Random(4)
    groups = snake_groups(field, 4)
    tables = []
    for group in groups:
        results: list[MatchResult] = []
        for rnd in group_rounds(field, group):
            results += play_round(rnd, rng)
        table = group_standings(
            field, group, results, StandingsSettings(tiebreaks=("DE", "SB", "PD"), lot_seed=7)
        )
        assert sorted(r.entry for r in table) == sorted(group.entries)
        tables.append(table)
    bracket = knockout_from_groups(tables, 2)
    run_bracket(bracket, seed=1)
    champion = bracket.champion()
    assert champion is not None
    qualifiers = {t[k].entry for t in tables for k in (0, 1)}
    assert champion in qualifiers
    assert {p for _, g in bracket.placements() for p in g} == qualifiers


def test_cup_of_several_stages_by_total_wins() -> None:
    field = entries(10)
    stages = []
    for k in range(3):
        _, results = run_swiss(list(field), SwissSettings(rounds=3), seed=k)
        stages.append(results)
    # A fourth stage only two players enter.
    stages.append([MatchResult(1, 1, 2, 2, 5, 3)])
    rows = cup_standings(field, stages)
    wins = {pid: 0 for pid in range(1, 11)}
    for stage in stages:
        for r in stage:
            if r.b is None:
                wins[r.a] += 1
            elif r.winner is not None:
                wins[r.winner] += 1
    assert {r.entry: r.score for r in rows} == wins
    assert [r.score for r in rows] == sorted(wins.values(), reverse=True)
    assert rows[0].rank == 1 and len(rows) == 10
