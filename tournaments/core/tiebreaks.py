"""Tie-break values (FIDE C.07, 2024, adapted: the score is match wins).

Codes (TOURNAMENTS.md), higher is better unless noted:

    WIN    match wins: the score itself (byes count when a bye is a win)
    WON    matches won over the board (no byes, no forfeits) - an extra code
    DE     direct encounter: computed by ``standings`` on each tied group
    BH     Buchholz: sum of the opponents' scores
    BH-C1  Buchholz cut 1: without the least significant opponent score
    BH-M1  median Buchholz: without the least significant and the highest
    SB     Sonneborn-Berger: sum of the scores of the opponents beaten
    PS     progressive score: sum of the running score after each round
    KS     Koya: wins against opponents who finished on at least 50 %
    PD     points difference: own minus opponents' match points, played matches
    PW     points won: own match points, played matches
    ARO    average rating of the opponents met over the board (rounded, FIDE),
           None when no rated opponent was met
    PR     Performance Rating over the played matches that have one (lower is
           better), None when none has: weighted by each match's decisions when
           they are given (``MatchResult.decisions_a``/``_b``), as the field
           computes an event's PR (its errors over its decisions, not a mean
           of match PRs, which would make a 3-point match weigh like a
           13-point one); a match without a count weighs 1

Unplayed rounds (FIDE C.07 §16, as TOURNAMENTS.md reads it): a round a player
did not play over the board - a bye, a forfeit won or lost, a double forfeit,
or no result at all (absent, withdrawn) - counts in every "opponent's score"
tie-break (BH, BH-C1, BH-M1, SB, KS) as a round against a *dummy opponent
whose score is the player's own final score*, with the round's recorded
result (a bye is a win or not, by the setting).  For cuts, *voluntarily
unplayed rounds* (forfeit losses, double forfeits, absences) are the least
significant values and are cut first; an allocated bye and a forfeit win are
not voluntary.  Opponents' scores are their actual final scores (no
adjustment for their own unplayed rounds).  PD, PW, ARO and PR use played
matches only; points recorded for a forfeit are ignored.  PS counts every
round as recorded (an absence adds the unchanged running score).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from itertools import pairwise

from tournaments.core.errors import ConfigError
from tournaments.core.types import Entry, EntryId, MatchResult

TiebreakValue = int | float | None

TIEBREAK_CODES: tuple[str, ...] = (
    "WIN",
    "WON",
    "DE",
    "BH",
    "BH-C1",
    "BH-M1",
    "SB",
    "PS",
    "KS",
    "PD",
    "PW",
    "ARO",
    "PR",
)
LOWER_IS_BETTER: frozenset[str] = frozenset({"PR"})
UNAVAILABLE_CODES: frozenset[str] = frozenset()
"""Codes computed here but not offered to organizers (none today: PR became
available with the analysis of recorded matches).  A tournament that chose
one before keeps it."""


def offered_codes(kept: Iterable[str] = ()) -> tuple[str, ...]:
    """The codes an organizer may choose, in the usual order: the available ones,
    and of the unavailable ones only those already chosen (``kept``)."""
    kept = set(kept)
    return tuple(c for c in TIEBREAK_CODES if c not in UNAVAILABLE_CODES or c in kept)


# Kinds of a player's round.
PLAYED_WIN, PLAYED_LOSS, FORFEIT_WIN, FORFEIT_LOSS, BYE, DOUBLE_FORFEIT = range(6)


RoundRecord = tuple[int, EntryId | None, int, int, int, float | None, int]
"""One round from one player's side, a plain tuple for speed: (round, opponent or
None, kind, own match points, opponent's match points, own error rate, its weight)."""


def check_codes(codes: Iterable[str]) -> None:
    for code in codes:
        if code not in TIEBREAK_CODES:
            raise ConfigError("unknown_tiebreak", "unknown tie-break code", tiebreak=code)


