"""Standings rows as a snapshot stores them, built from the core's answers (a
ranked table, a bracket's places, ``core.result_counts``): shared by the formats."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from tournaments import core
from tournaments.formats import flights
from tournaments.models import Entry, EntryStatus

Counts = Mapping[int, Counter[str]]


def row(
    entry: Entry,
    *,
    place: str,
    rank: int,
    score: int,
    tiebreaks: Mapping[str, Any] | None = None,
    by_lot: bool = False,
    counts: Mapping[str, int] | None = None,
    flight: str = flights.MAIN,
    group: str = "",
) -> dict[str, Any]:
    counts = counts or {}
    return {
        "place": place,
        "rank": rank,
        "entry": entry.pk,
        "player": entry.player_id,
        "name": str(entry.player),
        "seed": entry.seed,
        "score": score,
        "tiebreaks": dict(tiebreaks or {}),
        "by_lot": by_lot,
        "wins": counts.get("wins", 0),
        "losses": counts.get("losses", 0),
        "byes": counts.get("byes", 0),
        "forfeits": counts.get("forfeits", 0),
        "withdrawn": entry.status == EntryStatus.WITHDRAWN,
        "late": entry.late,
        "flight": flight,
        "group": group,
    }


def table_rows(
    rows: Sequence[core.StandingRow],
    by_id: Mapping[int, Entry],
    counts: Counts,
    **extra: Any,
) -> list[dict[str, Any]]:
    return [
        row(
            by_id[r.entry],
            place=r.place,
            rank=r.rank,
            score=r.score,
            tiebreaks=r.tiebreaks,
            by_lot=r.by_lot,
            counts=counts.get(r.entry),
            **extra,
        )
        for r in rows
    ]


def bracket_rows(
    bracket: core.Bracket, by_id: Mapping[int, Entry], counts: Counts
) -> list[dict[str, Any]]:
    """Places by flight (``core.bracket_places``): the champion, the players still in
    the running (no place yet), then the eliminated by how far they got ("5-8")."""
    seeds = {pk: e.seed for pk, e in by_id.items()}
    return [
        row(
            by_id[p.entry],
            place=p.place,
            rank=p.rank,
            score=counts.get(p.entry, Counter())["wins"],
            counts=counts.get(p.entry),
            flight=p.flight,
        )
        for p in core.bracket_places(bracket, seeds)
    ]
