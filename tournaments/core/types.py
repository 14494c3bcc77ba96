"""Plain data the tournament core works on: entries, match results, rounds.

Everything is a frozen dataclass over ints, strings and tuples, so an adapter
can build these from database rows and compare or hash them freely.

``EntryId`` is whatever integer identifies an entry in the caller's world
(the adapter uses the entry's primary key).  ``Entry.seed`` is a hand seed
(1 = best); ``Entry.rating`` is used when there is no hand seed.  The *tie
order* of entries everywhere in this package (pairing order inside a score
group, the order of shared places, who gets a bye among equals) is
``initial_order``: seed first, then rating (higher first), then id.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from tournaments.core.errors import ConfigError

EntryId = int
SeedBy = Literal["seed", "rating"]


@dataclass(frozen=True, slots=True)
class Entry:
    """A player's entry in one tournament (or flight)."""

    id: EntryId
    seed: int | None = None
    rating: float | None = None
    withdrawn: bool = False
    byes: int = 0
    """Byes had outside the results passed in (carried over); results' byes count on top."""
    name: str = ""


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The outcome of one match (or a bye) in a round.

    ``b is None`` is a bye for ``a`` (``winner`` is then ignored: whether a bye
    is a win is a setting of the event).  ``forfeit`` marks a match not played
    over the board: ``winner`` won by forfeit, or nobody did (``winner is
    None``: both forfeited, a loss for each).  ``points_a``/``points_b`` are
    the final match score (e.g. 9 and 4); ``error_rate_a``/``error_rate_b`` are
    optional analysis figures (the PR tie-break; lower is better), and
    ``decisions_a``/``decisions_b`` the decisions each was computed over (their
    weights in the event's PR; None: the match weighs 1).
    """

    round: int
    a: EntryId
    b: EntryId | None = None
    winner: EntryId | None = None
    points_a: int = 0
    points_b: int = 0
    forfeit: bool = False
    error_rate_a: float | None = None
    error_rate_b: float | None = None
    decisions_a: int | None = None
    decisions_b: int | None = None

    def __post_init__(self) -> None:
        if self.round < 1:
            raise ConfigError("bad_setting", "round numbers start at 1", round=self.round)
        if self.a == self.b:
            raise ConfigError("bad_setting", "a player cannot meet themselves", entry=self.a)
        if self.b is not None and self.winner not in (self.a, self.b, None):
            raise ConfigError(
                "bad_setting", "the winner must be one of the players", entry=self.winner
            )
        if self.b is not None and self.winner is None and not self.forfeit:
            raise ConfigError("bad_setting", "a played match needs a winner", a=self.a, b=self.b)

    @classmethod
    def bye_for(cls, round: int, player: EntryId) -> MatchResult:
        return cls(round, player)

    @classmethod
    def forfeit_win(cls, round: int, winner: EntryId, loser: EntryId) -> MatchResult:
        return cls(round, winner, loser, winner, forfeit=True)

    @property
    def bye(self) -> bool:
        return self.b is None

    @property
    def played(self) -> bool:
        """Played over the board (not a bye, not a forfeit)."""
        return self.b is not None and not self.forfeit

    @property
    def loser(self) -> EntryId | None:
        if self.b is None or self.winner is None:
            return None
        return self.b if self.winner == self.a else self.a

    def players(self) -> tuple[EntryId, ...]:
        return (self.a,) if self.b is None else (self.a, self.b)

    def opponent(self, player: EntryId) -> EntryId | None:
        if player == self.a:
            return self.b
        if player == self.b:
            return self.a
        raise ConfigError("unknown_entry", "player not in this match", entry=player)


@dataclass(frozen=True, slots=True)
class Pairing:
    """Two entries to play in a round; ``a`` is the higher-placed (or first-named) one.

    ``a_score``/``b_score`` are the scores the pairing was made on (Swiss), so
    a pairing across score groups (a floater) is visible: ``floated``.
    """

    a: EntryId
    b: EntryId
    board: int
    a_score: int | None = None
    b_score: int | None = None

    @property
    def floated(self) -> bool:
        return self.a_score is not None and self.a_score != self.b_score


@dataclass(frozen=True, slots=True)
class Round:
    """The pairings of one round, boards numbered from 1, and who has a bye."""

    number: int
    pairings: tuple[Pairing, ...]
    byes: tuple[EntryId, ...] = ()

    def entries(self) -> list[EntryId]:
        out: list[EntryId] = []
        for p in self.pairings:
            out += (p.a, p.b)
        return out + list(self.byes)


def entry_key(entry: Entry) -> tuple[bool, int, float, EntryId]:
    """Sort key of the tie order: hand seed, then rating (higher first), then id."""
    rating = entry.rating if entry.rating is not None else -math.inf
    return (entry.seed is None, entry.seed or 0, -rating, entry.id)


def rating_key(entry: Entry) -> tuple[float, bool, int, EntryId]:
    """Sort key for seeding by rating: rating (higher first), then hand seed, then id."""
    rating = entry.rating if entry.rating is not None else -math.inf
    return (-rating, entry.seed is None, entry.seed or 0, entry.id)


def check_entries(entries: Iterable[Entry]) -> None:
    seen: set[EntryId] = set()
    seeds: set[int] = set()
    for e in entries:
        if e.id in seen:
            raise ConfigError("duplicate_entry", "entry listed twice", entry=e.id)
        seen.add(e.id)
        if e.seed is not None:
            if e.seed in seeds:
                raise ConfigError("duplicate_seed", "two entries share a hand seed", seed=e.seed)
            seeds.add(e.seed)


def initial_order(entries: Sequence[Entry], by: SeedBy = "seed") -> list[Entry]:
    """Entries best first: by hand seed (then rating) or by rating (then hand seed)."""
    check_entries(entries)
    if by == "seed":
        return sorted(entries, key=entry_key)
    if by == "rating":
        return sorted(entries, key=rating_key)
    raise ConfigError("bad_setting", "seeding is by 'seed' or 'rating'", by=by)
