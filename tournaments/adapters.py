"""The one adapter between tournament rows and the pure core (``tournaments.core``).

Rows become the core's plain types here, and nowhere else:

* an ``Entry`` row is a ``core.Entry`` with the same id (seed, rating, withdrawn);
* a decided ``Pairing`` is a ``core.MatchResult`` numbered with its round:
  a bye (no second entry), a forfeit (``forfeit_winner`` set, or the match
  was won by forfeit), a double forfeit (``BOTH_FORFEITED``, while its match,
  if any, stays cancelled) or the confirmed result of its ``games.Match`` (the
  official score, never a pending report), with each player's PR and its
  decisions from the match's analysis when it is done (the PR tie-break);
* a bracket is rebuilt from the draw (entries by seed, fixed when the
  tournament started) and the recorded results are replayed on it in the
  order their pairings were made (``Pairing.slot`` is the core's match id),
  so the database holds the whole state and the core answers every question.

Nothing here depends on the format: which core functions a format calls, and
with which of these rows, is its module's (``tournaments.formats``); the names
of flights are ``tournaments.formats.flights``'.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import QuerySet

from analysis.models import AnalysisState, MatchAnalysis
from games.models import Match, MatchState, ResultStatus
from tournaments import core
from tournaments.models import (
    BOTH_FORFEITED,
    Entry,
    EntryStatus,
    Pairing,
    Tournament,
)

logger = logging.getLogger(__name__)

# --- Entries


def core_entry(entry: Entry, *, withdrawn: bool | None = None) -> core.Entry:
    return core.Entry(
        entry.pk,
        seed=entry.seed,
        rating=entry.rating,
        withdrawn=(entry.status == EntryStatus.WITHDRAWN) if withdrawn is None else withdrawn,
        name=str(entry.player),
    )


def entry_rows(tournament: Tournament) -> list[Entry]:
    return list(
        Entry.objects.filter(tournament=tournament).select_related("player").order_by("seed", "id")
    )


def core_entries(entries: Iterable[Entry]) -> list[core.Entry]:
    return [core_entry(e) for e in entries]


def drawn_entries(entries: Iterable[Entry]) -> list[core.Entry]:
    """The entries of the draw (seeded at the start), best seed first, none withdrawn:
    a draw keeps its shape when a player withdraws later."""
    drawn = sorted((e for e in entries if e.seed is not None), key=lambda e: (e.seed, e.pk))
    return [core_entry(e, withdrawn=False) for e in drawn]


# --- Results


def pairing_rows(tournament: Tournament, flight: str | None = None) -> QuerySet[Pairing]:
    pairings = Pairing.objects.filter(round__tournament=tournament)
    if flight is not None:
        pairings = pairings.filter(round__flight=flight)
    # The match's analysis joined (the PR tie-break): no query more.
    return pairings.select_related("round", "match", "match__analysis").order_by(
        "round__number", "table", "id"
    )


def pairing_outcome(pairing: Pairing) -> tuple[int | None, bool] | None:
    """(winning side 1/2, forfeit) of a decided pairing, (None, False) for a bye,
    (None, True) when both forfeited, None while undecided."""
    if pairing.entry2_id is None:
        return None, False
    if pairing.forfeit_winner in (1, 2):
        return pairing.forfeit_winner, True
    match = pairing.match
    if pairing.forfeit_winner == BOTH_FORFEITED and (
        match is None or match.state == MatchState.CANCELLED
    ):
        # A result set on the match later (an override) takes over.
        return None, True
    if match is not None and match.result_status == ResultStatus.CONFIRMED and match.winner:
        return match.winner, bool(match.forfeit)
    return None


def is_decided(pairing: Pairing) -> bool:
    return pairing_outcome(pairing) is not None


def done_analysis(match: Match) -> MatchAnalysis | None:
    """The match's finished analysis, when it was read with the match (``pairing_rows``
    joins it; a match read otherwise is taken as not analysed rather than cost a query
    per match)."""
    if not Match.analysis.is_cached(match):  # type: ignore[attr-defined]
        return None
    try:
        analysis: MatchAnalysis = match.analysis  # type: ignore[attr-defined]
    except ObjectDoesNotExist:
        return None
    return analysis if analysis.state == AnalysisState.DONE else None


def match_result(pairing: Pairing, number: int | None = None) -> core.MatchResult | None:
    """The pairing's result for the core (round ``number``, default its round's), or None."""
    outcome = pairing_outcome(pairing)
    if outcome is None:
        return None
    rnd = number if number is not None else pairing.round.number
    if pairing.entry2_id is None:
        return core.MatchResult.bye_for(rnd, pairing.entry1_id)
    side, forfeit = outcome
    winner = {1: pairing.entry1_id, 2: pairing.entry2_id}.get(side or 0)
    match = pairing.match
    points1 = points2 = 0
    if match is not None and not forfeit and match.score1 is not None:
        points1, points2 = match.score1, match.score2 or 0
    analysis = done_analysis(match) if match is not None and not forfeit else None
    if analysis is None:
        return core.MatchResult(
            rnd, pairing.entry1_id, pairing.entry2_id, winner, points1, points2, forfeit=forfeit
        )
    # The match's player 1 is the pairing's first entry (a pairing makes its match so).
    return core.MatchResult(
        rnd,
        pairing.entry1_id,
        pairing.entry2_id,
        winner,
        points1,
        points2,
        forfeit=forfeit,
        error_rate_a=analysis.pr1,
        error_rate_b=analysis.pr2,
        decisions_a=analysis.decisions1,
        decisions_b=analysis.decisions2,
    )


def results(
    pairings: Iterable[Pairing], renumber: dict[int, int] | None = None
) -> list[core.MatchResult]:
    """Results of the decided pairings; ``renumber`` maps round ids to core round numbers."""
    out = []
    for p in pairings:
        number = renumber.get(p.round_id) if renumber is not None else None
        r = match_result(p, number)
        if r is not None:
            out.append(r)
    return out


def flight_results(tournament: Tournament, flight: str) -> list[core.MatchResult]:
    return results(pairing_rows(tournament, flight))


# --- Settings


def swiss_settings(tournament: Tournament, *, rounds: int | None = None) -> core.SwissSettings:
    return core.SwissSettings(
        rounds=rounds if rounds is not None else tournament.rounds_planned,
        max_losses=tournament.max_losses,
        bye_is_win=tournament.bye_is_win,
        # No rematches, unless no pairing without one exists (a small field late in a
        # "Swiss until N losses"): then as few as possible rather than no round at all.
        rematches="last_resort",
        seed_by="seed",
    )


def lot_seed(tournament: Tournament) -> int | None:
    return tournament.pk if tournament.remaining_ties == "lot" else None


def standings_settings(
    tournament: Tournament, *, rounds: int | None = None
) -> core.StandingsSettings:
    return core.StandingsSettings(
        tiebreaks=tuple(tournament.tie_breaks or ()),
        bye_is_win=tournament.bye_is_win,
        rounds=rounds,
        lot_seed=lot_seed(tournament),
    )


# --- Brackets


def replay(bracket: core.Bracket, pairings: Iterable[Pairing]) -> core.Bracket:
    """Record the decided bracket pairings on the bracket, in the order they were made."""
    for p in sorted(pairings, key=lambda p: p.pk):
        outcome = pairing_outcome(p)
        if not p.slot or outcome is None or p.entry2_id is None or p.slot not in bracket.matches:
            continue
        side, forfeit = outcome
        try:
            bracket.record(p.slot, p.entry1_id if side == 1 else p.entry2_id, forfeit=forfeit)
        except core.BracketError as error:
            # A result changed (overridden) after the next match was paired: the draw
            # follows the first consistent results; the organizer sees the warning.
            logger.warning(
                "bracket of tournament %s, pairing %s: %s", p.round.tournament_id, p.pk, error
            )
    return bracket


# --- Digest


def digest(*parts: object) -> str:
    """A stable hash of plain data (the inputs of a standings computation)."""
    text = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
