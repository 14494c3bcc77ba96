"""Swiss pairings: worked rounds, byes, floaters, withdrawals, errors, properties."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tournaments.core.helpers import entries, play_round, run_swiss
from tournaments.core.errors import ConfigError, PairingError
from tournaments.core.standings import StandingsSettings, compute_standings
from tournaments.core.swiss import (
    SwissRecord,
    SwissSettings,
    pair_swiss_round,
    swiss_finished,
    swiss_records,
)
from tournaments.core.types import Entry, EntryId, MatchResult, Round

FIVE_ROUNDS = SwissSettings(rounds=5)


def pairs(rnd: Round) -> list[tuple[int, int]]:
    return [(p.a, p.b) for p in rnd.pairings]


def win(rnd: int, winner: int, loser: int) -> MatchResult:
    return MatchResult(rnd, winner, loser, winner, 7, 3)


def test_odd_field_with_withdrawals_round_by_round() -> None:
    field = entries(7)
    results: list[MatchResult] = []

    # Round 1: one group of 7 (all on 0).  The bye goes to the lowest seed, 7;
    # the rest meet half a group below: 1-4, 2-5, 3-6.
    r1 = pair_swiss_round(field, results, FIVE_ROUNDS)
    assert (r1.number, pairs(r1), r1.byes) == (1, [(1, 4), (2, 5), (3, 6)], (7,))
    results += [win(1, 1, 4), win(1, 2, 5), win(1, 3, 6), MatchResult.bye_for(1, 7)]

    # Round 2: scores 1: [1 2 3 7], 0: [4 5 6].  Bye: lowest record without a
    # bye, the lowest of the 0 group: 6.  1 meets 3 (half of 4 below), 2 meets 7, 4 meets 5.
    r2 = pair_swiss_round(field, results, FIVE_ROUNDS)
    assert (pairs(r2), r2.byes) == ([(1, 3), (2, 7), (4, 5)], (6,))
    results += [win(2, 1, 3), win(2, 7, 2), win(2, 4, 5), MatchResult.bye_for(2, 6)]

    # Player 2 withdraws.  Scores: 2: [1 7], 1: [3 4 6], 0: [5]; six players, no bye.
    # 1-7 meet inside their group; the 1-group is odd, its lowest (6) floats down to 5.
    field[1] = replace(field[1], withdrawn=True)
    r3 = pair_swiss_round(field, results, FIVE_ROUNDS)
    assert (pairs(r3), r3.byes) == ([(1, 7), (3, 4), (6, 5)], ())
    assert [p.floated for p in r3.pairings] == [False, False, True]
    assert (r3.pairings[2].a_score, r3.pairings[2].b_score) == (1, 0)
    results += [win(3, 1, 7), win(3, 4, 3), win(3, 5, 6)]

    # Player 4 withdraws too: five left, a bye again.  Scores 3: [1], 2: [7],
    # 1: [3 5 6].  7 and 6 had byes, so the bye goes to the lowest record among
    # 1, 3, 5: 3 and 5 are on 1, 5 is placed lower.  1 has met 7 and 3, so he
    # meets 6 (a float of 2), and 7 meets 3 (a float of 1).
    field[3] = replace(field[3], withdrawn=True)
    r4 = pair_swiss_round(field, results, FIVE_ROUNDS)
    assert (pairs(r4), r4.byes) == ([(1, 6), (7, 3)], (5,))
    check_round(field, results, r4, FIVE_ROUNDS)


def check_round(
    field: Sequence[Entry], results: Sequence[MatchResult], rnd: Round, cfg: SwissSettings
) -> None:
    """The rules every round must keep (rematches are allowed only as a last resort)."""
    records = swiss_records(field, results, cfg, before_round=rnd.number)
    active = {pid for pid, r in records.items() if r.active}
    seen = rnd.entries()
    assert sorted(seen) == sorted(active), "every active player exactly once, nobody else"
    assert len(rnd.byes) == len(active) % 2
    if rnd.byes:
        least = min(records[p].byes for p in active)
        assert records[rnd.byes[0]].byes == least, "no second bye until everyone had one"
    rematches = [p for p in rnd.pairings if p.b in records[p.a].opponents]
    if rematches:
        assert cfg.rematches == "last_resort"
        assert not valid_pairings_exist(records, active), "a rematch only when nothing else works"


def brute_pairings(
    records: dict[EntryId, SwissRecord], active: set[EntryId]
) -> Iterator[tuple[list[tuple[EntryId, EntryId]], EntryId | None]]:
    """Every rematch-free pairing of the active players that keeps the bye rule."""
    players = sorted(active)
    least = min(records[p].byes for p in players)
    bye_options: list[EntryId | None] = (
        [p for p in players if records[p].byes == least] if len(players) % 2 else [None]
    )

    def rec(rest: list[EntryId]) -> Iterator[list[tuple[EntryId, EntryId]]]:
        if not rest:
            yield []
            return
        a = rest[0]
        for k in range(1, len(rest)):
            b = rest[k]
            if b in records[a].opponents:
                continue
            for tail in rec(rest[1:k] + rest[k + 1 :]):
                yield [(a, b), *tail]

    for bye in bye_options:
        for pairing in rec([p for p in players if p != bye]):
            yield pairing, bye


def valid_pairings_exist(records: dict[EntryId, SwissRecord], active: set[EntryId]) -> bool:
    return next(brute_pairings(records, active), None) is not None


def test_no_valid_pairing_is_a_coded_error_and_last_resort_allows_a_rematch() -> None:
    field = entries(4)
    results = [
        win(1, 1, 2), win(1, 3, 4),
        win(2, 1, 3), win(2, 2, 4),
        win(3, 1, 4), win(3, 2, 3),
    ]  # fmt: skip
    with pytest.raises(PairingError) as err:
        pair_swiss_round(field, results, SwissSettings(rounds=5))
    assert err.value.code == "no_valid_pairing"
    assert err.value.data["round"] == 4
    rnd = pair_swiss_round(field, results, SwissSettings(rounds=5, rematches="last_resort"))
    # 1 (3 wins) and 2 (2) are the two best records: a rematch either way, the
    # smallest score differences are 1-2 and 3-4.
    assert pairs(rnd) == [(1, 2), (3, 4)]


def test_finished_events_and_bad_settings() -> None:
    field = entries(4)
    with pytest.raises(PairingError) as err:
        pair_swiss_round(field, [], SwissSettings(rounds=2), round_number=3)
    assert err.value.code == "event_finished"
    with pytest.raises(ConfigError):
        SwissSettings()
    with pytest.raises(ConfigError):
        SwissSettings(rounds=0)
    with pytest.raises(ConfigError) as cfg:
        pair_swiss_round([Entry(1), Entry(1)], [], SwissSettings(rounds=3))
    assert cfg.value.code == "duplicate_entry"
    lonely = [Entry(1), Entry(2, withdrawn=True)]
    with pytest.raises(PairingError) as err:
        pair_swiss_round(lonely, [], SwissSettings(rounds=3))
    assert err.value.code == "nothing_to_pair"
    assert swiss_finished(lonely, [], SwissSettings(rounds=3))


def test_pairing_is_deterministic_and_ignores_input_order() -> None:
    field = entries(11)
    _, results = run_swiss(field, SwissSettings(rounds=3), seed=5)
    shuffled = field[:]
    random.Random(1).shuffle(shuffled)
    rnd = pair_swiss_round(field, results, SwissSettings(rounds=5))
    assert rnd == pair_swiss_round(field, results, SwissSettings(rounds=5))
    assert rnd == pair_swiss_round(shuffled, list(reversed(results)), SwissSettings(rounds=5))


def test_rating_order_when_not_hand_seeded() -> None:
    field = [Entry(i, rating=r) for i, r in [(1, 1500), (2, 1900), (3, 1700), (4, 2100)]]
    rnd = pair_swiss_round(field, [], SwissSettings(rounds=3, seed_by="rating"))
    assert pairs(rnd) == [(4, 3), (2, 1)]  # by rating: 4 2 3 1 -> 4-3, 2-1


def test_bye_not_a_win_keeps_the_player_on_his_score() -> None:
    cfg = SwissSettings(rounds=3, bye_is_win=False)
    field = entries(3)
    r1 = pair_swiss_round(field, [], cfg)
    assert (pairs(r1), r1.byes) == ([(1, 2)], (3,))
    results = [win(1, 1, 2), MatchResult.bye_for(1, 3)]
    records = swiss_records(field, results, cfg)
    assert (records[3].score, records[3].losses, records[3].byes) == (0, 0, 1)
    r2 = pair_swiss_round(field, results, cfg)
    # Bye to the lowest record among those without one: 2 (0 wins, 1 loss) is
    # below 3 (0 wins, 0 losses)?  In fixed rounds the record is the score:
    # both on 0, 3 had the bye, so 2 gets it; 1 meets 3.
    assert (pairs(r2), r2.byes) == ([(1, 3)], (2,))


def test_forfeits_are_not_meetings() -> None:
    field = entries(4)
    results = [MatchResult.forfeit_win(1, 1, 3), win(1, 2, 4)]
    records = swiss_records(field, results, FIVE_ROUNDS)
    assert 3 not in records[1].opponents
    assert records[3].losses == 1 and records[1].score == 1


def test_until_three_losses_runs_to_a_single_survivor() -> None:
    cfg = SwissSettings(max_losses=3)
    field = entries(20)
    rounds, results = run_swiss(field, replace(cfg, rematches="last_resort"), seed=3)
    records = swiss_records(field, results, cfg)
    survivors = [pid for pid, r in records.items() if r.active]
    assert len(survivors) == 1
    out_in = {pid: r.eliminated_in for pid, r in records.items()}
    for rnd in rounds:
        for pid in rnd.entries():
            out = out_in[pid]
            assert out is None or out >= rnd.number, "nobody plays after the 3rd loss"
    standings = compute_standings(
        field,
        results,
        StandingsSettings(tiebreaks=("BH", "SB")),
        last_round={pid: r for pid, r in out_in.items() if r is not None},
    )
    assert standings[0].entry == survivors[0]
    assert len(standings) == 20


@pytest.mark.parametrize("n", [7, 10, 16])
def test_full_swiss_events(n: int) -> None:
    cfg = SwissSettings(rounds=5)
    field = entries(n)
    rounds, results = run_swiss(field, cfg, seed=n, forfeits=0.05, withdraw={3: n // 2})
    assert len(rounds) == 5
    met: set[frozenset[int]] = set()
    for rnd in rounds:
        for p in rnd.pairings:
            assert frozenset((p.a, p.b)) not in met
            met.add(frozenset((p.a, p.b)))
    rows = compute_standings(
        field, results, StandingsSettings(tiebreaks=("BH-C1", "BH", "SB", "PS"))
    )
    assert sorted(r.entry for r in rows) == list(range(1, n + 1))
    assert rows[0].rank == 1 and rows[0].score == max(r.score for r in rows)


def test_a_thousand_players_pair_without_rematches() -> None:
    field = [Entry(i, rating=2200 - i) for i in range(1, 1002)]
    rng = random.Random(9)
    results: list[MatchResult] = []
    cfg = SwissSettings(rounds=9)
    for _ in range(5):
        rnd = pair_swiss_round(field, results, cfg)
        check_round_fast(field, results, rnd, cfg)
        results += play_round(rnd, rng)


def check_round_fast(
    field: Sequence[Entry], results: Sequence[MatchResult], rnd: Round, cfg: SwissSettings
) -> None:
    records = swiss_records(field, results, cfg, before_round=rnd.number)
    active = {pid for pid, r in records.items() if r.active}
    assert sorted(rnd.entries()) == sorted(active)
    assert not any(p.b in records[p.a].opponents for p in rnd.pairings)
    floats = [p for p in rnd.pairings if p.floated]
    groups: dict[int, int] = {}
    for pid in active - set(rnd.byes):
        groups[records[pid].score] = groups.get(records[pid].score, 0) + 1
    odd = sum(1 for k in groups.values() if k % 2)
    assert len(floats) <= odd + 2  # floaters only where a group is odd (or a rematch blocks)


# ---------------------------------------------------------------------------
# Properties


@st.composite
def events(draw: st.DrawFn) -> tuple[int, int, list[bool], list[tuple[int, int]], bool, int | None]:
    n = draw(st.integers(2, 9))
    rounds = draw(st.integers(1, 7))
    outcomes = draw(st.lists(st.booleans(), min_size=rounds * 5, max_size=rounds * 5))
    withdrawals = draw(st.lists(st.tuples(st.integers(1, rounds), st.integers(1, n)), max_size=2))
    bye_is_win = draw(st.booleans())
    max_losses = draw(st.sampled_from([None, None, 2, 3]))
    return n, rounds, outcomes, withdrawals, bye_is_win, max_losses


def objective(
    records: dict[EntryId, SwissRecord],
    losses_mode: bool,
    pairing: list[tuple[int, int]],
    bye: int | None,
) -> tuple[int, int, int]:
    """What the pairing optimises, in order: rematches, bye record (lower first), score spread."""

    def rec(p: int) -> tuple[int, int]:
        r = records[p]
        return (r.score, r.losses if losses_mode else 0)

    active = [p for p in records if records[p].active]
    levels = sorted({rec(p) for p in active}, key=lambda x: (-x[0], x[1]))
    rematches = sum(1 for a, b in pairing if b in records[a].opponents)
    bye_level = -levels.index(rec(bye)) if bye is not None else 0
    spread = sum((abs(rec(a)[0] - rec(b)[0]) + abs(rec(a)[1] - rec(b)[1])) ** 2 for a, b in pairing)
    return rematches, bye_level, spread


@settings(max_examples=150, deadline=None)
@given(events())
def test_swiss_properties(
    event: tuple[int, int, list[bool], list[tuple[int, int]], bool, int | None],
) -> None:
    n, rounds, outcomes, withdrawals, bye_is_win, max_losses = event
    cfg = SwissSettings(
        rounds=rounds, max_losses=max_losses, bye_is_win=bye_is_win, rematches="last_resort"
    )
    field = entries(n)
    results: list[MatchResult] = []
    flips = iter(outcomes)
    for number in range(1, rounds + 1):
        for when, who in withdrawals:
            if when == number:
                field[who - 1] = replace(field[who - 1], withdrawn=True)
        if swiss_finished(field, results, cfg):
            break
        rnd = pair_swiss_round(field, results, cfg)
        assert rnd.number == number
        check_round(field, results, rnd, cfg)
        records = swiss_records(field, results, cfg, before_round=number)
        active = {pid for pid, r in records.items() if r.active}
        losses_mode = max_losses is not None
        ours = objective(
            records,
            losses_mode,
            [(p.a, p.b) for p in rnd.pairings],
            rnd.byes[0] if rnd.byes else None,
        )
        options = list(brute_pairings(records, active))
        if options:
            best = min(objective(records, losses_mode, p, b) for p, b in options)
            assert ours == best
        # The same input gives the same round.
        assert pair_swiss_round(field, results, cfg) == rnd
        for p in rnd.pairings:
            a_wins = next(flips)
            results.append(MatchResult(number, p.a, p.b, p.a if a_wins else p.b, 5, 2))
        results += [MatchResult.bye_for(number, b) for b in rnd.byes]
