"""Brackets as trees of matches with feeder seats, and their state.

A ``BracketMatch`` has two ``Seat``s; a seat is filled by a seeded entry, by
the winner or the loser of another match, or is a bye.  ``winner_to`` and
``loser_to`` point the other way (match id, seat index), so a UI can draw
the tree and an adapter can see where a result sends each player.  Flights
(``main``, ``consolation``, ``last_chance``) and sections (``W``, ``L``,
``GF`` in double elimination) are labels on the matches.

``Bracket`` holds the structure plus the recorded winners.  Byes resolve by
themselves: a player facing a bye advances without a result, a match of two
byes sends a bye on (its loser is a bye too, so a consolation seat fed by a
first-round bye is itself a bye).  A match with ``reset_of`` set is a grand
final reset: it is played only if the player in the second seat of the first
grand final (the losers' bracket champion) won it; otherwise it is *void* and
the first grand final's winner is the champion.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from tournaments.core.errors import BracketError, ConfigError
from tournaments.core.types import EntryId, MatchResult

SeatKind = Literal["entry", "winner", "loser", "bye"]
MatchStatus = Literal["pending", "ready", "decided", "bye", "void"]


class Vacant(enum.Enum):
    BYE = "bye"


BYE = Vacant.BYE
Occupant = EntryId | Vacant | None
"""An entry, a bye, or None while not yet known."""


@dataclass(frozen=True, slots=True)
class Seat:
    kind: SeatKind
    entry: EntryId | None = None
    seed: int | None = None
    match: str | None = None

    @classmethod
    def of_entry(cls, entry: EntryId, seed: int | None = None) -> Seat:
        return cls("entry", entry=entry, seed=seed)

    @classmethod
    def winner_of(cls, match: str) -> Seat:
        return cls("winner", match=match)

    @classmethod
    def loser_of(cls, match: str) -> Seat:
        return cls("loser", match=match)

    @classmethod
    def bye(cls) -> Seat:
        return cls("bye")


@dataclass(frozen=True, slots=True)
class BracketMatch:
    id: str
    flight: str
    section: str
    round: int
    """Round within the section (1-based), the column a UI draws it in."""
    index: int
    """0-based position within the round, top to bottom."""
    seats: tuple[Seat, Seat]
    reset_of: str | None = None
    winner_to: tuple[str, int] | None = None
    loser_to: tuple[str, int] | None = None


def link(matches: Sequence[BracketMatch]) -> list[BracketMatch]:
    """Fill ``winner_to``/``loser_to`` from the seats; checks every feeder exists once."""
    ids = {m.id for m in matches}
    if len(ids) != len(matches):
        raise ConfigError("bad_setting", "duplicate match id in a bracket")
    winner_to: dict[str, tuple[str, int]] = {}
    loser_to: dict[str, tuple[str, int]] = {}
    for m in matches:
        if m.reset_of is not None:
            continue
        for k, seat in enumerate(m.seats):
            if seat.kind in ("winner", "loser"):
                if seat.match not in ids:
                    raise ConfigError(
                        "bad_setting", "seat fed by an unknown match", match=seat.match
                    )
                target = winner_to if seat.kind == "winner" else loser_to
                if seat.match in target:
                    raise ConfigError(
                        "bad_setting", "a match result feeds two seats", match=seat.match
                    )
                target[seat.match] = (m.id, k)
    return [replace(m, winner_to=winner_to.get(m.id), loser_to=loser_to.get(m.id)) for m in matches]


class Bracket:
    """A bracket's structure and its recorded results."""

    def __init__(self, matches: Sequence[BracketMatch]) -> None:
        linked = link(matches)
        self.matches: dict[str, BracketMatch] = {m.id: m for m in linked}
        self._winners: dict[str, EntryId] = {}
        self._forfeits: set[str] = set()
        self._cache: dict[str, Occupant] = {}
        self.stage = self._stages()
        self.finals = self._finals()
        self.seeds: dict[EntryId, int] = {
            s.entry: s.seed
            for m in linked
            for s in m.seats
            if s.kind == "entry" and s.entry is not None and s.seed is not None
        }

    # -- structure --------------------------------------------------------

    def _stages(self) -> dict[str, int]:
        """Longest path to each match from the flight's first matches (same flight only)."""
        stage: dict[str, int] = {}
        for m in self.matches.values():  # matches are listed feeders first
            s = 1
            for seat in self._feeder_seats(m):
                assert seat.match is not None
                f = self.matches[seat.match]
                if f.flight == m.flight:
                    s = max(s, stage[f.id] + 1)
            stage[m.id] = s
        return stage

    def _feeder_seats(self, m: BracketMatch) -> list[Seat]:
        seats = [s for s in m.seats if s.kind in ("winner", "loser")]
        if m.reset_of is not None:
            seats.append(Seat.winner_of(m.reset_of))
        return seats

    def _finals(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for m in self.matches.values():
            goes_on = m.winner_to is not None and self.matches[m.winner_to[0]].flight == m.flight
            if goes_on:
                continue
            current = out.get(m.flight)
            if current is None or self.stage[m.id] >= self.stage[current]:
                out[m.flight] = m.id
        return out

    def flights(self) -> list[str]:
        return list(dict.fromkeys(m.flight for m in self.matches.values()))

    def match(self, match_id: str) -> BracketMatch:
        try:
            return self.matches[match_id]
        except KeyError:
            raise BracketError("unknown_match", "no such match", match=match_id) from None

    # -- state ------------------------------------------------------------

    def occupant(self, seat: Seat) -> Occupant:
        if seat.kind == "entry":
            return seat.entry
        if seat.kind == "bye":
            return BYE
        assert seat.match is not None
        return self.winner(seat.match) if seat.kind == "winner" else self.loser(seat.match)

    def players(self, match_id: str) -> tuple[Occupant, Occupant]:
        m = self.match(match_id)
        return self.occupant(m.seats[0]), self.occupant(m.seats[1])

    def is_void(self, match_id: str) -> bool:
        m = self.match(match_id)
        if m.reset_of is None:
            return False
        first = self.winner(m.reset_of)
        return first is not None and first == self.occupant(self.matches[m.reset_of].seats[0])

    def winner(self, match_id: str) -> Occupant:
        if match_id in self._cache:
            return self._cache[match_id]
        result: Occupant
        m = self.match(match_id)
        if match_id in self._winners:
            result = self._winners[match_id]
        elif m.reset_of is not None and self.winner(m.reset_of) is None:
            result = None
        elif self.is_void(match_id):
            result = self.winner(m.reset_of)  # type: ignore[arg-type]
        else:
            a, b = self.players(match_id)
            if a is BYE:
                result = b
            elif b is BYE:
                result = a
            else:
                result = None
        self._cache[match_id] = result
        return result

    def loser(self, match_id: str) -> Occupant:
        w = self.winner(match_id)
        if w is None:
            return None
        if w is BYE or self.is_void(match_id):
            return BYE
        a, b = self.players(match_id)
        return b if w == a else a

    def status(self, match_id: str) -> MatchStatus:
        if match_id in self._winners:
            return "decided"
        m = self.match(match_id)
        if m.reset_of is not None:
            if self.winner(m.reset_of) is None:
                return "pending"
            if self.is_void(match_id):
                return "void"
        a, b = self.players(match_id)
        if a is BYE or b is BYE:
            return "bye" if self.winner(match_id) is not None else "pending"
        if a is None or b is None:
            return "pending"
        return "ready"

    def ready(self) -> list[str]:
        """Matches whose two players are known and that await a result."""
        return [mid for mid in self.matches if self.status(mid) == "ready"]

    def is_complete(self) -> bool:
        return all(self.status(mid) in ("decided", "bye", "void") for mid in self.matches)

    def forfeited(self, match_id: str) -> bool:
        return match_id in self._forfeits

    # -- results ----------------------------------------------------------

    def record(
        self, match_id: str, winner: EntryId, *, forfeit: bool = False, replace: bool = False
    ) -> None:
        """Record a match's winner; the winner (and the loser) move on by themselves."""
        status = self.status(match_id)
        if status == "decided" and replace:
            for down in self.downstream(match_id):
                if down in self._winners:
                    raise BracketError(
                        "downstream_decided",
                        "a later match already has a result",
                        match=match_id,
                        later=down,
                    )
        elif status == "decided":
            raise BracketError("already_decided", "the match already has a result", match=match_id)
        elif status != "ready":
            raise BracketError(
                "match_not_ready", "the match's players are not both known", match=match_id
            )
        if winner not in self.players(match_id):
            raise BracketError(
                "not_in_match",
                "the winner is not a player of this match",
                match=match_id,
                entry=winner,
            )
        self._winners[match_id] = winner
        self._forfeits.discard(match_id)
        if forfeit:
            self._forfeits.add(match_id)
        self._cache.clear()

    def undo(self, match_id: str) -> None:
        for down in self.downstream(match_id):
            if down in self._winners:
                raise BracketError(
                    "downstream_decided",
                    "a later match already has a result",
                    match=match_id,
                    later=down,
                )
        self._winners.pop(match_id, None)
        self._forfeits.discard(match_id)
        self._cache.clear()

    def downstream(self, match_id: str) -> set[str]:
        """The matches a result of ``match_id`` reaches: those its winner or loser goes
        on to, a grand final's reset, and so on to the end."""
        out: set[str] = set()
        todo = [match_id]
        while todo:
            mid = todo.pop()
            for m in self.matches.values():
                if m.id in out:
                    continue
                if any(s.match == mid for s in m.seats) or m.reset_of == mid:
                    out.add(m.id)
                    todo.append(m.id)
        return out

    def apply(self, result: MatchResult) -> str:
        """Record a ``MatchResult`` on the ready match between its two players."""
        if result.b is None or result.winner is None:
            raise BracketError("no_such_pairing", "a bracket result needs two players and a winner")
        pair = {result.a, result.b}
        for mid in self.ready():
            if set(self.players(mid)) == pair:
                self.record(mid, result.winner, forfeit=result.forfeit)
                return mid
        raise BracketError(
            "no_such_pairing", "no ready match between these players", a=result.a, b=result.b
        )

    # -- outcome ----------------------------------------------------------

    def champion(self, flight: str = "main") -> EntryId | None:
        final = self.finals.get(flight)
        if final is None:
            raise BracketError("unknown_match", "no such flight", flight=flight)
        w = self.winner(final)
        return w if isinstance(w, int) else None

    def placements(self, flight: str = "main") -> list[tuple[str, list[EntryId]]]:
        """Places in a flight: the champion, then by how far each player got.

        A player's place comes from the last match he played in the flight
        (the deepest one, void matches aside): losing deeper ranks higher,
        losers at the same depth share a place ("5-8").  Players still in
        the running are left out until decided.
        """
        last: dict[EntryId, str] = {}
        for mid, m in self.matches.items():
            if m.flight != flight or self.is_void(mid):
                continue
            for p in self.players(mid):
                if isinstance(p, int) and (p not in last or self.stage[mid] >= self.stage[last[p]]):
                    last[p] = mid
        champion = self.champion(flight)
        by_stage: dict[int, list[EntryId]] = {}
        for p, mid in last.items():
            if p == champion:
                continue
            if self.winner(mid) is None or self.winner(mid) == p:
                continue
            by_stage.setdefault(self.stage[mid], []).append(p)
        out: list[tuple[str, list[EntryId]]] = []
        place = 1
        if champion is not None:
            out.append(("1", [champion]))
            place = 2
        for stage in sorted(by_stage, reverse=True):
            group = sorted(by_stage[stage], key=lambda p: (self.seeds.get(p, 1 << 30), p))
            label = str(place) if len(group) == 1 else f"{place}-{place + len(group) - 1}"
            out.append((label, group))
            place += len(group)
        return out
