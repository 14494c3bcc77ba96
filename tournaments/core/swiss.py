"""Swiss pairings: a fixed number of rounds, or until N losses.

One round is paired as a **maximum-weight perfect matching** (``matching``)
over the active players (not withdrawn, not eliminated), plus one *bye
vertex* when their number is odd.  Edges join players who have not met over
the board (a forfeit is not a meeting); a rematch is never an edge, unless
``rematches="last_resort"`` and no pairing without one exists.  Edge weights
are integers built so that the matching optimises, strictly in this order:

1. everyone is paired (perfect matching; none: ``PairingError("no_valid_pairing")``);
2. with ``last_resort`` only: as few rematches as possible;
3. the bye goes to the lowest record among the players with the fewest byes
   (so nobody gets a second bye until every active player has had one);
4. score differences are small: the sum over pairs of (record distance)²,
   so players meet inside their score group, and an odd group floats one
   player to the nearest group (two floats of 1 are preferred to one of 2);
5. the tie order inside groups: a player meets the one *half a group below*
   (top half against bottom half, the Dutch habit: 1–5, 2–6, ... in a group
   of 8); a floater is the lowest-placed player who can float and meets the
   highest-placed player of the group below; among equals the bye goes to the
   lowest-placed player.

Players are ordered by record (score, then fewer losses), then by the tie
order of ``types.initial_order`` (hand seed or rating, then id), and the
result is a pure function of the input: the same entries and results always
give the same round.  The record distance between two players is the score
difference (fixed rounds) or score difference plus losses difference
("until N losses", where a bye that is not a win is neither).

Speed: for more than ``DENSE_LIMIT`` players the matching is first solved on
a sparse graph (each player's likely partners), then every left-out edge is
*priced* with the optimal duals (``PerfectMatching.slack``); edges with
negative slack are added and the matching solved again, until none is left.
The answer is therefore a maximum-weight matching of the full graph, found
with a small fraction of its edges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from tournaments.core.errors import ConfigError, PairingError
from tournaments.core.matching import PerfectMatching, max_weight_perfect_matching
from tournaments.core.types import (
    Entry,
    EntryId,
    MatchResult,
    Pairing,
    Round,
    SeedBy,
    check_entries,
    entry_key,
    rating_key,
)

RematchPolicy = Literal["never", "last_resort"]

DENSE_LIMIT = 64
"""Up to this many players the full graph is solved directly."""


@dataclass(frozen=True, slots=True)
class SwissSettings:
    """How a Swiss event runs.

    ``rounds``: a fixed number of rounds (with ``max_losses`` too: whichever ends first).
    ``max_losses``: "Swiss until N losses": a player is out after the N-th loss;
    the event ends when at most one player is left.
    """

    rounds: int | None = None
    max_losses: int | None = None
    bye_is_win: bool = True
    rematches: RematchPolicy = "never"
    seed_by: SeedBy = "seed"

    def __post_init__(self) -> None:
        if self.rounds is None and self.max_losses is None:
            raise ConfigError("bad_setting", "a Swiss needs a number of rounds or of losses")
        if self.rounds is not None and self.rounds < 1:
            raise ConfigError("bad_setting", "rounds must be positive", rounds=self.rounds)
        if self.max_losses is not None and self.max_losses < 1:
            raise ConfigError(
                "bad_setting", "max_losses must be positive", max_losses=self.max_losses
            )
        if self.rematches not in ("never", "last_resort"):
            raise ConfigError("bad_setting", "rematches is 'never' or 'last_resort'")


@dataclass(frozen=True, slots=True)
class SwissRecord:
    """A player's state before a round."""

    entry: EntryId
    score: int
    losses: int
    byes: int
    opponents: frozenset[EntryId]
    withdrawn: bool
    eliminated_in: int | None
    """The round of the N-th loss ("until N losses"), else None."""

    @property
    def active(self) -> bool:
        return not self.withdrawn and self.eliminated_in is None


