"""Glicko-2 (Glickman 2013, steps 1-8) against RATINGS.md's vectors and the paper."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.core import glicko2
from ratings.core.errors import RatingError

OPPONENTS = [(1400.0, 30.0), (1550.0, 100.0), (1700.0, 300.0)]
RESULTS = (1.0, 0.0, 0.0)


def paper_period(rating: float, rd: float, tau: float = 0.5) -> tuple[float, float, float]:
    games = [(r, d, s) for (r, d), s in zip(OPPONENTS, RESULTS, strict=True)]
    return glicko2.rate(rating, rd, 0.06, games, tau=tau)


# RATINGS.md's test vectors, as printed there (row 1 is the paper's example:
# 1464.06 / 151.52 / 0.05999 in the paper, rounded from intermediate values).
VECTORS = [
    (1500.0, 200.0, (1464.05, 151.52, 0.059996)),
    (1800.0, 200.0, (1626.56, 165.09, 0.060004)),
    (2200.0, 80.0, (2142.58, 79.94, 0.060031)),
    (1200.0, 60.0, (1211.35, 59.69, 0.059999)),
]
RATINGS_MD = Path(__file__).resolve().parents[4] / "shared" / "RATINGS.md"


@pytest.mark.parametrize(("rating", "rd", "expected"), VECTORS)
def test_vectors(rating: float, rd: float, expected: tuple[float, float, float]) -> None:
    new_rating, new_rd, new_sigma = paper_period(rating, rd)
    assert (round(new_rating, 2), round(new_rd, 2), round(new_sigma, 6)) == expected


@pytest.mark.skipif(not RATINGS_MD.exists(), reason=f"no {RATINGS_MD}")
def test_vectors_are_the_table_of_ratings_md() -> None:
    """The four rows pinned above are RATINGS.md's Glicko-2 table, digit for digit."""
    text = RATINGS_MD.read_text(encoding="utf-8")
    section = text[text.index("## Glicko-2") :]
    rows = re.findall(
        r"^\| (\d+)/(\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$", section, re.MULTILINE
    )
    printed = [
        (float(r), float(d), (float(new_r), float(new_rd), float(new_sigma)))
        for r, d, new_r, new_rd, new_sigma in rows
    ]
    assert printed == VECTORS


