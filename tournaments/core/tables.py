"""What a standings table shows beside the ranking: each player's match counts, and
the places of a bracket's flights.

``result_counts(results, bye_is_win)`` counts wins, losses, byes and forfeits
per entry.  ``bracket_places(bracket, seeds)`` lists every player of each
flight of a bracket: the champion, then the players still in the running (no
place yet, in seed order), then the eliminated by how far they got ("5-8").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tournaments.core.bracket import Bracket
from tournaments.core.types import EntryId, MatchResult

# The seed order of an entry without a seed: after every seeded one.
UNSEEDED = 1 << 30


def result_counts(results: Iterable[MatchResult], bye_is_win: bool) -> dict[EntryId, Counter[str]]:
    """``wins``, ``losses``, ``byes`` and ``forfeits`` of each entry with a result."""
    out: dict[EntryId, Counter[str]] = {}
    for r in results:
        if r.b is None:
            c = out.setdefault(r.a, Counter())
            c["byes"] += 1
            if bye_is_win:
                c["wins"] += 1
            continue
        for p in (r.a, r.b):
            c = out.setdefault(p, Counter())
            if r.forfeit:
                c["forfeits"] += 1
            if r.winner == p:
                c["wins"] += 1
            else:
                c["losses"] += 1
    return out


@dataclass(frozen=True, slots=True)
class BracketPlace:
    """A player's line in a flight's table: ``place`` is "" while still in the running;
    ``rank`` orders the lines (shared places share it)."""

    flight: str
    entry: EntryId
    place: str
    rank: int


def bracket_places(bracket: Bracket, seeds: Mapping[EntryId, int | None]) -> list[BracketPlace]:
    """Every player of each flight, in table order (see the module docstring);
    ``seeds`` orders the players still in the running."""
    out: list[BracketPlace] = []
    for flight in bracket.flights():
        players = {
            p
            for mid, m in bracket.matches.items()
            if m.flight == flight
            for p in bracket.players(mid)
            if isinstance(p, int)
        }
        placed = bracket.placements(flight)
        champion = bracket.champion(flight)
        eliminated = {p for _label, group in placed for p in group if p != champion}
        alive = sorted(
            players - eliminated - {champion}, key=lambda p: (seeds.get(p) or UNSEEDED, p)
        )
        rank = 1
        if champion is not None:
            out.append(BracketPlace(flight, champion, "1", 1))
            rank = 2
        out += [BracketPlace(flight, p, "", rank) for p in alive]
        start = rank + len(alive)
        for _label, group in placed:
            if champion is not None and group == [champion]:
                continue
            place = str(start) if len(group) == 1 else f"{start}-{start + len(group) - 1}"
            out += [BracketPlace(flight, p, place, start) for p in group]
            start += len(group)
    return out
