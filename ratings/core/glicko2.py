"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013), steps 1-8.

Implemented directly from the paper (not the PyPI ``glicko2`` package, whose
volatility step uses mu squared where the paper has phi squared).  A rated
match counts as one game scored 1 (winner) / 0 (loser), whatever its length.

Scale: mu = (r - 1500) / 173.7178, phi = RD / 173.7178 (step 2), and back in
step 8.  A player who plays nothing in a rating period only has RD grow,
phi* = sqrt(phi^2 + sigma^2) per idle period (``grown_rd``).

``rate`` is the reference for one player and one period; the pool
(``ratings.core.pool``) calls the same ``scaled_update`` on the same scaled
values, so both give bit-for-bit the same floats.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ratings.core.errors import RatingError

SCALE = 173.7178
CENTRE = 1500.0
DEFAULT_TAU = 0.5
TAU_RANGE = (0.3, 1.2)
EPSILON = 1e-6
START_RATING = 1500.0
START_RD = 350.0
START_VOLATILITY = 0.06

_PI_SQUARED = math.pi**2


def check_tau(tau: float) -> float:
    low, high = TAU_RANGE
    if not low <= tau <= high:
        raise RatingError("bad_tau", "Glicko-2 tau must be between 0.3 and 1.2", tau=tau)
    return tau


def to_scale(rating: float, rd: float) -> tuple[float, float]:
    """Step 2: (r, RD) to (mu, phi)."""
    return (rating - CENTRE) / SCALE, rd / SCALE


def from_scale(mu: float, phi: float) -> tuple[float, float]:
    """Step 8: (mu, phi) to (r, RD)."""
    return SCALE * mu + CENTRE, SCALE * phi


def g(phi: float) -> float:
    """Step 3: g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / _PI_SQUARED)


def new_volatility(
    phi: float, sigma: float, v: float, delta: float, tau: float, epsilon: float
) -> float:
    """Step 5: the Illinois iteration for sigma' (the 2013 paper's version)."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    delta2 = delta * delta
    tau2 = tau * tau

    def f(x: float) -> float:
        ex = math.exp(x)
        denominator = phi2 + v + ex
        return ex * (delta2 - phi2 - v - ex) / (2.0 * denominator * denominator) - (x - a) / tau2

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a = f(big_a)
    f_b = f(big_b)
    while abs(big_b - big_a) > epsilon:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def scaled_update(
    mu: float,
    phi: float,
    sigma: float,
    games: Sequence[tuple[float, float, float]],
    tau: float,
    epsilon: float,
) -> tuple[float, float, float]:
    """Steps 3-7 on the Glicko-2 scale: ``games`` are (mu_j, g(phi_j), score) in play order.

    Returns (mu', phi', sigma').  With no games only phi grows (one idle period).
    """
    if not games:
        return mu, math.sqrt(phi * phi + sigma * sigma), sigma
    v_inverse = 0.0
    score_sum = 0.0
    exp = math.exp
    for mu_j, g_j, score in games:
        expected = 1.0 / (1.0 + exp(-g_j * (mu - mu_j)))
        v_inverse += g_j * g_j * expected * (1.0 - expected)
        score_sum += g_j * (score - expected)
    v = 1.0 / v_inverse
    delta = v * score_sum
    sigma_new = new_volatility(phi, sigma, v, delta, tau, epsilon)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    return mu + phi_new * phi_new * score_sum, phi_new, sigma_new


def rate(
    rating: float,
    rd: float,
    volatility: float,
    games: Sequence[tuple[float, float, float]],
    *,
    tau: float = DEFAULT_TAU,
    epsilon: float = EPSILON,
) -> tuple[float, float, float]:
    """One player's (r, RD, sigma) after one rating period.

    ``games``: (opponent r, opponent RD, score 1/0) against the opponents'
    values at the start of the period.  No games: only RD grows.
    """
    check_tau(tau)
    mu, phi = to_scale(rating, rd)
    scaled = [(m, g(p), float(s)) for m, p, s in (_scaled_game(*game) for game in games)]
    mu_new, phi_new, sigma_new = scaled_update(mu, phi, volatility, scaled, tau, epsilon)
    rating_new, rd_new = from_scale(mu_new, phi_new)
    return rating_new, rd_new, sigma_new


def _scaled_game(rating: float, rd: float, score: float) -> tuple[float, float, float]:
    mu, phi = to_scale(rating, rd)
    return mu, phi, score


def grown_rd(rd: float, volatility: float, periods: int, max_rd: float | None = None) -> float:
    """RD after ``periods`` rating periods without a game: phi = sqrt(phi^2 + n sigma^2).

    Capped at ``max_rd`` when given (a player is never less certain than a newcomer).
    """
    if periods <= 0:
        return rd
    phi = rd / SCALE
    grown = SCALE * math.sqrt(phi * phi + periods * volatility * volatility)
    if max_rd is not None and grown > max_rd:
        return max(rd, max_rd)
    return grown
