"""Pool recomputation: from scratch, match by match, period by period, and from a
checkpoint read back from history rows after a late or corrected result."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratings.core import (
    FibsRow,
    FibsSettings,
    Glicko2Row,
    Glicko2Settings,
    PlayerState,
    PoolState,
    RatedMatch,
    RatingError,
    apply_match,
    apply_period,
    empty_state,
    fibs,
    glicko2,
    recompute,
    recompute_from,
    state_from_history,
)
from tests.ratings.core.strategies import (
    BASE,
    corrections,
    fibs_seeds,
    glicko2_seeds,
    histories,
    make_match,
)

FIBS = FibsSettings()
GLICKO = Glicko2Settings()
MANY = settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)


# --- the incremental-correction path equals a recomputation from scratch ----------


@MANY
@given(data=st.data())
def test_fibs_correction_from_checkpoint_equals_full_recompute(data: st.DataObject) -> None:
    players, history = data.draw(histories())
    seeds = data.draw(fibs_seeds(players))
    change = data.draw(corrections(players, history))
    _, old_rows = recompute(FIBS, history, seeds=seeds)

    before = [row for row in old_rows if (row.played_at, row.match_id) < change.first_key]
    later = [m for m in change.new_history if m.key >= change.first_key]
    shuffled = data.draw(st.permutations(before))  # rows come back from a query in any order
    checkpoint = state_from_history(FIBS, shuffled, seeds=seeds)
    state, rows = recompute_from(checkpoint, later)

    full_state, full_rows = recompute(FIBS, change.new_history, seeds=seeds)
    assert state == full_state  # exactly: same floats, same operations, same order
    assert before + rows == full_rows
    # The checkpoint itself is the state a recomputation reaches just before the change.
    unchanged = [m for m in history if m.key < change.first_key]
    assert checkpoint == recompute(FIBS, unchanged, seeds=seeds)[0]


@MANY
@given(data=st.data())
def test_glicko2_correction_from_checkpoint_equals_full_recompute(data: st.DataObject) -> None:
    players, history = data.draw(histories())
    seeds = data.draw(glicko2_seeds(players))
    change = data.draw(corrections(players, history))
    _, old_rows = recompute(GLICKO, history, seeds=seeds)

    # Glicko-2 restarts at the start of the changed match's rating period.
    before = [row for row in old_rows if row.period < change.first_period]
    later = [
        m for m in change.new_history if m.period is not None and m.period >= change.first_period
    ]
    checkpoint = state_from_history(GLICKO, data.draw(st.permutations(before)), seeds=seeds)
    state, rows = recompute_from(checkpoint, later)

    full_state, full_rows = recompute(GLICKO, change.new_history, seeds=seeds)
    assert state == full_state
    assert before + rows == full_rows


# --- every way of feeding the same matches gives the same floats ------------------


@settings(deadline=None)
@given(histories())
def test_fibs_match_by_match_equals_recompute(case: tuple[int, list[RatedMatch]]) -> None:
    _, history = case
    state = empty_state(FIBS)
    rows: list[FibsRow] = []
    for match in history:
        previous = state
        state, new_rows = apply_match(state, match)
        assert previous.position != state.position  # the input state is left alone
        assert [row.player for row in new_rows] == [match.winner, match.loser]
        rows += new_rows
    assert (state, rows) == recompute(FIBS, history)


@settings(deadline=None)
@given(histories())
def test_glicko2_period_by_period_equals_recompute(case: tuple[int, list[RatedMatch]]) -> None:
    _, history = case
    state = empty_state(GLICKO)
    rows: list[Glicko2Row] = []
    for period in sorted({m.period for m in history if m.period is not None}):
        state, new_rows = apply_period(state, [m for m in history if m.period == period], period)
        rows += new_rows
    assert (state, rows) == recompute(GLICKO, history)


@settings(deadline=None)
@given(histories(), st.integers(1, 7), st.booleans())
def test_history_off_or_streamed_changes_nothing_else(
    case: tuple[int, list[RatedMatch]], chunk: int, glicko: bool
) -> None:
    _, history = case
    pool: Any = GLICKO if glicko else FIBS
    state, rows = recompute(pool, history)
    assert recompute(pool, history, history=False) == (state, [])
    chunks: list[list[Any]] = []
    assert recompute(pool, history, sink=chunks.append, chunk=chunk) == (state, [])
    assert [row for part in chunks for row in part] == rows
    assert all(part for part in chunks)


def test_fibs_pool_uses_the_formula() -> None:
    seeds = {
        1: PlayerState(rating=1550.0, experience=5),
        2: PlayerState(rating=1850.0, experience=2000, matches=300),
    }
    match = make_match(10, 0, 1, 2, 7)
    state, rows = recompute(FIBS, [match], seeds=seeds)
    new_w, new_l = fibs.match_update(1550.0, 5, 1850.0, 2000, 7)
    assert rows == [
        FibsRow(1, 10, match.played_at, 1550.0, new_w, 5, 12),
        FibsRow(2, 10, match.played_at, 1850.0, new_l, 2000, 2007),
    ]
    assert round(new_w - 1550, 4) == 37.3919
    assert state.players[1] == PlayerState(new_w, 12, 1, last_played_at=match.played_at)
    assert state.players[2] == PlayerState(new_l, 2007, 301, last_played_at=match.played_at)
    assert state.position == (match.played_at, 10)
    assert state.player(99) == PlayerState(1500.0)


def test_fibs_start_values_are_per_pool() -> None:
    pool = FibsSettings(start_rating=1200.0, start_experience=100)
    _, rows = recompute(pool, [make_match(1, 0, 1, 2, 1)])
    assert rows[0].rating_before == 1200.0 and rows[0].experience_before == 100
    assert rows[0].rating_after - 1200.0 == pytest.approx(4 * 4 * 1 * 0.5)  # K = 5 - 100/100


# --- Glicko-2 in the pool --------------------------------------------------------


def paper_pool() -> tuple[dict[int, PlayerState], list[RatedMatch]]:
    seeds = {
        1: PlayerState(rating=1500.0, rd=200.0, volatility=0.06),
        2: PlayerState(rating=1400.0, rd=30.0, volatility=0.06),
        3: PlayerState(rating=1550.0, rd=100.0, volatility=0.06),
        4: PlayerState(rating=1700.0, rd=300.0, volatility=0.06),
    }
    matches = [make_match(1, 0, 1, 2, 5), make_match(2, 1, 3, 1, 7), make_match(3, 2, 4, 1, 1)]
    return seeds, matches


def test_glicko2_period_matches_the_paper_and_rate() -> None:
    seeds, matches = paper_pool()
    state, rows = recompute(GLICKO, matches, seeds=seeds)
    row = next(r for r in rows if r.player == 1)
    expected = glicko2.rate(1500.0, 200.0, 0.06, [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)])
    assert (row.rating_after, row.rd_after, row.volatility_after) == expected  # bit for bit
    assert (round(row.rating_after, 2), round(row.rd_after, 2)) == (1464.05, 151.52)
    assert row.matches == 3 and row.match_id == 3 and row.period == 0
    assert row.experience_before == 0 and row.experience_after == 13
    # Opponents are rated simultaneously, against player 1's values before the period.
    opponent = next(r for r in rows if r.player == 2)
    assert (opponent.rating_after, opponent.rd_after, opponent.volatility_after) == glicko2.rate(
        1400.0, 30.0, 0.06, [(1500.0, 200.0, 0.0)]
    )
    assert [(r.match_id, r.player) for r in rows] == [(1, 2), (2, 3), (3, 1), (3, 4)]
    assert state.players[1].matches == 3 and state.players[1].last_period == 0
    assert state.period == 0


def test_glicko2_rd_grows_over_the_periods_a_player_sits_out() -> None:
    matches = [
        make_match(1, 0, 1, 2, 1),  # period 0
        make_match(2, 4, 2, 3, 1),  # period 1: player 1 sits out
        make_match(3, 20, 1, 3, 1),  # period 5: player 1 is back after periods 1-4
    ]
    state, rows = recompute(GLICKO, matches)
    first, back = (r for r in rows if r.player == 1)
    assert back.rd_before == glicko2.grown_rd(first.rd_after, first.volatility_after, 4, 350.0)
    assert back.rd_before > first.rd_after
    assert back.rating_before == first.rating_after
    # Player 2 played in period 1 after period 0: nothing to grow.
    p2 = [r for r in rows if r.player == 2]
    assert p2[1].rd_before == p2[0].rd_after
    # The state keeps the RD of the last period played; growth is counted when needed.
    assert state.players[2].rd == p2[1].rd_after and state.players[2].last_period == 1
    assert GLICKO.rd_at(state.players[2], 5) == glicko2.grown_rd(
        p2[1].rd_after, p2[1].volatility_after, 4, 350.0
    )


def test_glicko2_rd_growth_is_capped_at_max_rd() -> None:
    matches = [make_match(1, 0, 1, 2, 1), make_match(2, 100_000, 1, 2, 1)]
    capped = recompute(GLICKO, matches)[1]
    assert capped[2].rd_before == 350.0
    uncapped = recompute(Glicko2Settings(max_rd=None), matches)[1]
    assert uncapped[2].rd_before > 350.0


def test_glicko2_settings_are_used() -> None:
    seeds, matches = paper_pool()
    tau = Glicko2Settings(tau=1.2)
    row = next(r for r in recompute(tau, matches, seeds=seeds)[1] if r.player == 1)
    games = [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)]
    assert row.volatility_after == glicko2.rate(1500.0, 200.0, 0.06, games, tau=1.2)[2]
    start = Glicko2Settings(start_rating=1600.0, start_rd=250.0, start_volatility=0.05)
    row = recompute(start, [make_match(1, 0, 1, 2, 1)])[1][0]
    assert (row.rating_before, row.rd_before, row.volatility_before) == (1600.0, 250.0, 0.05)


@pytest.mark.parametrize(
    "kwargs",
    [{"tau": 0.2}, {"tau": 1.3}, {"start_rd": 0.0}, {"epsilon": -1.0}, {"start_rating": math.nan}],
)
def test_bad_glicko2_settings(kwargs: dict[str, Any]) -> None:
    with pytest.raises(RatingError):
        Glicko2Settings(**kwargs)


@pytest.mark.parametrize("kwargs", [{"start_experience": -1}, {"provisional_matches": -2}])
def test_bad_fibs_settings(kwargs: dict[str, int]) -> None:
    with pytest.raises(RatingError):
        FibsSettings(**kwargs)


# --- refused input -----------------------------------------------------------------


@pytest.mark.parametrize("pool", [FIBS, GLICKO])
def test_length_zero_is_refused(pool: Any) -> None:
    money = make_match(3, 0, 1, 2, 1)._replace(length=0)
    with pytest.raises(RatingError) as info:
        recompute(pool, [make_match(2, 0, 1, 2, 5), money])
    assert info.value.code == "unrated_length"


@pytest.mark.parametrize("pool", [FIBS, GLICKO])
def test_matches_must_come_in_order(pool: Any) -> None:
    a, b = make_match(5, 0, 1, 2, 1), make_match(4, 0, 2, 1, 1)  # same time: id 4 first
    with pytest.raises(RatingError) as info:
        recompute(pool, [a, b])
    assert info.value.code == "match_order"
    with pytest.raises(RatingError):
        recompute(pool, [a, a])
    state, _ = recompute(pool, [b, a])
    assert state.position == a.key


def test_nothing_at_or_before_the_checkpoint() -> None:
    a, b = make_match(4, 0, 1, 2, 1), make_match(5, 0, 2, 1, 1)
    state, _ = recompute(FIBS, [a, b])
    for match in (a, b, make_match(9, -1, 1, 2, 1)):
        with pytest.raises(RatingError) as info:
            recompute_from(state, [match])
        assert info.value.code == "match_order"
    assert recompute_from(state, [make_match(6, 0, 1, 2, 1)])[0].position == (a.played_at, 6)


@pytest.mark.parametrize("pool", [FIBS, GLICKO])
def test_a_player_cannot_play_themselves(pool: Any) -> None:
    with pytest.raises(RatingError) as info:
        recompute(pool, [make_match(1, 0, 3, 3, 1)])
    assert info.value.code == "same_player"


def test_glicko2_periods_must_increase() -> None:
    first, second = make_match(1, 0, 1, 2, 1), make_match(2, 9, 1, 2, 1)
    with pytest.raises(RatingError) as info:
        recompute(GLICKO, [first, second._replace(period=-1)])
    assert info.value.code == "period_order"
    state, _ = recompute(GLICKO, [first])
    with pytest.raises(RatingError):  # the checkpoint's period is closed
        recompute_from(state, [second._replace(period=0)])
    with pytest.raises(RatingError) as info:
        recompute(GLICKO, [first._replace(period=None)])
    assert info.value.code == "no_period"
    # A period must not come back after another one.
    third = make_match(3, 10, 1, 2, 1)._replace(period=0)
    with pytest.raises(RatingError):
        recompute(GLICKO, [first, second, third])


def test_apply_period_checks_its_matches() -> None:
    state = empty_state(GLICKO)
    with pytest.raises(RatingError) as info:
        apply_period(state, [make_match(1, 0, 1, 2, 1)], 3)
    assert info.value.code == "period_mismatch"
    state, rows = apply_period(state, [], 3)
    assert rows == [] and state.period == 3
    with pytest.raises(RatingError):
        apply_period(state, [], 3)


def test_wrong_system() -> None:
    with pytest.raises(RatingError):
        apply_match(empty_state(GLICKO), make_match(1, 0, 1, 2, 1))  # type: ignore[arg-type]
    with pytest.raises(RatingError):
        apply_period(empty_state(FIBS), [], 0)  # type: ignore[arg-type]
    _, glicko_rows = recompute(GLICKO, [make_match(1, 0, 1, 2, 1)])
    with pytest.raises(RatingError):
        state_from_history(FIBS, glicko_rows)  # type: ignore[arg-type]


def test_bad_chunk_and_seeds() -> None:
    with pytest.raises(RatingError):
        recompute(FIBS, [], chunk=0)
    with pytest.raises(RatingError):
        empty_state(FIBS, {1: PlayerState(rating=1500.0, experience=-5)})


# --- states ------------------------------------------------------------------------


def test_states_are_read_only_and_compare_by_value() -> None:
    state = empty_state(FIBS, {1: PlayerState(1600.0)})
    with pytest.raises(TypeError):
        state.players[2] = PlayerState(1.0)  # type: ignore[index]
    assert state == PoolState(FIBS, {1: PlayerState(1600.0)})
    other: PoolState[Any] = PoolState(GLICKO, {1: PlayerState(1600.0)})
    assert state != other
    # Glicko-2 seeds without RD or volatility get the pool's start values.
    seeded = empty_state(GLICKO, {1: PlayerState(1600.0)})
    assert seeded.players[1] == PlayerState(1600.0, rd=350.0, volatility=0.06)


def test_state_from_no_history_is_the_start() -> None:
    seeds = {3: PlayerState(1700.0, 500, 40)}
    assert state_from_history(FIBS, [], seeds=seeds) == empty_state(FIBS, seeds)
    assert state_from_history(GLICKO, []) == empty_state(GLICKO)


def test_fibs_checkpoint_counts_matches_and_keeps_last_played() -> None:
    matches = [make_match(i, i, 1 + i % 2, 2 - i % 2, 3) for i in range(1, 6)]
    matches.append(make_match(9, 7, 3, 1, 1))
    state, rows = recompute(FIBS, matches)
    rebuilt = state_from_history(FIBS, reversed(rows))
    assert rebuilt == state
    assert rebuilt.players[1].matches == 6 and rebuilt.players[3].matches == 1
    assert rebuilt.players[1].last_played_at == BASE + timedelta(days=7)
    assert rebuilt.position == (BASE + timedelta(days=7), 9)
