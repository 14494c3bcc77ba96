"""The one adapter between tournament rows and the pure core (``tournaments.core``).

Rows become the core's plain types here, and nowhere else:

* an ``Entry`` row is a ``core.Entry`` with the same id (seed, rating, withdrawn);
* a decided ``Pairing`` is a ``core.MatchResult`` numbered with its round:
  a bye (no second entry), a forfeit (``forfeit_winner`` set, or the match
  was won by forfeit), a double forfeit (``BOTH_FORFEITED``, while its match,
  if any, stays cancelled) or the confirmed result of its ``games.Match`` (the
  official score, never a pending report);
* a bracket is rebuilt from the draw (entries by seed, fixed when the
  tournament started) and the recorded results are replayed on it in the
  order their pairings were made (``Pairing.slot`` is the core's match id),
  so the database holds the whole state and the core answers every question.

Flights: ``main`` for every format; ``consolation`` and ``last_chance`` for a
main flight with consolation; ``groups`` for the group stage of groups then
knock-out (its pairings carry the group's name as ``slot``); ``stage-1``,
``stage-2``, ... for the stages of a cup.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db.models import QuerySet

from games.models import MatchState, ResultStatus
from tournaments import core
from tournaments.models import (
    BOTH_FORFEITED,
    Entry,
    EntryStatus,
    Format,
    Pairing,
    Round,
    Tournament,
)

logger = logging.getLogger(__name__)

BRACKET_FORMATS = frozenset(
    {Format.SINGLE_ELIMINATION, Format.MAIN_CONSOLATION, Format.DOUBLE_ELIMINATION}
)
ROUND_FORMATS = frozenset({Format.SWISS, Format.ROUND_ROBIN, Format.CUP})
GROUP_FLIGHT = "groups"
STAGE_PREFIX = "stage-"


def is_bracket(tournament: Tournament) -> bool:
    return tournament.format in BRACKET_FORMATS


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
    return pairings.select_related("round", "match").order_by("round__number", "table", "id")


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


def is_knockout(tournament: Tournament, flight: str) -> bool:
    """Whether ``flight`` is a bracket: someone has to go through each of its matches."""
    return tournament.format in BRACKET_FORMATS or (
        flight == "main" and tournament.format == Format.GROUPS_KNOCKOUT
    )


def is_decided(pairing: Pairing) -> bool:
    return pairing_outcome(pairing) is not None


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
    return core.MatchResult(
        rnd, pairing.entry1_id, pairing.entry2_id, winner, points1, points2, forfeit=forfeit
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


@dataclass(frozen=True)
class ConsolationShape:
    consolation_rounds: int
    last_chance_rounds: int


def _main_rounds(n: int) -> int:
    return core.bracket_size(n).bit_length() - 1


def consolation_shape(tournament: Tournament, order: Sequence[int]) -> ConsolationShape:
    """Which main rounds drop into the consolation, which consolation rounds into the
    last chance: plain = main round 1 (and consolation round 1); progressive = main
    rounds 1..R-2 (at least 2) and consolation rounds 1..2, fewer when the field is
    too small for them.  Raises the core's ConfigError when no shape fits."""
    rounds = _main_rounds(len(order))
    if tournament.progressive_consolation:
        k_options = list(range(min(rounds - 1, max(2, rounds - 2)), 0, -1))
        j_options = [2, 1] if tournament.last_chance else [0]
    else:
        k_options = [1]
        j_options = [1] if tournament.last_chance else [0]
    error: core.TournamentError | None = None
    for k in k_options:
        for j in j_options:
            try:
                core.main_with_consolation(
                    [], consolation_rounds=k, last_chance_rounds=j, order=order
                )
            except core.TournamentError as exc:
                error = error or exc
                continue
            return ConsolationShape(k, j)
    assert error is not None
    raise error


