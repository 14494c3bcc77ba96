"""Rating lists: a pool's standings at a date, built from its state.

Build the state at the list's date first (``state_from_history`` over the
history rows up to that date; under Glicko-2, the rows of the periods up to
the list's period), then ``rating_list``.

- Ratings (and RD) are rounded to ``decimals`` (2 by default, as FIBS shows
  them); ranks come from the rounded ratings, so players showing the same
  rating share a rank ("1, 2, 2, 4"); within a tie, by player id.
- Only players with at least ``min_matches`` rated matches (the settings'
  ``list_min_matches``, 1 by default) are listed.
- ``provisional`` follows the settings (FIBS: experience under 400 or fewer
  than the set number of matches; Glicko-2: RD over 110 at the list's period).
- ``change``: the rating (rounded) minus the previous list's, None for a
  player not on the previous list; ``previous_rank`` likewise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date as Date
from typing import Any

from ratings.core.state import Glicko2Settings, PoolState


@dataclass(frozen=True, slots=True)
class ListEntry:
    rank: int
    player: int
    rating: float
    experience: int
    matches: int
    rd: float | None
    provisional: bool
    change: float | None = None
    previous_rank: int | None = None


@dataclass(frozen=True, slots=True)
class RatingList:
    date: Date
    entries: tuple[ListEntry, ...]
    period: int | None = None

    def entry(self, player: int) -> ListEntry | None:
        for entry in self.entries:
            if entry.player == player:
                return entry
        return None

    def ratings(self) -> dict[int, float]:
        return {entry.player: entry.rating for entry in self.entries}


def rating_list(
    state: PoolState[Any],
    *,
    date: Date,
    period: int | None = None,
    previous: RatingList | Mapping[int, float] | None = None,
    min_matches: int | None = None,
    decimals: int = 2,
) -> RatingList:
    """The list of ``state`` at ``date``.

    ``period`` (Glicko-2): the last rating period the list covers; RD is grown
    for the periods each player sat out up to it.  Default: the state's last period.
    ``previous``: the previous list, or its ratings by player, for ``change``.
    """
    settings = state.settings
    glicko = isinstance(settings, Glicko2Settings)
    if glicko and period is None:
        period = state.period
    if min_matches is None:
        min_matches = settings.list_min_matches
    previous_ranks: dict[int, int] = {}
    previous_ratings: dict[int, float] = {}
    if isinstance(previous, RatingList):
        previous_ranks = {entry.player: entry.rank for entry in previous.entries}
        previous_ratings = previous.ratings()
    elif previous is not None:
        previous_ratings = dict(previous)

    shown = []
    for player, player_state in state.players.items():
        if player_state.matches < min_matches:
            continue
        rating = round(player_state.rating, decimals)
        rd = round(settings.rd_at(player_state, period), decimals) if glicko else None
        shown.append((rating, player, player_state, rd))
    shown.sort(key=lambda item: (-item[0], item[1]))

    entries = []
    rank = 0
    previous_shown: float | None = None
    for position, (rating, player, player_state, rd) in enumerate(shown, start=1):
        if rating != previous_shown:
            rank = position
            previous_shown = rating
        before = previous_ratings.get(player)
        entries.append(
            ListEntry(
                rank=rank,
                player=player,
                rating=rating,
                experience=player_state.experience,
                matches=player_state.matches,
                rd=rd,
                provisional=settings.is_provisional(player_state, period),
                change=None
                if before is None
                else round(rating - round(before, decimals), decimals),
                previous_rank=previous_ranks.get(player),
            )
        )
    return RatingList(date=date, entries=tuple(entries), period=period)
