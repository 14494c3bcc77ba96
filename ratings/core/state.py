"""Plain data of a rating pool: settings, players' states, rated matches, history rows.

Nothing here knows Django: the ratings app's adapters load ORM rows into
these types and write the results back.

- ``RatedMatch``: one rated match (never a bye, a forfeit or a money session:
  the adapter filters those; the maths refuses length 0).  Matches are
  applied in strictly increasing ``(played_at, match_id)`` order.
- ``PlayerState``: a player's rating, experience (sum of rated match lengths),
  match count, RD and volatility (Glicko-2 only, None under FIBS), when they
  last played and, under Glicko-2, the last rating period they played in.
- ``PoolState``: the settings and every player who has a state; players
  missing from it have the settings' start values.  ``position`` is the
  ordering key of the last match applied, ``period`` the last Glicko-2 period.
- ``FibsRow`` / ``Glicko2Row``: history rows, one per player per match (FIBS)
  or per player per rating period (Glicko-2), with the values before and after.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Generic, Literal, NamedTuple, TypeVar

from ratings.core import fibs, glicko2
from ratings.core.errors import RatingError


class RatedMatch(NamedTuple):
    match_id: int
    played_at: datetime
    winner: int
    loser: int
    length: int
    # The Glicko-2 rating period (see ratings.core.periods); ignored by FIBS.
    period: int | None = None

    @property
    def key(self) -> tuple[datetime, int]:
        """The ordering key: matches are rated in (played_at, match id) order."""
        return self.played_at, self.match_id


@dataclass(frozen=True, slots=True)
class PlayerState:
    rating: float
    experience: int = 0
    matches: int = 0
    rd: float | None = None  # Glicko-2 only
    volatility: float | None = None  # Glicko-2 only
    last_played_at: datetime | None = None
    last_period: int | None = None  # Glicko-2 only: RD grows from here


@dataclass(frozen=True, slots=True)
class FibsSettings:
    """A FIBS pool.  Provisional: experience < ``provisional_experience`` (K still above 1)
    or fewer than ``provisional_matches`` rated matches (0: no match-count rule)."""

    start_rating: float = fibs.START_RATING
    start_experience: int = fibs.START_EXPERIENCE
    provisional_experience: int = fibs.SETTLED_EXPERIENCE
    provisional_matches: int = 0
    list_min_matches: int = 1

    def __post_init__(self) -> None:
        _check_finite("start_rating", self.start_rating)
        _check_count("start_experience", self.start_experience)
        _check_count("provisional_experience", self.provisional_experience)
        _check_count("provisional_matches", self.provisional_matches)
        _check_count("list_min_matches", self.list_min_matches)

    @property
    def system(self) -> Literal["fibs"]:
        return "fibs"

    def start_player(self) -> PlayerState:
        return PlayerState(rating=self.start_rating, experience=self.start_experience)

    def is_provisional(self, player: PlayerState, period: int | None = None) -> bool:
        return (
            player.experience < self.provisional_experience
            or player.matches < self.provisional_matches
        )


@dataclass(frozen=True, slots=True)
class Glicko2Settings:
    """A Glicko-2 pool.  Provisional: RD above ``provisional_rd`` (RD grown for idle
    periods up to the list's period).  ``max_rd`` caps the growth of RD over idle
    periods (None: no cap); by default a player never becomes less certain than a newcomer."""

    tau: float = glicko2.DEFAULT_TAU
    epsilon: float = glicko2.EPSILON
    start_rating: float = glicko2.START_RATING
    start_rd: float = glicko2.START_RD
    start_volatility: float = glicko2.START_VOLATILITY
    max_rd: float | None = glicko2.START_RD
    provisional_rd: float = 110.0
    list_min_matches: int = 1

    def __post_init__(self) -> None:
        glicko2.check_tau(self.tau)
        _check_finite("start_rating", self.start_rating)
        for name, value in (
            ("epsilon", self.epsilon),
            ("start_rd", self.start_rd),
            ("start_volatility", self.start_volatility),
            ("provisional_rd", self.provisional_rd),
            ("max_rd", self.start_rd if self.max_rd is None else self.max_rd),
        ):
            _check_finite(name, value)
            if value <= 0:
                raise RatingError("bad_setting", f"{name} must be positive", setting=name)
        _check_count("list_min_matches", self.list_min_matches)

    @property
    def system(self) -> Literal["glicko2"]:
        return "glicko2"

    def start_player(self) -> PlayerState:
        return PlayerState(
            rating=self.start_rating, rd=self.start_rd, volatility=self.start_volatility
        )

    def rd_at(self, player: PlayerState, period: int | None) -> float:
        """The player's RD at the end of ``period``, grown for the periods since they played."""
        rd = self.start_rd if player.rd is None else player.rd
        if period is None or player.last_period is None:
            return rd
        volatility = self.start_volatility if player.volatility is None else player.volatility
        return glicko2.grown_rd(rd, volatility, period - player.last_period, self.max_rd)

    def is_provisional(self, player: PlayerState, period: int | None = None) -> bool:
        return self.rd_at(player, period) > self.provisional_rd


Settings = FibsSettings | Glicko2Settings
S = TypeVar("S", FibsSettings, Glicko2Settings)


@dataclass(frozen=True, slots=True)
class PoolState(Generic[S]):
    settings: S
    players: Mapping[int, PlayerState] = field(default_factory=dict)
    position: tuple[datetime, int] | None = None  # key of the last match applied
    period: int | None = None  # Glicko-2: the last rating period applied

    def __post_init__(self) -> None:
        if not isinstance(self.players, MappingProxyType):
            object.__setattr__(self, "players", MappingProxyType(dict(self.players)))

    @property
    def system(self) -> Literal["fibs", "glicko2"]:
        return self.settings.system

    def player(self, player: int) -> PlayerState:
        """The player's state, or the start values for a player not seen yet."""
        state = self.players.get(player)
        return self.settings.start_player() if state is None else state


class FibsRow(NamedTuple):
    """One player's change from one FIBS-rated match."""

    player: int
    match_id: int
    played_at: datetime
    rating_before: float
    rating_after: float
    experience_before: int
    experience_after: int


class Glicko2Row(NamedTuple):
    """One player's change from one Glicko-2 rating period.

    ``match_id``/``played_at``: the player's last match in the period;
    ``matches``: how many matches the player played in it.  ``rd_before`` is
    the RD the period started from, already grown for the periods the player
    sat out since their previous row (so it can exceed that row's ``rd_after``).
    """

    player: int
    match_id: int
    played_at: datetime
    period: int
    matches: int
    rating_before: float
    rating_after: float
    rd_before: float
    rd_after: float
    volatility_before: float
    volatility_after: float
    experience_before: int
    experience_after: int


def _check_finite(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RatingError("bad_setting", f"{name} must be a finite number", setting=name)


def _check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RatingError("bad_setting", f"{name} must be a whole number >= 0", setting=name)
