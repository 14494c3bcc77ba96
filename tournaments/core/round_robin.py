"""Round robin by Berger tables (FIDE C.05 Annex 1), full, double or truncated.

Players are numbered 1..n by seed (``types.initial_order``); an odd field gets
a dummy number n+1 and whoever meets the dummy has a bye.  For an even n the
Berger table is:

* round r: player n meets a = ((r-1)·n/2 mod (n-1)) + 1, player a has the
  first side (white) in odd rounds, player n in even rounds;
* every other pair of round r is (a+i, a-i) for i = 1..n/2-1, numbers taken
  cyclically in 1..n-1, the first of the two has the first side.

This reproduces the published tables (6 players, round 1: 1-6 2-5 3-4;
round 2: 6-4 5-3 1-2; ...).  Each pair meets once; each player has the first
side n/2 or n/2-1 times.  A double round robin repeats the table with sides
swapped; a truncated one keeps only the first k rounds.  ``Pairing.a`` is the
first side (white, or who is listed first: in nardy the opening roll decides
who moves first, so the side is bookkeeping the adapter may ignore).
"""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.core.errors import ConfigError
from tournaments.core.types import Entry, EntryId, Pairing, Round, SeedBy, initial_order


def berger_table(n: int) -> list[list[tuple[int, int]]]:
    """Rounds of (first side, second side) player numbers for n players (n+1 = dummy if n is odd)."""
    if n < 2:
        raise ConfigError("too_few_entries", "a round robin needs two players", players=n)
    m = n + (n % 2)
    half = m // 2
    rounds = []
    for r in range(1, m):
        a = ((r - 1) * half) % (m - 1) + 1
        pairs = [(a, m) if r % 2 else (m, a)]
        for i in range(1, half):
            x = (a + i - 1) % (m - 1) + 1
            y = (a - i - 1) % (m - 1) + 1
            pairs.append((x, y))
        rounds.append(pairs)
    return rounds


def round_robin_rounds(
    entries: Sequence[Entry],
    *,
    cycles: int = 1,
    rounds: int | None = None,
    seed_by: SeedBy = "seed",
    first_round: int = 1,
) -> list[Round]:
    """The schedule: ``cycles`` = 2 for a double round robin, ``rounds`` = k to truncate.

    Withdrawn entries are kept in the table (their matches become forfeits
    for the adapter to record); boards follow the table's order, the bye last.
    """
    players = initial_order(entries, seed_by)
    if cycles < 1:
        raise ConfigError("bad_setting", "cycles must be positive", cycles=cycles)
    n = len(players)
    table = berger_table(n)
    number: dict[int, EntryId] = {k: e.id for k, e in enumerate(players, start=1)}
    full: list[list[tuple[int, int]]] = []
    for c in range(cycles):
        full += [[(b, a) if c % 2 else (a, b) for a, b in rnd] for rnd in table]
    if rounds is not None:
        if rounds < 1:
            raise ConfigError("bad_setting", "a truncated round robin needs a round", rounds=rounds)
        full = full[:rounds]
    out = []
    for k, rnd in enumerate(full):
        pairings: list[Pairing] = []
        byes: list[EntryId] = []
        for a, b in rnd:
            if a in number and b in number:
                pairings.append(Pairing(number[a], number[b], len(pairings) + 1))
            else:
                byes.append(number[a] if a in number else number[b])
        out.append(Round(first_round + k, tuple(pairings), tuple(byes)))
    return out
