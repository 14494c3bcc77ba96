"""Errors, marks and PR as backgammon players and their programs define them.

All equities are the mover's (the doubler's for cube actions), normalised to
the current cube (a passed double = +1.0); an error is the equity lost
against the best action of the same evaluation, never negative.

- Checker play: best candidate - the played one.
- Cube decision of the player on roll (ND no double, DT double/take, DP
  double/pass): the best action is worth ``max(ND, min(DT, DP))``; the error is
  that minus ``min(DT, DP)`` after a double, minus ND otherwise.
- Take/pass of the doubled player: (DT if taken, else DP) - ``min(DT, DP)``:
  the doubled player wants the doubler's equity low.
- PR (Performance Rating) = 500 x the sum of errors / the number of counted
  decisions: about 2-5 is world class, 5-8 expert, 8-12 advanced, 12-18
  intermediate, above 18 beginner.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal

from analysis.core.model import CubeEquities

# Marks per decision: GNU Backgammon's default thresholds ("doubtful",
# "bad", "very bad"), which players and servers quote.
DOUBTFUL: Final = 0.040
ERROR: Final = 0.080
BLUNDER: Final = 0.160

PR_SCALE: Final = 500.0

# A cube decision is trivial, and not counted unless the player erred by at
# least TRIVIAL_SLACK or doubled, when double and no double are worth the same
# (within TRIVIAL_SLACK), when no double is more than FAR_FROM_DOUBLE above
# DT or DP (too good, or nowhere near a double), or when both ND and DT are
# below LOST (a lost game where the cube changes nothing).
TRIVIAL_SLACK: Final = 0.001
FAR_FROM_DOUBLE: Final = 0.2
LOST: Final = -0.9

Mark = Literal["", "doubtful", "error", "blunder"]


def mark(error: float) -> Mark:
    """The mark players put on a decision that lost ``error``."""
    if error >= BLUNDER:
        return "blunder"
    if error >= ERROR:
        return "error"
    if error >= DOUBTFUL:
        return "doubtful"
    return ""


def pr(errors: Iterable[float]) -> float | None:
    """PR of these decisions' errors; None when there is no decision."""
    total = 0.0
    count = 0
    for error in errors:
        total += error
        count += 1
    return PR_SCALE * total / count if count else None


def best_cube_equity(cube: CubeEquities) -> float:
    return max(cube.no_double, min(cube.double_take, cube.double_pass))


def best_cube_action(cube: CubeEquities) -> Literal["no_double", "double_take", "double_pass"]:
    """The right action: the opponent answers a double with the answer worse for the doubler."""
    doubled = min(cube.double_take, cube.double_pass)
    if cube.no_double >= doubled:
        return "no_double"
    return "double_take" if cube.double_take <= cube.double_pass else "double_pass"


def cube_error(cube: CubeEquities, doubled: bool) -> float:
    """The equity the player on roll lost by doubling (or not)."""
    chosen = min(cube.double_take, cube.double_pass) if doubled else cube.no_double
    return max(0.0, best_cube_equity(cube) - chosen)


def cube_counts(cube: CubeEquities, doubled: bool) -> bool:
    """Whether a cube decision enters PR (trivial ones do not, unless misplayed)."""
    if doubled or cube_error(cube, doubled) >= TRIVIAL_SLACK:
        return True
    nd, dt, dp = cube.no_double, cube.double_take, cube.double_pass
    trivial = (
        abs(nd - dt) < TRIVIAL_SLACK
        or nd - dt > FAR_FROM_DOUBLE
        or nd - dp > FAR_FROM_DOUBLE
        or (nd < LOST and dt < LOST)
    )
    return not trivial


def take_error(cube: CubeEquities, took: bool) -> float:
    """The equity the doubled player lost by taking (or passing)."""
    chosen = cube.double_take if took else cube.double_pass
    return max(0.0, chosen - min(cube.double_take, cube.double_pass))


def take_counts(cube: CubeEquities) -> bool:
    """A take/pass enters PR when taking and passing differ at all."""
    return abs(cube.double_take - cube.double_pass) >= TRIVIAL_SLACK
