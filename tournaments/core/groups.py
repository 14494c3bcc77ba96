"""Groups followed by a knock-out, and cups of several stages ranked by total wins.

**Groups.** ``snake_groups(entries, g)`` deals the seeded entries into g
groups in snake order (A B C D D C B A A B ...), so group strengths even out.
Each group plays a round robin (``group_rounds``) and is ranked by
``group_standings`` (the usual standings over the group's own matches).

**Knock-out from groups.** ``knockout_from_groups(tables, q)`` takes the top
q of every group into a seeded bracket:

* seeds come in bands by group place: every group winner first, then every
  runner-up, ...; inside a band, by score in the group (higher first), then
  by group order (A before B);
* the winners keep their band's seeds, so the standard bracket positions
  keep them apart (two group winners cannot meet before the round in which
  seeds 1..g can meet);
* each later band is laid on its seed numbers by an assignment (solved as a
  maximum-weight matching) that makes players of the same group meet as late
  as possible: first no same-group pair in the first round, then none in the
  second, ...; among equal layouts the band's own order is kept.

A shared place at the cut inside a group is an error
(``QualificationError("tie_at_cut")``), as in ``qualification``.

**Cups.** ``cup_standings(entries, stages)`` ranks a cup of several stages
(each a list of results with its own round numbers) by total match wins over
all stages; rounds are renumbered one after the other and a stage a player
did not enter is not counted as unplayed rounds (``count_absences=False``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from tournaments.core.bracket import Bracket
from tournaments.core.elimination import (
    bracket_size,
    elimination_matches,
    seed_positions,
    seeded_ids,
)
from tournaments.core.errors import ConfigError, QualificationError
from tournaments.core.matching import max_weight_perfect_matching
from tournaments.core.round_robin import round_robin_rounds
from tournaments.core.standings import StandingRow, StandingsSettings, compute_standings
from tournaments.core.types import Entry, EntryId, MatchResult, Round, SeedBy


def group_name(k: int) -> str:
    """A, B, ..., Z, AA, AB, ..."""
    name = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        name = chr(ord("A") + r) + name
    return name


@dataclass(frozen=True, slots=True)
class Group:
    name: str
    entries: tuple[EntryId, ...]


def snake_groups(entries: Sequence[Entry], groups: int, *, seed_by: SeedBy = "seed") -> list[Group]:
    order = seeded_ids(entries, seed_by)
    if groups < 1 or len(order) < 2 * groups:
        raise ConfigError(
            "bad_group_count",
            "every group needs at least two players",
            groups=groups,
            entries=len(order),
        )
    members: list[list[EntryId]] = [[] for _ in range(groups)]
    for k, pid in enumerate(order):
        row, col = divmod(k, groups)
        members[col if row % 2 == 0 else groups - 1 - col].append(pid)
    return [Group(group_name(k), tuple(m)) for k, m in enumerate(members)]


def _group_entries(entries: Sequence[Entry], group: Group) -> list[Entry]:
    by_id = {e.id: e for e in entries}
    # Seed inside the group by the order dealt (best first).
    return [replace(by_id[pid], seed=k) for k, pid in enumerate(group.entries, start=1)]


def group_rounds(entries: Sequence[Entry], group: Group, *, cycles: int = 1) -> list[Round]:
    """The group's round robin (Berger tables), seeded in the order dealt."""
    return round_robin_rounds(_group_entries(entries, group), cycles=cycles)


def group_standings(
    entries: Sequence[Entry],
    group: Group,
    results: Sequence[MatchResult],
    settings: StandingsSettings | None = None,
) -> list[StandingRow]:
    """Standings over the group's matches only (results of other groups are ignored)."""
    members = set(group.entries)
    own = [r for r in results if r.a in members and (r.b is None or r.b in members)]
    return compute_standings(
        _group_entries(entries, group),
        own,
        settings or StandingsSettings(tiebreaks=("DE", "SB", "PD")),
    )


def _meeting_round(x: int, y: int) -> int:
    """The round in which bracket slots x and y (0-based) would meet."""
    return (x ^ y).bit_length()


def knockout_from_groups(tables: Sequence[Sequence[StandingRow]], per_group: int) -> Bracket:
    """The top ``per_group`` of each group table (rows best first) into a seeded bracket."""
    if per_group < 1:
        raise ConfigError(
            "bad_setting", "at least one player per group qualifies", per_group=per_group
        )
    bands: list[list[tuple[int, StandingRow]]] = []
    for place in range(per_group):
        band = []
        for g, rows in enumerate(tables):
            if place < len(rows):
                if (
                    place + 1 < len(rows)
                    and place == per_group - 1
                    and rows[place].place == rows[place + 1].place
                    and not rows[place].by_lot
                ):
                    raise QualificationError(
                        "tie_at_cut", "players share the place at the cut", group=group_name(g)
                    )
                band.append((g, rows[place]))
        band.sort(key=lambda x: (-x[1].score, x[0]))
        bands.append(band)
    total = sum(len(b) for b in bands)
    if total < 2:
        raise ConfigError("too_few_entries", "a knock-out needs two qualifiers", qualifiers=total)
    size = bracket_size(total)
    rounds = size.bit_length() - 1
    slot_of_seed = {s: k for k, s in enumerate(seed_positions(size))}
    order: list[EntryId] = []
    group_slots: dict[int, list[int]] = {}
    for band in bands:
        first_seed = len(order) + 1
        seeds = list(range(first_seed, first_seed + len(band)))
        layout = _lay_band(band, seeds, slot_of_seed, group_slots, rounds, total)
        for k in layout:
            g, row = band[k]
            order.append(row.entry)
            group_slots.setdefault(g, []).append(slot_of_seed[len(order)])
    return Bracket(elimination_matches(order))


def _lay_band(
    band: Sequence[tuple[int, StandingRow]],
    seeds: Sequence[int],
    slot_of_seed: dict[int, int],
    group_slots: dict[int, list[int]],
    rounds: int,
    total: int,
) -> list[int]:
    """For each seed of the band (in order), the index of the band player who takes it."""
    m = len(band)
    if m == 1 or not group_slots:
        return list(range(m))
    base = total + 1
    edges = []
    for i, (g, _) in enumerate(band):
        for k, s in enumerate(seeds):
            slot = slot_of_seed[s]
            clash = sum(
                base ** (rounds - _meeting_round(slot, other)) for other in group_slots.get(g, [])
            )
            cost = clash * (m * m + 1) + abs(i - k)
            edges.append((i, m + k, -cost))
    result = max_weight_perfect_matching(2 * m, edges)
    assert result is not None  # a complete bipartite graph has one
    return [result.mate[m + k] for k in range(m)]


def cup_standings(
    entries: Sequence[Entry],
    stages: Sequence[Sequence[MatchResult]],
    settings: StandingsSettings | None = None,
) -> list[StandingRow]:
    """Standings of a cup: all stages' results, ranked by total wins."""
    merged: list[MatchResult] = []
    offset = 0
    for stage in stages:
        merged += [replace(r, round=r.round + offset) for r in stage]
        offset += max((r.round for r in stage), default=0)
    base = settings or StandingsSettings(tiebreaks=("WON", "PD", "PW"))
    return compute_standings(entries, merged, replace(base, rounds=offset, count_absences=False))
