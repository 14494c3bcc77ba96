"""The FIBS rating formula (RATINGS.md, "FIBS rating"), one match at a time.

    P_win(A beats B | N) = 1 / (1 + 10 ** (-(R_A - R_B) * sqrt(N) / 2000))
    q = 1 - P_win(winner beats loser | N)
    K(p) = max(1, 5 - exp_p / 100)      exp counted BEFORE the match
    winner: R += 4 K(w) sqrt(N) q       loser: R -= 4 K(l) sqrt(N) q
    then both: exp += N                 start: R = 1500, exp = 0

``match_update`` is the reference for one match; the pool loop
(``ratings.core.pool``) uses the same per-length constants and K values from
this module, so both give bit-for-bit the same floats.  Only rated matches
come here: a length of 0 (money session) is refused.
"""

from __future__ import annotations

import math

from ratings.core.errors import RatingError

START_RATING = 1500.0
START_EXPERIENCE = 0
SETTLED_EXPERIENCE = 400  # K(p) reaches 1 here and stays there


def check_length(length: int) -> int:
    """``length`` if it is a rateable match length (a whole number >= 1), else RatingError."""
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise RatingError(
            "unrated_length",
            "only matches to 1 point or more are rated "
            "(length 0 is a money session; byes and forfeits are not rated either)",
            length=length,
        )
    return length


def length_constants(length: int) -> tuple[float, float]:
    """``(sqrt(N) / 2000, 4 * sqrt(N))``: the two factors of N in the formula."""
    root = math.sqrt(check_length(length))
    return root / 2000.0, 4.0 * root


def k_factor(experience: int) -> float:
    """``max(1, 5 - experience / 100)``, experience counted before the match."""
    return max(1.0, 5.0 - experience / 100)


def win_probability(rating_a: float, rating_b: float, length: int) -> float:
    """P(A beats B) in a match to ``length`` points."""
    scale, _ = length_constants(length)
    odds: float = 10.0 ** (-(rating_a - rating_b) * scale)
    return 1.0 / (1.0 + odds)


def match_update(
    winner_rating: float,
    winner_experience: int,
    loser_rating: float,
    loser_experience: int,
    length: int,
) -> tuple[float, float]:
    """New ratings ``(winner, loser)`` after one rated match (experience: before it)."""
    scale, four_root = length_constants(length)
    # 4 sqrt(N) q with q = 1 - P_win(winner) = 1 / (1 + 10 ** ((R_w - R_l) sqrt(N) / 2000)).
    gain = four_root / (1.0 + 10.0 ** ((winner_rating - loser_rating) * scale))
    return (
        winner_rating + k_factor(winner_experience) * gain,
        loser_rating - k_factor(loser_experience) * gain,
    )
