"""Qualification: the top places of one event become the entries of another.

``qualify(rows, places)`` takes standings rows (``standings``) best first and
returns new ``Entry`` objects seeded by place (seed 1 = the winner).
``qualify_many`` merges several sources (village championships into a
district final): all the winners first, in the order the sources are given,
then all the runners-up, and so on.

A shared place across the cut (places "8-9" when 8 qualify) is an error by
default (``on_tie="error"``: the organizer breaks it by lot or a play-off);
``on_tie="include"`` lets every tied player in, ``on_tie="order"`` takes
the rows in their listed order.  Withdrawn entries of the source (when its
entries are given) are skipped and the next place moves up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from tournaments.core.errors import QualificationError
from tournaments.core.standings import StandingRow
from tournaments.core.types import Entry, EntryId

OnTie = Literal["error", "include", "order"]


def _qualified_rows(
    rows: Sequence[StandingRow],
    places: int,
    source: Mapping[EntryId, Entry],
    on_tie: OnTie,
) -> list[StandingRow]:
    if places < 1:
        raise QualificationError("not_enough_places", "at least one place qualifies", places=places)
    eligible = [r for r in rows if not (r.entry in source and source[r.entry].withdrawn)]
    if len(eligible) < places:
        raise QualificationError(
            "not_enough_places",
            "fewer ranked players than places",
            places=places,
            ranked=len(eligible),
        )
    chosen = eligible[:places]
    if len(eligible) > places:
        last, first_out = eligible[places - 1], eligible[places]
        if last.place == first_out.place and not last.by_lot:
            if on_tie == "error":
                raise QualificationError(
                    "tie_at_cut",
                    "players share the place at the cut",
                    place=last.place,
                    places=places,
                )
            if on_tie == "include":
                chosen += [r for r in eligible[places:] if r.place == last.place]
    return chosen


def qualify(
    rows: Sequence[StandingRow],
    places: int,
    source_entries: Sequence[Entry] = (),
    *,
    on_tie: OnTie = "error",
    id_map: Mapping[EntryId, EntryId] | None = None,
) -> list[Entry]:
    """The qualifiers as entries of the next event, seeded 1..k by place.

    ``id_map`` translates the source's entry ids to the next event's (the
    adapter's business); ratings and names come from ``source_entries``.
    """
    return qualify_many([(rows, places)], source_entries, on_tie=on_tie, id_map=id_map)


def qualify_many(
    sources: Sequence[tuple[Sequence[StandingRow], int]],
    source_entries: Sequence[Entry] = (),
    *,
    on_tie: OnTie = "error",
    id_map: Mapping[EntryId, EntryId] | None = None,
) -> list[Entry]:
    """Qualifiers of several events, seeded by place: every winner, then every runner-up, ..."""
    by_id = {e.id: e for e in source_entries}
    lists = [_qualified_rows(rows, places, by_id, on_tie) for rows, places in sources]
    out: list[Entry] = []
    seen: set[EntryId] = set()
    depth = max((len(x) for x in lists), default=0)
    for k in range(depth):
        for chosen in lists:
            if k >= len(chosen):
                continue
            old = chosen[k].entry
            new = id_map.get(old, old) if id_map is not None else old
            if new in seen:
                raise QualificationError("duplicate_entry", "a player qualifies twice", entry=new)
            seen.add(new)
            src = by_id.get(old)
            out.append(
                Entry(
                    new,
                    seed=len(out) + 1,
                    rating=src.rating if src else None,
                    name=src.name if src else "",
                )
            )
    return out
