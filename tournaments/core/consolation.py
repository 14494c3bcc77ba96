"""Main flight with consolation (plain or progressive) and a last-chance flight.

``main_with_consolation(entries, consolation_rounds=k, last_chance_rounds=j)``:

* the **main** flight is a single-elimination bracket (``elimination``);
* the losers of main rounds 1..k drop into the **consolation** flight.  With
  k = 1 (plain) the consolation is a knock-out of the first-round losers.
  With k > 1 (progressive) the losers of main round r enter the consolation
  at a later round, having had byes through its earlier rounds: the
  consolation's players are first reduced to as many as drop from the next
  main round, then each of them meets one of the new drops (the pattern of a
  double-elimination losers' bracket);
* the losers of consolation rounds 1..j drop in the same way into the
  **last-chance** flight (j = 0: none).

A flight fed by drops is built by ``fed_flight`` from the groups of seats
dropping in, in order of arrival.  **Placement rule for drops** (to avoid
repeat pairings): when a group of drops meets the players already in the
flight, the drops are laid against them in one of four orders - reversed,
as they come, halves swapped, halves swapped and reversed - and the first
order (in that list) that minimises the number of possible repeat pairings
is used.  A possible repeat is counted for every entry that could be in the
flight's seat *and* could already have met the dropping player (anyone who
could have played in any match on his way, in any flight).  The first
group pairs among itself in bracket order (losers of neighbouring matches
meet), which never repeats a pairing: such players have each met only their
own winner.  In the usual brackets the reversed order wins, so a dropping
player meets players from the other half of the draw.  Byes in the main
bracket become byes in the flights they would have fed.
"""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.core.bracket import Bracket, BracketMatch, Seat
from tournaments.core.elimination import elimination_matches, seeded_ids
from tournaments.core.errors import ConfigError
from tournaments.core.types import Entry, EntryId, SeedBy


class _Reach:
    """Who can be in a seat, and whom a match's players can have met by then."""

    def __init__(self, matches: Sequence[BracketMatch]) -> None:
        self.by_id: dict[str, BracketMatch] = {m.id: m for m in matches}
        self._in: dict[str, frozenset[EntryId]] = {}
        self._history: dict[str, frozenset[EntryId]] = {}

    def add(self, m: BracketMatch) -> None:
        self.by_id[m.id] = m

    def seat(self, seat: Seat) -> frozenset[EntryId]:
        if seat.kind == "entry" and seat.entry is not None:
            return frozenset({seat.entry})
        if seat.kind == "winner" and seat.match is not None:
            return self.in_match(seat.match)
        if seat.kind == "loser" and seat.match is not None:
            # A match against a seat that is always a bye never has a loser.
            if not all(self.seat(s) for s in self.by_id[seat.match].seats):
                return frozenset()
            return self.in_match(seat.match)
        return frozenset()

    def in_match(self, mid: str) -> frozenset[EntryId]:
        if mid not in self._in:
            a, b = self.by_id[mid].seats
            self._in[mid] = self.seat(a) | self.seat(b)
        return self._in[mid]

    def history(self, mid: str) -> frozenset[EntryId]:
        """Everyone who can have played in this match or in any match feeding it."""
        if mid not in self._history:
            out = set(self.in_match(mid))
            for s in self.by_id[mid].seats:
                if s.kind in ("winner", "loser") and s.match is not None:
                    out |= self.history(s.match)
            self._history[mid] = frozenset(out)
        return self._history[mid]

    def real(self, seat: Seat) -> bool:
        """Can a player (not a bye) ever sit here?"""
        return bool(self.seat(seat))

    def met(self, seat: Seat) -> frozenset[EntryId]:
        if seat.kind in ("winner", "loser") and seat.match is not None:
            return self.history(seat.match)
        return self.seat(seat)


def _orders(k: int) -> list[list[int]]:
    ident = list(range(k))
    if k < 2:
        return [ident]
    half = k // 2
    swapped = ident[half:] + ident[:half]
    return [ident[::-1], ident, swapped, swapped[::-1]]


