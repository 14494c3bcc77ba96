"""Standings: score (match wins), the organizer's ordered tie-breaks, places.

``compute_standings(entries, results, settings)`` ranks every entry:

1. by score (match wins; a bye is a win or not, ``bye_is_win``);
2. players still tied are split by the first tie-break of
   ``settings.tiebreaks``, each still-tied part by the next one, and so on
   (FIDE C.07 art. 4.2).  DE is computed on the tied group it is applied to,
   and *reapplied* to every still-tied subset of it until nothing changes,
   before the next tie-break is used;
3. players tied after the whole list share the place ("3-4"), or, with
   ``lot_seed`` set, are put in an order drawn by lot from that seed
   (``random.Random(lot_seed)`` shuffling each tied group in id order, so the
   draw is reproducible and published with the seed).

Each row carries the place, the score and every listed tie-break's value
(see ``tiebreaks`` for definitions and for unplayed rounds).  DE's value is
the player's mini-table points in the group DE was first applied to (None
when the player was not tied when DE came up).  Rows tied on a shared place
are listed in the entries' tie order (seed, rating, id).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tournaments.core.errors import ConfigError
from tournaments.core.tiebreaks import (
    LOWER_IS_BETTER,
    RoundRecord,
    TiebreakValue,
    check_codes,
    direct_encounter_split,
    player_rounds,
    scores_of,
    tiebreak_values,
)
from tournaments.core.types import Entry, EntryId, MatchResult, check_entries, entry_key

_WORST = float("inf")


@dataclass(frozen=True, slots=True)
class StandingsSettings:
    tiebreaks: tuple[str, ...] = ("BH-C1", "BH", "SB")
    bye_is_win: bool = True
    rounds: int | None = None
    """The event's number of rounds; default: the last round in the results."""
    lot_seed: int | None = None
    """None: remaining ties share the place; else they are broken by lot from this seed."""
    count_absences: bool = True

    def __post_init__(self) -> None:
        check_codes(self.tiebreaks)
        if len(set(self.tiebreaks)) != len(self.tiebreaks):
            raise ConfigError(
                "bad_setting", "a tie-break is listed twice", tiebreaks=self.tiebreaks
            )


@dataclass(frozen=True, slots=True)
class StandingRow:
    place: str
    """"3" or a shared place "3-4"."""
    rank: int
    """The first place of the range (3 for "3-4"): sorts and compares."""
    entry: EntryId
    score: int
    tiebreaks: Mapping[str, TiebreakValue] = field(hash=False)
    by_lot: bool = False


def compute_standings(
    entries: Sequence[Entry],
    results: Iterable[MatchResult],
    settings: StandingsSettings | None = None,
    *,
    last_round: Mapping[EntryId, int] | None = None,
) -> list[StandingRow]:
    """Rows best first.  ``last_round``: see ``tiebreaks.tiebreak_values``."""
    settings = settings or StandingsSettings()
    check_entries(entries)
    results = list(results)
    rounds = player_rounds(entries, results)
    score = scores_of(rounds, settings.bye_is_win)
    event_rounds = settings.rounds
    if event_rounds is None:
        event_rounds = max((r.round for r in results), default=0)
    values = tiebreak_values(
        entries,
        rounds,
        score,
        bye_is_win=settings.bye_is_win,
        event_rounds=event_rounds,
        last_round=last_round,
        count_absences=settings.count_absences,
    )
    return rank_entries(entries, score, values, rounds, settings)


def rank_entries(
    entries: Sequence[Entry],
    score: Mapping[EntryId, int],
    values: Mapping[EntryId, Mapping[str, TiebreakValue]],
    rounds: Mapping[EntryId, Sequence[RoundRecord]],
    settings: StandingsSettings,
) -> list[StandingRow]:
    order = {e.id: k for k, e in enumerate(sorted(entries, key=entry_key))}
    ids = sorted(score, key=lambda p: (-score[p], order[p]))
    codes = settings.tiebreaks
    de_value: dict[EntryId, int] = {}

    keys: dict[str, dict[EntryId, float]] = {}
    for code in codes:
        if code == "DE":
            continue
        sign = 1 if code in LOWER_IS_BETTER else -1
        col: dict[EntryId, float] = {}
        for p in ids:
            v = values[p][code]
            col[p] = _WORST if v is None else sign * v
        keys[code] = col

    def split(group: list[EntryId], level: int) -> list[list[EntryId]]:
        if len(group) == 1 or level == len(codes):
            return [group]
        code = codes[level]
        if code == "DE":
            parts = de_parts(group, top=True)
        else:
            col = keys[code]
            group = sorted(group, key=lambda p: (col[p], order[p]))
            parts = []
            last: float | None = None
            for p in group:
                k = col[p]
                if k != last:
                    parts.append([])
                    last = k
                parts[-1].append(p)
        out: list[list[EntryId]] = []
        for part in parts:
            out += split(part, level + 1)
        return out

    def de_parts(group: list[EntryId], top: bool) -> list[list[EntryId]]:
        parts, pts = direct_encounter_split(group, rounds)
        if top:
            de_value.update(pts)
        if len(parts) == 1:
            return parts
        out: list[list[EntryId]] = []
        for part in parts:
            out += de_parts(part, top=False) if len(part) > 1 else [part]
        return out

    tied: list[list[EntryId]] = []
    start = 0
    while start < len(ids):
        end = start
        while end < len(ids) and score[ids[end]] == score[ids[start]]:
            end += 1
        tied += split(ids[start:end], 0)
        start = end

    lot = random.Random(settings.lot_seed) if settings.lot_seed is not None else None
    rows: list[StandingRow] = []
    rank = 1
    for group in tied:
        by_lot = lot is not None and len(group) > 1
        if lot is not None and len(group) > 1:
            group = sorted(group)
            lot.shuffle(group)
        else:
            group = sorted(group, key=lambda p: order[p])
        for k, p in enumerate(group):
            if by_lot or len(group) == 1:
                place, first = str(rank + k), rank + k
            else:
                place, first = f"{rank}-{rank + len(group) - 1}", rank
            tb: dict[str, TiebreakValue] = {}
            for code in codes:
                tb[code] = de_value.get(p) if code == "DE" else values[p][code]
            rows.append(StandingRow(place, first, p, score[p], tb, by_lot))
        rank += len(group)
    return rows