def swiss_records(
    entries: Sequence[Entry],
    results: Iterable[MatchResult],
    settings: SwissSettings,
    before_round: int | None = None,
) -> dict[EntryId, SwissRecord]:
    """Each entry's score, losses, byes and opponents from the results before ``before_round``."""
    check_entries(entries)
    score = {e.id: 0 for e in entries}
    losses = dict.fromkeys(score, 0)
    byes = {e.id: e.byes for e in entries}
    met: dict[EntryId, set[EntryId]] = {e.id: set() for e in entries}
    out_in: dict[EntryId, int | None] = dict.fromkeys(score)
    ordered = sorted(
        (r for r in results if before_round is None or r.round < before_round),
        key=lambda r: r.round,
    )
    limit = settings.max_losses
    for r in ordered:
        for p in r.players():
            if p not in score:
                raise ConfigError("unknown_entry", "result for an unknown entry", entry=p)
        if r.b is None:
            byes[r.a] += 1
            if settings.bye_is_win:
                score[r.a] += 1
            continue
        if r.played:
            met[r.a].add(r.b)
            met[r.b].add(r.a)
        for p in (r.a, r.b):
            if r.winner == p:
                score[p] += 1
            else:
                losses[p] += 1
                if limit is not None and losses[p] == limit:
                    out_in[p] = r.round
    return {
        e.id: SwissRecord(
            e.id,
            score[e.id],
            losses[e.id],
            byes[e.id],
            frozenset(met[e.id]),
            e.withdrawn,
            out_in[e.id],
        )
        for e in entries
    }


def next_round_number(results: Iterable[MatchResult]) -> int:
    return max((r.round for r in results), default=0) + 1


def swiss_finished(
    entries: Sequence[Entry], results: Sequence[MatchResult], settings: SwissSettings
) -> bool:
    """True when no further round is to be paired."""
    nxt = next_round_number(results)
    if settings.rounds is not None and nxt > settings.rounds:
        return True
    records = swiss_records(entries, results, settings)
    active = sum(1 for r in records.values() if r.active)
    if settings.max_losses is not None:
        return active <= 1
    return active < 2


def pair_swiss_round(
    entries: Sequence[Entry],
    results: Sequence[MatchResult],
    settings: SwissSettings,
    round_number: int | None = None,
) -> Round:
    """Pair the next round (or ``round_number``, using only the results before it)."""
    number = next_round_number(results) if round_number is None else round_number
    if settings.rounds is not None and number > settings.rounds:
        raise PairingError("event_finished", "all rounds have been paired", rounds=settings.rounds)
    records = swiss_records(entries, results, settings, before_round=number)
    key = entry_key if settings.seed_by == "seed" else rating_key
    by_id = {e.id: e for e in entries}
    active = [records[e.id] for e in entries if records[e.id].active]
    losses_mode = settings.max_losses is not None
    if losses_mode and len(active) <= 1:
        raise PairingError("event_finished", "at most one player is left", round=number)
    if len(active) < 2:
        raise PairingError("nothing_to_pair", "fewer than two players to pair", round=number)
    active.sort(key=lambda r: (-r.score, r.losses if losses_mode else 0, key(by_id[r.entry])))
    return _pair(number, active, losses_mode, settings.rematches)


# ---------------------------------------------------------------------------
# The matching model