def _f_with_mu_squared(
    mu: float, sigma: float, v: float, delta: float, phi: float, tau: float
) -> float:
    """Step 5 as PyPI glicko2 2.1.0 does it: mu^2 in f (its bracket uses phi^2)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - mu**2 - v - ex) / (2 * (mu**2 + v + ex) ** 2) - (x - a) / tau**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > 1e-6:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def _scaled_inputs(rating: float, rd: float) -> tuple[float, float, float, float]:
    mu, phi = glicko2.to_scale(rating, rd)
    v_inverse = 0.0
    total = 0.0
    for (r, d), s in zip(OPPONENTS, RESULTS, strict=True):
        mu_j, phi_j = glicko2.to_scale(r, d)
        g = glicko2.g(phi_j)
        e = 1 / (1 + math.exp(-g * (mu - mu_j)))
        v_inverse += g * g * e * (1 - e)
        total += g * (s - e)
    v = 1 / v_inverse
    return mu, phi, v, v * total


@pytest.mark.parametrize(("rating", "rd"), [(1500.0, 200.0), (1800.0, 200.0)])
def test_the_vectors_catch_the_mu_squared_bug(rating: float, rd: float) -> None:
    """At 4-5 decimals (the paper's precision) the bug hides; at 6 it shows."""
    mu, phi, v, delta = _scaled_inputs(rating, rd)
    right = glicko2.new_volatility(phi, 0.06, v, delta, 0.5, 1e-6)
    wrong = _f_with_mu_squared(mu, 0.06, v, delta, phi, 0.5)
    assert round(right, 4) == round(wrong, 4)
    assert round(right, 6) != round(wrong, 6)
    assert right == paper_period(rating, rd)[2]


def _f(phi: float, sigma: float, v: float, delta: float, tau: float, x: float) -> float:
    a = math.log(sigma * sigma)
    ex = math.exp(x)
    return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2


@given(
    phi=st.floats(min_value=0.05, max_value=2.5),
    sigma=st.floats(min_value=0.01, max_value=0.2),
    v=st.floats(min_value=0.05, max_value=200.0),
    delta=st.floats(min_value=-8.0, max_value=8.0),
    tau=st.floats(min_value=0.3, max_value=1.2),
)
def test_volatility_is_a_root_of_f(
    phi: float, sigma: float, v: float, delta: float, tau: float
) -> None:
    """Both bracketing branches (delta^2 above and below phi^2 + v) end on a root of f.

    (For extreme inputs, e.g. a tiny RD and a huge surprise, f has three roots;
    the paper's bracket then picks one of them, and so do we.)
    """
    x = 2 * math.log(glicko2.new_volatility(phi, sigma, v, delta, tau, 1e-9))
    step = 1e-6
    assert _f(phi, sigma, v, delta, tau, x - step) * _f(phi, sigma, v, delta, tau, x + step) <= 0


def test_a_big_upset_takes_the_first_bracket_and_raises_volatility() -> None:
    _, phi, v, delta = _scaled_inputs(1500.0, 200.0)
    assert delta**2 < phi**2 + v  # the paper's example: second branch
    # Four wins over a 2400 by a well-known 1500: delta^2 > phi^2 + v, first branch.
    mu, phi = glicko2.to_scale(1500.0, 30.0)
    mu_j, phi_j = glicko2.to_scale(2400.0, 30.0)
    g = glicko2.g(phi_j)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (4 * g * g * e * (1 - e))
    delta = v * 4 * g * (1 - e)
    assert delta**2 > phi**2 + v
    rating, _, sigma = glicko2.rate(1500.0, 30.0, 0.06, [(2400.0, 30.0, 1.0)] * 4)
    assert rating > 1500 and sigma > 0.06
    assert sigma == pytest.approx(glicko2.new_volatility(phi, 0.06, v, delta, 0.5, 1e-6))


def test_a_period_without_games_only_grows_rd() -> None:
    rating, rd, sigma = glicko2.rate(1500.0, 200.0, 0.06, [])
    assert (rating, sigma) == (1500.0, 0.06)
    phi = 200.0 / glicko2.SCALE
    assert rd == pytest.approx(glicko2.SCALE * math.sqrt(phi**2 + 0.06**2))
    assert glicko2.grown_rd(200.0, 0.06, 1) == pytest.approx(rd)
    assert glicko2.grown_rd(200.0, 0.06, 0) == 200.0
    # n idle periods: phi^2 + n sigma^2, as n single steps.
    step = 200.0
    for _ in range(5):
        step = glicko2.grown_rd(step, 0.06, 1)
    assert glicko2.grown_rd(200.0, 0.06, 5) == pytest.approx(step)
    assert glicko2.grown_rd(340.0, 0.06, 500, max_rd=350.0) == 350.0
    assert glicko2.grown_rd(360.0, 0.06, 1, max_rd=350.0) == 360.0  # never shrinks


def test_scale_round_trip() -> None:
    mu, phi = glicko2.to_scale(1500.0, 200.0)
    assert mu == 0.0 and phi == pytest.approx(1.1513, abs=1e-4)
    rating, rd = glicko2.from_scale(*glicko2.to_scale(1700.0, 300.0))
    assert rating == pytest.approx(1700.0) and rd == pytest.approx(300.0)
    # The paper's step 3 values for the first opponent.
    assert glicko2.g(30.0 / glicko2.SCALE) == pytest.approx(0.9955, abs=1e-4)


@pytest.mark.parametrize("tau", [0.29, 1.21, 0.0])
def test_tau_out_of_range(tau: float) -> None:
    with pytest.raises(RatingError) as info:
        glicko2.rate(1500.0, 200.0, 0.06, [(1400.0, 30.0, 1.0)], tau=tau)
    assert info.value.code == "bad_tau"
