"""The FIBS formula against RATINGS.md's test vectors and the batting-average table."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.core import fibs
from ratings.core.errors import RatingError

# winner R/exp, loser R/exp, N, P(winner), delta winner, delta loser (RATINGS.md)
VECTORS = [
    (1850, 1000, 1750, 1000, 7, 0.57557, 4.4918, -4.4918),
    (1750, 1000, 1850, 1000, 7, 0.42443, 6.0912, -6.0912),
    (1500, 0, 1500, 0, 1, 0.5, 10.0, -10.0),
    (1500, 0, 1500, 0, 11, 0.5, 33.1662, -33.1662),
    (1550, 5, 1850, 2000, 7, 0.28622, 37.3919, -7.5539),
    (1600, 350, 1600, 2000, 5, 0.5, 6.7082, -4.4721),
]


@pytest.mark.parametrize(("rw", "ew", "rl", "el", "n", "p", "dw", "dl"), VECTORS)
def test_ratings_md_vectors(
    rw: float, ew: int, rl: float, el: int, n: int, p: float, dw: float, dl: float
) -> None:
    assert round(fibs.win_probability(rw, rl, n), 5) == p
    new_w, new_l = fibs.match_update(rw, ew, rl, el, n)
    assert round(new_w - rw, 4) == dw
    assert round(new_l - rl, 4) == dl


@pytest.mark.parametrize(
    ("length", "expected"), [(1, (0.529, 0.557, 0.613)), (7, (0.576, 0.648, 0.772))]
)
def test_batting_average_table(length: int, expected: tuple[float, float, float]) -> None:
    """The win rate a favourite by 100/200/400 needs to hold its rating (bkgm.com rgb 45)."""
    got = tuple(round(fibs.win_probability(1500 + d, 1500, length), 3) for d in (100, 200, 400))
    assert got == expected


def test_k_counts_experience_before_the_match() -> None:
    assert fibs.k_factor(0) == 5.0
    assert fibs.k_factor(5) == 4.95
    assert fibs.k_factor(350) == 1.5
    assert fibs.k_factor(399) == pytest.approx(1.01)
    assert fibs.k_factor(400) == 1.0
    assert fibs.k_factor(100_000) == 1.0
    # 1600/350 vs 1600/2000 at N=5: the winner's K is 1.5 (350 before the match),
    # not 1.45 as it would be counting the match (MacFIBS, GridGammon).
    new_w, _ = fibs.match_update(1600, 350, 1600, 2000, 5)
    assert new_w - 1600 == pytest.approx(4 * 1.5 * math.sqrt(5) * 0.5)


@pytest.mark.parametrize("length", [0, -1, True, 2.0])
def test_unrated_lengths_are_refused(length: object) -> None:
    with pytest.raises(RatingError) as info:
        fibs.match_update(1500, 0, 1500, 0, length)  # type: ignore[arg-type]
    assert info.value.code == "unrated_length"
    with pytest.raises(RatingError):
        fibs.win_probability(1500, 1500, length)  # type: ignore[arg-type]


ratings = st.floats(min_value=500, max_value=3000)
experience = st.integers(min_value=0, max_value=5000)
lengths = st.integers(min_value=1, max_value=41)


@given(ratings, experience, ratings, experience, lengths)
def test_update_properties(rw: float, ew: int, rl: float, el: int, n: int) -> None:
    new_w, new_l = fibs.match_update(rw, ew, rl, el, n)
    q = 1 - fibs.win_probability(rw, rl, n)
    assert new_w - rw == pytest.approx(4 * fibs.k_factor(ew) * math.sqrt(n) * q)
    assert rl - new_l == pytest.approx(4 * fibs.k_factor(el) * math.sqrt(n) * q)
    assert new_w >= rw and new_l <= rl
    # Zero-sum once both players are settled (K = 1 on both sides).
    if ew >= 400 and el >= 400:
        assert new_w - rw == pytest.approx(rl - new_l, rel=1e-12)


@given(ratings, ratings, lengths)
def test_win_probabilities_are_complementary(ra: float, rb: float, n: int) -> None:
    assert fibs.win_probability(ra, rb, n) + fibs.win_probability(rb, ra, n) == pytest.approx(1)
    if ra > rb:
        # A longer match favours the stronger player more.
        assert fibs.win_probability(ra, rb, n + 1) >= fibs.win_probability(ra, rb, n)
