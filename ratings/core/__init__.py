"""The rating maths of Zary, in plain Python over plain data (no Django, no database).

- ``fibs``: the FIBS formula (win probability, K, one match's update);
- ``glicko2``: Glicko-2, steps 1-8 of Glickman's 2013 example;
- ``state``: settings, players' and the pool's states, rated matches, history rows;
- ``pool``: recomputation from scratch or from a checkpoint read from history rows;
- ``lists``: rating lists at a date;
- ``periods``: Glicko-2 rating periods as whole numbers.

The ratings app's adapters load ORM rows into these types and write the
results back; tests/ratings/core tests all of it without a database.
"""

from __future__ import annotations

from ratings.core.errors import RatingError
from ratings.core.lists import ListEntry, RatingList, rating_list
from ratings.core.pool import (
    apply_match,
    apply_period,
    empty_state,
    recompute,
    recompute_from,
    state_from_history,
)
from ratings.core.state import (
    FibsRow,
    FibsSettings,
    Glicko2Row,
    Glicko2Settings,
    PlayerState,
    PoolState,
    RatedMatch,
    Settings,
)

__all__ = [
    "FibsRow",
    "FibsSettings",
    "Glicko2Row",
    "Glicko2Settings",
    "ListEntry",
    "PlayerState",
    "PoolState",
    "RatedMatch",
    "RatingError",
    "RatingList",
    "Settings",
    "apply_match",
    "apply_period",
    "empty_state",
    "rating_list",
    "recompute",
    "recompute_from",
    "state_from_history",
]