class _Model:
    """Vertices, groups and the weight of every possible edge of one round."""

    def __init__(self, players: list[SwissRecord], losses_mode: bool) -> None:
        self.players = players
        n = self.n = len(players)
        self.index = {p.entry: i for i, p in enumerate(players)}
        records = [(p.score, p.losses if losses_mode else 0) for p in players]
        group_records: list[tuple[int, int]] = []
        self.group: list[int] = []
        self.pos: list[int] = []
        for rec in records:
            if not group_records or group_records[-1] != rec:
                group_records.append(rec)
            self.group.append(len(group_records) - 1)
        self.members: list[list[int]] = [[] for _ in group_records]
        for i, g in enumerate(self.group):
            self.pos.append(len(self.members[g]))
            self.members[g].append(i)
        self.size = [len(m) for m in self.members]
        ng = len(group_records)
        self.dist2 = [
            [(abs(a[0] - b[0]) + abs(a[1] - b[1])) ** 2 for b in group_records]
            for a in group_records
        ]
        dmax2 = max(max(row) for row in self.dist2)
        self.P = (n + 1) ** 2
        pair_span = (n // 2 + 1) * (self.P * (dmax2 + 1) + n)
        self.Q = pair_span + 1
        self.R = self.Q * (ng + 1) + pair_span + 1
        self.base = self.P * (dmax2 + 1) + 2 * n + 1
        self.bye = n if n % 2 else -1
        self.vertices = n + (1 if n % 2 else 0)
        if self.bye >= 0:
            least = min(p.byes for p in players)
            self.bye_eligible = [i for i, p in enumerate(players) if p.byes == least]
        else:
            self.bye_eligible = []
        self.last_group = ng - 1
        self.first = [self.bye] if self.bye >= 0 else []
        code = self.vertices
        self.code = code
        self.opponent_codes: set[int] = set()
        for i, p in enumerate(players):
            for o in p.opponents:
                j = self.index.get(o)
                if j is not None and i < j:
                    self.opponent_codes.add(i * code + j)

    def weight(self, i: int, j: int) -> int:
        """Weight of the pair (i, j), i < j, both players."""
        gi, gj = self.group[i], self.group[j]
        if gi == gj:
            term = -abs(self.pos[j] - self.pos[i] - self.size[gi] // 2)
        else:
            term = -((self.size[gi] - 1 - self.pos[i]) + self.pos[j])
        return self.base - self.P * self.dist2[gi][gj] + term

    def bye_weight(self, i: int) -> int:
        # Exactly one bye edge is in any perfect matching, so only the bye
        # edges' differences matter: the best bye (lowest group, lowest
        # place) weighs base - 1, on the scale of the pair edges, which keeps
        # the greedy start of the matching close to the optimum.
        return self.base - self.Q * (self.last_group - self.group[i]) - (self.n - i)


def _pair(
    number: int, players: list[SwissRecord], losses_mode: bool, policy: RematchPolicy
) -> Round:
    model = _Model(players, losses_mode)
    mate = _solve(model, rematches=False)
    if mate is None and policy == "last_resort":
        mate = _solve(model, rematches=True)
    if mate is None:
        raise PairingError(
            "no_valid_pairing",
            "no pairing without a rematch (and with the bye rule) exists",
            round=number,
            players=[p.entry for p in players],
        )
    n = model.n
    pairs = sorted((i, mate[i]) for i in range(n) if i < mate[i] < n)
    pairings = tuple(
        Pairing(players[i].entry, players[j].entry, board, players[i].score, players[j].score)
        for board, (i, j) in enumerate(pairs, start=1)
    )
    byes = tuple(players[i].entry for i in range(n) if mate[i] == model.bye)
    return Round(number, pairings, byes)


def _solve(model: _Model, *, rematches: bool) -> list[int] | None:
    n = model.n
    if n <= DENSE_LIMIT:
        edges = _all_edges(model, rematches)
        result = max_weight_perfect_matching(model.vertices, edges, first=model.first)
        return None if result is None else result.mate
    for width in (4, 12, None):
        edges, known = _candidate_edges(model, width, rematches)
        for _ in range(100):
            result = max_weight_perfect_matching(model.vertices, edges, first=model.first)
            if result is None:
                break
            missing = _price(model, result, known)
            if not missing:
                return result.mate
            for i, j, w in missing:
                known.add(i * model.code + j)
                edges.append((i, j, w))
    return None


def _all_edges(model: _Model, rematches: bool) -> list[tuple[int, int, int]]:
    n, code = model.n, model.code
    edges = []
    for i in range(n):
        for j in range(i + 1, n):
            w = model.weight(i, j)
            if i * code + j in model.opponent_codes:
                if not rematches:
                    continue
                w -= model.R
            edges.append((i, j, w))
    edges += [(i, model.bye, model.bye_weight(i)) for i in model.bye_eligible]
    return edges


def _candidate_edges(
    model: _Model, width: int | None, rematches: bool
) -> tuple[list[tuple[int, int, int]], set[int]]:
    """A sparse graph likely to hold the optimum: each player's preferred partners."""
    if width is None:
        everything = _all_edges(model, rematches)
        return everything, {i * model.code + j for i, j, _ in everything}
    code = model.code
    known: set[int] = set()
    edges: list[tuple[int, int, int]] = []

    def add(i: int, j: int) -> None:
        if i > j:
            i, j = j, i
        c = i * code + j
        if c in known or c in model.opponent_codes:
            return
        known.add(c)
        edges.append((i, j, model.weight(i, j)))

    for g, members in enumerate(model.members):
        m = len(members)
        if m <= 2 * width + 2:
            for a in range(m):
                for b in range(a + 1, m):
                    add(members[a], members[b])
        else:
            h = m // 2
            for a in range(m):
                for d in range(max(1, h - width), h + width + 1):
                    if a + d < m:
                        add(members[a], members[a + d])
                for d in (1, 2):
                    if a + d < m:
                        add(members[a], members[a + d])
        # Floaters: the bottom of this group against the top of the next groups.
        for g2 in range(g + 1, min(g + 3, len(model.members))):
            lower = model.members[g2]
            for a in members[-width:]:
                for b in lower[:width]:
                    add(a, b)
    if rematches:
        for c in model.opponent_codes:
            i, j = divmod(c, code)
            known.add(c)
            edges.append((i, j, model.weight(i, j) - model.R))
    for i in model.bye_eligible:
        known.add(i * code + model.bye)
        edges.append((i, model.bye, model.bye_weight(i)))
    return edges, known


def _price(model: _Model, result: PerfectMatching, known: set[int]) -> list[tuple[int, int, int]]:
    """Left-out player pairs whose reduced cost is negative under the optimal duals.

    Whole blocks of pairs are cleared at once with lower bounds of the slack
    (the weight of a pair is structured: see ``_Model.weight``); only pairs
    whose bound fails are looked at one by one.
    """
    dual = result.dual
    top, bonus = result.top, result.top_bonus
    code = model.code
    opp = model.opponent_codes
    base, P = model.base, model.P
    members, size, pos = model.members, model.size, model.pos
    missing: list[tuple[int, int, int]] = []

    def check(i: int, j: int) -> None:
        c = i * code + j
        if c in known or c in opp:
            return
        w = model.weight(i, j)
        lower = dual[i] + dual[j] - 4 * w
        if lower >= 0 or (top[i] == top[j] and lower + bonus[i] >= 0):
            return
        if result.slack(i, j, w) < 0:
            missing.append((i, j, w))

    for ga, grp in enumerate(members):
        m = size[ga]
        h = m // 2
        gd = [dual[i] for i in grp]
        # Same group: weight = base - |pos_j - pos_i - h|.  f[t] is
        # min_j (dual_j + 4|pos_j - t|), a distance transform in two sweeps.
        span = m + h + 1
        f = gd + [0] * (h + 1)
        for t in range(1, span):
            if t >= m or f[t - 1] + 4 < f[t]:
                f[t] = f[t - 1] + 4
        for t in range(span - 2, -1, -1):
            if f[t + 1] + 4 < f[t]:
                f[t] = f[t + 1] + 4
        need = 4 * base
        for a, i in enumerate(grp):
            t = a + h
            thr = need - dual[i]
            if f[t] >= thr:
                continue
            for b in [b for b in range(a + 1, m) if gd[b] + 4 * abs(b - t) < thr]:
                check(i, grp[b])
        # Other groups: weight = base - P*d2 - (m - 1 - pos_i) - pos_j.
        for gb in range(ga + 1, len(members)):
            lower_grp = members[gb]
            lows = [dual[j] + 4 * pos[j] for j in lower_grp]
            low = min(lows)
            need = 4 * (base - P * model.dist2[ga][gb])
            for i in grp:
                thr = need - dual[i] - 4 * (m - 1 - pos[i])
                if low >= thr:
                    continue
                for b in [b for b, v in enumerate(lows) if v < thr]:
                    check(i, lower_grp[b])
    return missing