def player_rounds(
    entries: Sequence[Entry], results: Iterable[MatchResult]
) -> dict[EntryId, list[RoundRecord]]:
    """Every entry's rounds, in round order (a round twice is an error)."""
    out: dict[EntryId, list[RoundRecord]] = {e.id: [] for e in entries}
    for r in results:
        a, b, rnd = r.a, r.b, r.round
        try:
            ra = out[a]
            if b is None:
                ra.append((rnd, None, BYE, 0, 0, None, 0))
                continue
            rb = out[b]
        except KeyError as exc:
            raise ConfigError(
                "unknown_entry", "result for an unknown entry", entry=exc.args[0]
            ) from None
        if r.forfeit:
            if r.winner is None:
                ra.append((rnd, b, DOUBLE_FORFEIT, 0, 0, None, 0))
                rb.append((rnd, a, DOUBLE_FORFEIT, 0, 0, None, 0))
            elif r.winner == a:
                ra.append((rnd, b, FORFEIT_WIN, 0, 0, None, 0))
                rb.append((rnd, a, FORFEIT_LOSS, 0, 0, None, 0))
            else:
                ra.append((rnd, b, FORFEIT_LOSS, 0, 0, None, 0))
                rb.append((rnd, a, FORFEIT_WIN, 0, 0, None, 0))
        else:
            kind_a, kind_b = (
                (PLAYED_WIN, PLAYED_LOSS) if r.winner == a else (PLAYED_LOSS, PLAYED_WIN)
            )
            weight_a = 1 if r.decisions_a is None else r.decisions_a
            weight_b = 1 if r.decisions_b is None else r.decisions_b
            ra.append((rnd, b, kind_a, r.points_a, r.points_b, r.error_rate_a, weight_a))
            rb.append((rnd, a, kind_b, r.points_b, r.points_a, r.error_rate_b, weight_b))
    for pid, recs in out.items():
        last = 0
        for rec in recs:
            if rec[0] <= last:
                recs.sort(key=lambda x: x[0])
                for x, y in pairwise(recs):
                    if x[0] == y[0]:
                        raise ConfigError(
                            "bad_setting",
                            "two results for one player in a round",
                            entry=pid,
                            round=x[0],
                        )
                break
            last = rec[0]
    return out


def scores_of(
    rounds: Mapping[EntryId, Sequence[RoundRecord]], bye_is_win: bool
) -> dict[EntryId, int]:
    win_kinds = (PLAYED_WIN, FORFEIT_WIN, BYE) if bye_is_win else (PLAYED_WIN, FORFEIT_WIN)
    return {pid: sum(1 for x in recs if x[2] in win_kinds) for pid, recs in rounds.items()}


