"""Double elimination: winners' bracket, losers' bracket, grand final with optional reset.

* **Winners' bracket** (section ``W``, ids ``W{round}-{k}``): a seeded
  single-elimination bracket (``elimination``), byes to the top seeds.
* **Losers' bracket** (section ``L``, ids ``L{round}-{k}``): every loser of
  the winners' bracket drops in (``consolation.fed_flight``): the first-round
  losers meet each other, then each later group of drops meets the
  losers'-bracket survivors (after a round that halves them when needed), laid
  against them by the placement rule of ``consolation`` (usually reversed, so
  a dropping player meets the other half of the draw first).
* **Grand final** (section ``GF``): the winners'-bracket champion (first
  seat) against the losers'-bracket champion (second seat), ``GF1``.  With
  ``grand_final_reset`` (the default) a second match ``GF2`` is played only
  if the losers'-bracket champion wins ``GF1`` (both then have one loss); if
  the winners'-bracket champion wins ``GF1`` he is champion and ``GF2`` is
  void.  Without the reset ``GF1`` decides.

Everything is one flight (``main``): a player is out after his second loss,
and ``Bracket.placements()`` ranks by how deep that loss was (2nd: the grand
final loser, 3rd: the losers'-bracket final loser, then 4th, 5-6, 7-8, ...).
"""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.core.bracket import Bracket, BracketMatch, Seat
from tournaments.core.consolation import fed_flight
from tournaments.core.elimination import elimination_matches, seeded_ids
from tournaments.core.types import Entry, EntryId, SeedBy


def double_elimination(
    entries: Sequence[Entry],
    *,
    grand_final_reset: bool = True,
    seed_by: SeedBy = "seed",
    order: Sequence[EntryId] | None = None,
) -> Bracket:
    ids = list(order) if order is not None else seeded_ids(entries, seed_by)
    winners = elimination_matches(ids, flight="main", section="W", prefix="W")
    rounds = max(m.round for m in winners)
    groups = [[Seat.loser_of(m.id) for m in winners if m.round == r] for r in range(1, rounds + 1)]
    losers, lb_champion = fed_flight(
        groups, winners, flight="main", section="L", prefix="L", min_players=1
    )
    wb_champion = Seat.winner_of(winners[-1].id)
    final = BracketMatch("GF1", "main", "GF", 1, 0, (wb_champion, lb_champion))
    matches = [*winners, *losers, final]
    if grand_final_reset:
        matches.append(
            BracketMatch("GF2", "main", "GF", 2, 0, (wb_champion, lb_champion), reset_of="GF1")
        )
    return Bracket(matches)
