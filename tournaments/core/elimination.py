"""Single elimination: seeding, standard bracket positions, byes to the top seeds.

The bracket size is the next power of two at or above the field.  Seeds are
placed in the standard order (built by doubling: [1, 2] -> [1, 4, 2, 3] ->
[1, 8, 4, 5, 2, 7, 3, 6] -> ..., every first-round match of a bracket of
size P being seed s against seed P+1-s), so seeds 1 and 2 can meet only in
the final, 1-4 only from the semi-finals, and so on.  The missing seeds
n+1..P are byes; since seed s meets seed P+1-s, the byes fall to seeds
1..P-n, the top seeds.

Seeding is by hand (``Entry.seed``, then rating) or by rating; an explicit
order of entry ids is accepted too (``seeded_ids``).  Match ids are
``{prefix}{round}-{k}`` (k from 1, top to bottom): "M1-1", "M1-2", ...
"""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.core.bracket import Bracket, BracketMatch, Seat
from tournaments.core.errors import ConfigError
from tournaments.core.types import Entry, EntryId, SeedBy, initial_order


def bracket_size(n: int) -> int:
    """The next power of two at or above n (at least 2)."""
    size = 2
    while size < n:
        size *= 2
    return size


def seed_positions(size: int) -> list[int]:
    """Seed numbers in bracket order (top to bottom) for a power-of-two size."""
    if size < 2 or size & (size - 1):
        raise ConfigError("bad_setting", "a bracket size is a power of two", size=size)
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [x for s in order for x in (s, total - s)]
    return order


def seeded_ids(entries: Sequence[Entry], seed_by: SeedBy = "seed") -> list[EntryId]:
    """Non-withdrawn entries' ids, best seed first."""
    return [e.id for e in initial_order(entries, seed_by) if not e.withdrawn]


def elimination_matches(
    seeded: Sequence[EntryId], *, flight: str = "main", section: str = "main", prefix: str = "M"
) -> list[BracketMatch]:
    """The matches of a single-elimination bracket for ids in seed order (feeders first)."""
    if len(set(seeded)) != len(seeded):
        raise ConfigError("duplicate_entry", "an entry is seeded twice")
    if len(seeded) < 2:
        raise ConfigError("too_few_entries", "a bracket needs two entries", entries=len(seeded))
    size = bracket_size(len(seeded))
    slots = seed_positions(size)
    seats = [
        Seat.of_entry(seeded[s - 1], seed=s) if s <= len(seeded) else Seat.bye() for s in slots
    ]
    matches: list[BracketMatch] = []
    current: list[str] = []
    for k in range(size // 2):
        mid = f"{prefix}1-{k + 1}"
        matches.append(BracketMatch(mid, flight, section, 1, k, (seats[2 * k], seats[2 * k + 1])))
        current.append(mid)
    rnd = 1
    while len(current) > 1:
        rnd += 1
        nxt = []
        for k in range(len(current) // 2):
            mid = f"{prefix}{rnd}-{k + 1}"
            feeders = (Seat.winner_of(current[2 * k]), Seat.winner_of(current[2 * k + 1]))
            matches.append(BracketMatch(mid, flight, section, rnd, k, feeders))
            nxt.append(mid)
        current = nxt
    return matches


def single_elimination(
    entries: Sequence[Entry],
    *,
    seed_by: SeedBy = "seed",
    order: Sequence[EntryId] | None = None,
) -> Bracket:
    """A single-elimination bracket; ``order`` (ids, best first) overrides the seeding."""
    ids = list(order) if order is not None else seeded_ids(entries, seed_by)
    return Bracket(elimination_matches(ids))


def first_round(bracket: Bracket, flight: str = "main") -> list[tuple[int | None, int | None]]:
    """First-round pairings as seed numbers (None for a bye), top to bottom: for tests and UIs."""
    out = []
    for m in bracket.matches.values():
        if m.flight == flight and m.round == 1 and m.section in ("main", "W"):
            a, b = m.seats
            out.append((a.seed, b.seed))
    return out