def fed_flight(
    groups: Sequence[Sequence[Seat]],
    earlier: Sequence[BracketMatch],
    *,
    flight: str,
    section: str,
    prefix: str,
    min_players: int = 2,
) -> tuple[list[BracketMatch], Seat]:
    """Matches of a flight fed by groups of drops (in order of arrival), and its final seat.

    ``earlier``: the matches the drops come from (to count possible repeats).
    The final seat is the flight's champion: the winner of its last match (or
    the only seat, for a flight of one).
    """
    reach = _Reach(earlier)
    if sum(1 for group in groups for seat in group if reach.real(seat)) < min_players:
        raise ConfigError(
            "too_few_entries",
            f"the {flight} flight would have fewer than two players",
            flight=flight,
        )
    matches: list[BracketMatch] = []
    rnd = 0

    def add(a: Seat, b: Seat, k: int) -> Seat:
        mid = f"{prefix}{rnd}-{k + 1}"
        m = BracketMatch(mid, flight, section, rnd, k, (a, b))
        matches.append(m)
        reach.add(m)
        return Seat.winner_of(mid)

    def reduce(seats: list[Seat]) -> list[Seat]:
        nonlocal rnd
        rnd += 1
        return [add(seats[2 * k], seats[2 * k + 1], k) for k in range(len(seats) // 2)]

    def merge(pool: list[Seat], drops: list[Seat]) -> list[Seat]:
        nonlocal rnd
        rnd += 1
        met = [reach.met(d) for d in drops]
        there = [reach.seat(p) for p in pool]
        best: list[int] = []
        best_cost = -1
        for order in _orders(len(drops)):
            cost = sum(len(there[i] & met[order[i]]) for i in range(len(pool)))
            if best_cost < 0 or cost < best_cost:
                best, best_cost = order, cost
        return [add(pool[i], drops[best[i]], i) for i in range(len(pool))]

    pool: list[Seat] = []
    for group in groups:
        drops = list(group)
        if len(drops) & (len(drops) - 1):
            raise ConfigError("bad_setting", "drops come in powers of two", drops=len(drops))
        if not pool:
            pool = drops
            continue
        while len(pool) > len(drops):
            pool = reduce(pool)
        while len(drops) > len(pool):
            drops = reduce(drops)
        pool = merge(pool, drops)
    if not pool:
        raise ConfigError("too_few_entries", "a flight needs players")
    while len(pool) > 1:
        pool = reduce(pool)
    return matches, pool[0]


def main_with_consolation(
    entries: Sequence[Entry],
    *,
    consolation_rounds: int = 1,
    last_chance_rounds: int = 0,
    seed_by: SeedBy = "seed",
    order: Sequence[EntryId] | None = None,
) -> Bracket:
    """Main flight, consolation fed by main rounds 1..k, last chance fed by consolation rounds 1..j."""
    ids = list(order) if order is not None else seeded_ids(entries, seed_by)
    main = elimination_matches(ids, flight="main", section="main", prefix="M")
    main_rounds = max(m.round for m in main)
    if not 1 <= consolation_rounds < main_rounds:
        raise ConfigError(
            "bad_setting",
            "the consolation takes losers of main rounds 1..k, k below the number of main rounds",
            consolation_rounds=consolation_rounds,
            main_rounds=main_rounds,
        )
    groups = [
        [Seat.loser_of(m.id) for m in main if m.round == r]
        for r in range(1, consolation_rounds + 1)
    ]
    consolation, _ = fed_flight(
        groups, main, flight="consolation", section="consolation", prefix="C"
    )
    matches = main + consolation
    if last_chance_rounds:
        c_rounds = max(m.round for m in consolation)
        if not 1 <= last_chance_rounds <= max(1, c_rounds - 1):
            raise ConfigError(
                "bad_setting",
                "the last chance takes losers of consolation rounds 1..j",
                last_chance_rounds=last_chance_rounds,
                consolation_rounds=c_rounds,
            )
        lc_groups = [
            [Seat.loser_of(m.id) for m in consolation if m.round == r]
            for r in range(1, last_chance_rounds + 1)
        ]
        last_chance, _ = fed_flight(
            lc_groups, matches, flight="last_chance", section="last_chance", prefix="L"
        )
        matches += last_chance
    return Bracket(matches)