def build_bracket(tournament: Tournament, entries: Sequence[Entry]) -> core.Bracket:
    """The draw of a bracket format, without results (core errors pass through)."""
    order = [e.id for e in drawn_entries(entries)]
    if tournament.format == Format.SINGLE_ELIMINATION:
        return core.single_elimination([], order=order)
    if tournament.format == Format.DOUBLE_ELIMINATION:
        return core.double_elimination([], order=order)
    if tournament.format == Format.MAIN_CONSOLATION:
        shape = consolation_shape(tournament, order)
        return core.main_with_consolation(
            [],
            consolation_rounds=shape.consolation_rounds,
            last_chance_rounds=shape.last_chance_rounds,
            order=order,
        )
    if tournament.format == Format.GROUPS_KNOCKOUT:
        return knockout_bracket(tournament, entries)
    raise core.ConfigError("bad_setting", "not a bracket format", format=tournament.format)


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


def load_bracket(
    tournament: Tournament,
    entries: Sequence[Entry] | None = None,
    pairings: Sequence[Pairing] | None = None,
) -> core.Bracket:
    """The tournament's bracket with every recorded result (groups then knock-out: the
    knock-out, once the group stage is complete)."""
    entries = entry_rows(tournament) if entries is None else entries
    if pairings is None:
        pairings = list(pairing_rows(tournament))
    if tournament.format == Format.GROUPS_KNOCKOUT:
        bracket = knockout_bracket(tournament, entries, pairings)
        pairings = [p for p in pairings if p.round.flight != GROUP_FLIGHT]
    else:
        bracket = build_bracket(tournament, entries)
    return replay(bracket, pairings)


# --- Groups


def groups(tournament: Tournament, entries: Sequence[Entry]) -> list[core.Group]:
    return core.snake_groups(drawn_entries(entries), tournament.groups or 1)


def group_schedule(
    tournament: Tournament, entries: Sequence[Entry]
) -> list[list[tuple[str, core.Round]]]:
    """Rounds of the group stage: for round k, each group's k-th round (group name, round)."""
    drawn = drawn_entries(entries)
    per_group = [(g.name, core.group_rounds(drawn, g)) for g in groups(tournament, entries)]
    total = max(len(rounds) for _, rounds in per_group)
    return [
        [(name, rounds[k]) for name, rounds in per_group if k < len(rounds)] for k in range(total)
    ]


def group_tables(
    tournament: Tournament,
    entries: Sequence[Entry],
    pairings: Sequence[Pairing] | None = None,
) -> list[tuple[core.Group, list[core.StandingRow]]]:
    if pairings is None:
        pairings = list(pairing_rows(tournament, GROUP_FLIGHT))
    group_results = results(p for p in pairings if p.round.flight == GROUP_FLIGHT)
    drawn = drawn_entries(entries)
    settings = core.StandingsSettings(
        tiebreaks=("DE", "SB", "PD"),
        bye_is_win=tournament.bye_is_win,
        lot_seed=lot_seed(tournament),
    )
    return [
        (g, core.group_standings(drawn, g, group_results, settings))
        for g in groups(tournament, entries)
    ]


def group_stage_complete(tournament: Tournament, pairings: Sequence[Pairing] | None = None) -> bool:
    """Every group round paired, played and closed."""
    states = list(
        Round.objects.filter(tournament=tournament, flight=GROUP_FLIGHT).values_list(
            "state", flat=True
        )
    )
    entries = entry_rows(tournament)
    if len(states) < len(group_schedule(tournament, entries)):
        return False
    if any(state != "closed" for state in states):
        return False
    if pairings is None:
        pairings = list(pairing_rows(tournament, GROUP_FLIGHT))
    return all(is_decided(p) for p in pairings if p.round.flight == GROUP_FLIGHT)


def knockout_bracket(
    tournament: Tournament,
    entries: Sequence[Entry],
    pairings: Sequence[Pairing] | None = None,
) -> core.Bracket:
    tables = [rows for _, rows in group_tables(tournament, entries, pairings)]
    return core.knockout_from_groups(tables, tournament.qualifiers_per_group or 1)


# --- Cups


def stage_flights(tournament: Tournament) -> list[str]:
    names = (
        Round.objects.filter(tournament=tournament, flight__startswith=STAGE_PREFIX)
        .values_list("flight", flat=True)
        .distinct()
    )
    return sorted(set(names), key=lambda f: int(f.removeprefix(STAGE_PREFIX) or 0))


# --- Digest


def digest(*parts: object) -> str:
    """A stable hash of plain data (the inputs of a standings computation)."""
    text = json.dumps(parts, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()