def _round_half_up(x: float) -> int:
    return int(Decimal(repr(x)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def tiebreak_values(
    entries: Sequence[Entry],
    rounds: Mapping[EntryId, Sequence[RoundRecord]],
    score: Mapping[EntryId, int],
    *,
    bye_is_win: bool,
    event_rounds: int,
    last_round: Mapping[EntryId, int] | None = None,
    count_absences: bool = True,
) -> dict[EntryId, dict[str, TiebreakValue]]:
    """All tie-break values except DE, for every entry.

    ``event_rounds`` is the number of rounds of the event (KS's 50 % mark, and
    the rounds a player is expected in); ``last_round`` ends a player's event
    earlier (eliminated in "Swiss until N losses": later rounds are not his);
    ``count_absences=False`` ignores rounds without a result instead of
    counting them as voluntarily unplayed (cups whose stages not everyone enters).
    """
    rating = {e.id: e.rating for e in entries}
    bye_pts = 1 if bye_is_win else 0
    out: dict[EntryId, dict[str, TiebreakValue]] = {}
    last = last_round or {}
    voluntary = (FORFEIT_LOSS, DOUBLE_FORFEIT)
    for e in entries:
        pid = e.id
        s = score[pid]
        n_rounds = last.get(pid, event_rounds)
        vals: list[tuple[int, int]] = []
        bh = sb = ps = ks = pd = pw = won = run = 0
        aro_sum = 0.0
        aro_n = 0
        pr_sum = 0.0
        pr_weight = 0
        expected = 1
        for rnd, opp, kind, own, against, err, weight in rounds[pid]:
            if rnd > n_rounds:
                break
            if rnd > expected and count_absences:
                # Rounds without a result: absences.
                gap = rnd - expected
                vals += [(0, s)] * gap
                bh += s * gap
                ps += run * gap
            expected = rnd + 1
            if kind <= PLAYED_LOSS:
                value = score[opp]  # type: ignore[index]
                pd += own - against
                pw += own
                orating = rating[opp]  # type: ignore[index]
                if orating is not None:
                    aro_sum += orating
                    aro_n += 1
                if err is not None:
                    pr_sum += err * weight
                    pr_weight += weight
                pts = 1 if kind == PLAYED_WIN else 0
                won += pts
                vals.append((1, value))
            else:
                value = s
                pts = 1 if kind == FORFEIT_WIN else bye_pts if kind == BYE else 0
                vals.append((0 if kind in voluntary else 1, value))
            bh += value
            run += pts
            ps += run
            if pts:
                sb += value
                if 2 * value >= event_rounds:
                    ks += 1
        if count_absences and n_rounds >= expected:
            gap = n_rounds - expected + 1
            vals += [(0, s)] * gap
            bh += s * gap
            ps += run * gap
        if len(vals) >= 2:
            vals.sort()
            c1 = bh - vals[0][1]
            m1 = c1 - max(v for _, v in vals[1:])
        else:
            c1 = m1 = 0
        out[pid] = {
            "WIN": s,
            "WON": won,
            "BH": bh,
            "BH-C1": c1,
            "BH-M1": m1,
            "SB": sb,
            "PS": ps,
            "KS": ks,
            "PD": pd,
            "PW": pw,
            "ARO": _round_half_up(aro_sum / aro_n) if aro_n else None,
            "PR": pr_sum / pr_weight if pr_weight else None,
        }
    return out


def direct_encounter_points(
    group: Sequence[EntryId], rounds: Mapping[EntryId, Sequence[RoundRecord]]
) -> tuple[dict[EntryId, int], dict[EntryId, int]]:
    """Mini-table of the group: wins over the board against group members, and
    for each player the number of group members not met over the board."""
    members = set(group)
    pts: dict[EntryId, int] = {}
    unmet: dict[EntryId, int] = {}
    for p in group:
        met: set[EntryId | None] = set()
        won = 0
        for _, opp, kind, _, _, _, _ in rounds[p]:
            if kind <= PLAYED_LOSS and opp in members:
                met.add(opp)
                if kind == PLAYED_WIN:
                    won += 1
        pts[p] = won
        unmet[p] = len(members) - 1 - len(met)
    return pts, unmet


def direct_encounter_split(
    group: Sequence[EntryId], rounds: Mapping[EntryId, Sequence[RoundRecord]]
) -> tuple[list[list[EntryId]], dict[EntryId, int]]:
    """One application of DE to a tied group: ordered parts, and the mini-table points.

    If every two members met over the board, the group is split by mini-table
    points.  If not, only a player whose points exceed what any other member
    could reach by winning all his missing encounters is separated (placed
    first); otherwise the group stays tied.  (FIDE C.07 art. 6, as adapted.)
    """
    pts, unmet = direct_encounter_points(group, rounds)
    if all(v == 0 for v in unmet.values()):
        levels = sorted({pts[p] for p in group}, reverse=True)
        return [[p for p in group if pts[p] == lv] for lv in levels], pts
    best = max(group, key=lambda p: pts[p])
    if all(pts[best] > pts[q] + unmet[q] for q in group if q != best):
        return [[best], [p for p in group if p != best]], pts
    return [list(group)], pts
