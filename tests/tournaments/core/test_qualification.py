"""Qualification: standings of one event seed the next."""

from __future__ import annotations

import random

import pytest

from tests.tournaments.core.helpers import entries, play_round, run_bracket, run_swiss
from tournaments.core.elimination import single_elimination
from tournaments.core.errors import QualificationError
from tournaments.core.qualification import qualify, qualify_many
from tournaments.core.round_robin import round_robin_rounds
from tournaments.core.standings import StandingRow, StandingsSettings, compute_standings
from tournaments.core.swiss import SwissSettings
from tournaments.core.types import Entry, MatchResult


def row(place: str, entry: int) -> StandingRow:
    return StandingRow(place, int(place.split("-")[0]), entry, 0, {})


ROWS = [row("1", 7), row("2", 3), row("3-4", 5), row("3-4", 9), row("5", 1)]


def test_top_places_become_seeded_entries() -> None:
    source = [
        Entry(7, rating=1900, name="Ali"),
        Entry(3, rating=1800),
        Entry(5),
        Entry(9),
        Entry(1),
    ]
    got = qualify(ROWS, 2, source)
    assert got == [Entry(7, seed=1, rating=1900, name="Ali"), Entry(3, seed=2, rating=1800)]
    assert [e.id for e in qualify(ROWS, 4)] == [7, 3, 5, 9]
    assert [e.id for e in qualify(ROWS, 2, id_map={7: 70, 3: 30})] == [70, 30]


def test_a_shared_place_at_the_cut() -> None:
    with pytest.raises(QualificationError) as err:
        qualify(ROWS, 3)
    assert err.value.code == "tie_at_cut"
    assert [e.id for e in qualify(ROWS, 3, on_tie="include")] == [7, 3, 5, 9]
    assert [e.id for e in qualify(ROWS, 3, on_tie="order")] == [7, 3, 5]
    with pytest.raises(QualificationError) as err:
        qualify(ROWS, 9)
    assert err.value.code == "not_enough_places"


def test_withdrawn_players_are_skipped() -> None:
    source = [Entry(7, withdrawn=True), Entry(3), Entry(5), Entry(9), Entry(1)]
    assert [e.id for e in qualify(ROWS, 1, source)] == [3]


def test_several_sources_seed_by_place() -> None:
    village_a = [row("1", 1), row("2", 2), row("3", 3)]
    village_b = [row("1", 11), row("2", 12)]
    village_c = [row("1", 21), row("2", 22)]
    got = qualify_many([(village_a, 2), (village_b, 2), (village_c, 1)])
    assert [(e.id, e.seed) for e in got] == [(1, 1), (11, 2), (21, 3), (2, 4), (12, 5)]
    with pytest.raises(QualificationError) as err:
        qualify_many([(village_a, 1), (village_a, 1)])
    assert err.value.code == "duplicate_entry"


def test_a_qualification_chain_runs_to_a_champion() -> None:
    # Three village Swisses (8 players each) -> top 2 of each -> a district
    # round robin of 6 -> top 4 -> a city knock-out.
    rng = random.Random(8)
    sources = []
    pool = []
    for v in range(3):
        field = [Entry(100 * v + k, seed=k, rating=1500 + k) for k in range(1, 9)]
        _, village = run_swiss(field, SwissSettings(rounds=3), seed=v)
        rows = compute_standings(
            field, village, StandingsSettings(tiebreaks=("BH", "SB"), lot_seed=v)
        )
        sources.append((rows, 2))
        pool += field
    district = qualify_many(sources, pool)
    assert [e.seed for e in district] == [1, 2, 3, 4, 5, 6]
    results: list[MatchResult] = []
    for rnd in round_robin_rounds(district):
        results += play_round(rnd, rng)
    table = compute_standings(
        district, results, StandingsSettings(tiebreaks=("DE", "SB"), lot_seed=1)
    )
    city = qualify(table, 4, district)
    bracket = single_elimination(city)
    run_bracket(bracket, seed=3)
    assert bracket.champion() in {e.id for e in city}
    assert len(entries(1)) == 1
