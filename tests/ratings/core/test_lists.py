"""Rating lists: ranks (ties share), provisional marks, changes since the previous list."""

from __future__ import annotations

from datetime import date

from ratings.core import (
    FibsSettings,
    Glicko2Settings,
    PlayerState,
    PoolState,
    RatingList,
    glicko2,
    rating_list,
    recompute,
)
from tests.ratings.core.strategies import make_match

DAY = date(2024, 6, 30)


def fibs_pool(**settings: int) -> PoolState[FibsSettings]:
    return PoolState(
        FibsSettings(**settings),
        {
            1: PlayerState(1600.0, 800, 90),
            2: PlayerState(1550.004, 399, 40),  # shows as 1550.00
            3: PlayerState(1549.996, 400, 4),  # shows as 1550.00 too
            4: PlayerState(1500.0, 0, 0),  # never played
            5: PlayerState(1450.25, 2000, 300),
        },
    )


def test_ranks_ties_and_order() -> None:
    result = rating_list(fibs_pool(), date=DAY)
    assert result.date == DAY
    assert [(e.rank, e.player, e.rating) for e in result.entries] == [
        (1, 1, 1600.0),
        (2, 2, 1550.0),
        (2, 3, 1550.0),
        (4, 5, 1450.25),
    ]
    assert [e.experience for e in result.entries] == [800, 399, 400, 2000]
    assert [e.matches for e in result.entries] == [90, 40, 4, 300]
    assert all(e.rd is None and e.change is None for e in result.entries)
    # More decimals separate the tie.
    finer = rating_list(fibs_pool(), date=DAY, decimals=3)
    assert [(e.rank, e.player) for e in finer.entries][1:3] == [(2, 2), (3, 3)]


def test_who_is_listed() -> None:
    assert 4 not in rating_list(fibs_pool(), date=DAY).ratings()
    assert rating_list(fibs_pool(), date=DAY, min_matches=0).entry(4) is not None
    listed = rating_list(fibs_pool(list_min_matches=50), date=DAY).ratings()
    assert sorted(listed) == [1, 5]


def test_fibs_provisional_marks() -> None:
    marks = {e.player: e.provisional for e in rating_list(fibs_pool(), date=DAY).entries}
    assert marks == {1: False, 2: True, 3: False, 5: False}  # experience < 400
    marks = {
        e.player: e.provisional
        for e in rating_list(fibs_pool(provisional_matches=5), date=DAY).entries
    }
    assert marks == {1: False, 2: True, 3: True, 5: False}  # or fewer than 5 matches


def test_change_since_the_previous_list() -> None:
    first = rating_list(fibs_pool(), date=date(2024, 5, 31))
    moved = PoolState(
        FibsSettings(),
        {**fibs_pool().players, 5: PlayerState(1650.5, 2007, 301), 6: PlayerState(1400.0, 7, 1)},
    )
    second = rating_list(moved, date=DAY, previous=first)
    by_player = {e.player: e for e in second.entries}
    assert by_player[5].change == 200.25 and by_player[5].previous_rank == 4
    assert by_player[5].rank == 1
    assert by_player[1].change == 0.0 and by_player[1].previous_rank == 1
    assert by_player[6].change is None and by_player[6].previous_rank is None
    # Or the previous ratings alone.
    alone = rating_list(moved, date=DAY, previous={5: 1450.254})
    assert alone.entry(5) is not None and alone.entry(5).change == 200.25  # type: ignore[union-attr]
    assert alone.entry(1).previous_rank is None  # type: ignore[union-attr]
    assert alone.entry(42) is None


def test_glicko2_list_grows_rd_to_the_list_period() -> None:
    settings = Glicko2Settings()
    matches = [make_match(i, 0, 1 + i % 2, 2 - i % 2, 1) for i in range(1, 30)]
    matches.append(make_match(40, 8, 3, 1, 1))  # period 2: player 2 sits out
    state, _ = recompute(settings, matches)
    two = state.players[2]
    assert two.rd is not None and two.volatility is not None
    listing = rating_list(state, date=DAY)  # default: the state's last period (2)
    assert listing.period == 2
    entry = listing.entry(2)
    assert entry is not None
    assert entry.rd == round(glicko2.grown_rd(two.rd, two.volatility, 2, 350.0), 2)
    assert entry.rd is not None and entry.rd > round(two.rd, 2)
    later = rating_list(state, date=DAY, period=10_000).entry(2)
    assert later is not None and later.rd == 350.0 and later.provisional
    three = listing.entry(3)
    assert three is not None and three.provisional  # one game: RD far above 110
    assert three.rd == round(state.players[3].rd or 0.0, 2)


def test_glicko2_provisional_threshold() -> None:
    state = PoolState(
        Glicko2Settings(provisional_rd=110.0),
        {
            1: PlayerState(1500.0, 10, 20, rd=110.0, volatility=0.06, last_period=3),
            2: PlayerState(1500.0, 10, 20, rd=110.01, volatility=0.06, last_period=3),
        },
        period=3,
    )
    marks = {e.player: e.provisional for e in rating_list(state, date=DAY).entries}
    assert marks == {1: False, 2: True}
    assert isinstance(rating_list(state, date=DAY), RatingList)
