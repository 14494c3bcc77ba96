"""Groups, then knock-out: snake-seeded groups play round robins (flight
``groups``, each pairing's ``slot`` the group's name), then the top
``qualifiers_per_group`` of each group play a single-elimination bracket (the
main flight) once the group stage is complete."""

from __future__ import annotations

from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from tournaments import adapters, core
from tournaments.formats import flights
from tournaments.formats.base import Plan, Rows, TournamentFormat, bracket_plan, ready_to_pair
from tournaments.formats.codes import Format
from tournaments.formats.tables import bracket_rows, table_rows
from tournaments.models import Entry, Pairing, Round, RoundState, Tournament

# The groups are ranked by these, whatever the tournament's tie-breaks.
GROUP_TIE_BREAKS = ("DE", "SB", "PD")


def groups(tournament: Tournament, entries: Sequence[Entry]) -> list[core.Group]:
    return core.snake_groups(adapters.drawn_entries(entries), tournament.groups or 1)


def group_schedule(
    tournament: Tournament, entries: Sequence[Entry]
) -> list[list[tuple[str, core.Round]]]:
    """Rounds of the group stage: for round k, each group's k-th round (group name, round)."""
    drawn = adapters.drawn_entries(entries)
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
        pairings = list(adapters.pairing_rows(tournament, flights.GROUPS))
    group_results = adapters.results(p for p in pairings if p.round.flight == flights.GROUPS)
    drawn = adapters.drawn_entries(entries)
    settings = core.StandingsSettings(
        tiebreaks=GROUP_TIE_BREAKS,
        bye_is_win=tournament.bye_is_win,
        lot_seed=adapters.lot_seed(tournament),
    )
    return [
        (g, core.group_standings(drawn, g, group_results, settings))
        for g in groups(tournament, entries)
    ]


def group_stage_complete(tournament: Tournament, pairings: Sequence[Pairing] | None = None) -> bool:
    """Every group round paired, played and closed."""
    states = list(
        Round.objects.filter(tournament=tournament, flight=flights.GROUPS).values_list(
            "state", flat=True
        )
    )
    entries = adapters.entry_rows(tournament)
    if len(states) < len(group_schedule(tournament, entries)):
        return False
    if any(state != RoundState.CLOSED for state in states):
        return False
    if pairings is None:
        pairings = list(adapters.pairing_rows(tournament, flights.GROUPS))
    return all(adapters.is_decided(p) for p in pairings if p.round.flight == flights.GROUPS)


def knockout_bracket(
    tournament: Tournament,
    entries: Sequence[Entry],
    pairings: Sequence[Pairing] | None = None,
) -> core.Bracket:
    tables = [rows for _, rows in group_tables(tournament, entries, pairings)]
    return core.knockout_from_groups(tables, tournament.qualifiers_per_group or 1)


class GroupsKnockout(TournamentFormat):
    code = Format.GROUPS_KNOCKOUT
    label = Format.GROUPS_KNOCKOUT.label
    several_flights = True
    next_round_number_known = False
    has_bracket = True
    settings = ("groups", "qualifiers_per_group")

    def flights(self, tournament: Tournament) -> list[str]:
        return [flights.GROUPS, flights.MAIN]

    def bracket_flights(self, tournament: Tournament) -> list[str]:
        return [flights.MAIN]

    def is_knockout(self, flight: str) -> bool:
        return flight == flights.MAIN

    def settings_errors(self, tournament: Tournament) -> dict[str, str]:
        errors = {}
        if not tournament.groups:
            errors["groups"] = _("Say how many groups there are.")
        if not tournament.qualifiers_per_group:
            errors["qualifiers_per_group"] = _("Say how many players of each group go through.")
        return errors

    def check_draw(self, tournament: Tournament, entries: Sequence[Entry]) -> None:
        group_schedule(tournament, entries)
        qualifiers = tournament.qualifiers_per_group or 0
        if qualifiers * (tournament.groups or 0) < 2:
            raise ValidationError(_("A knock-out needs at least two qualifiers."))
        if any(len(g.entries) < qualifiers for g in groups(tournament, entries)):
            raise ValidationError(_("A group has fewer players than the qualifiers it sends on."))

    def flight_to_pair(self, tournament: Tournament, flight: str) -> str:
        """The group stage until it is complete, when the knock-out is asked for."""
        if (
            flight == flights.MAIN
            and not Round.objects.filter(tournament=tournament, flight=flights.MAIN).exists()
            and not group_stage_complete(tournament)
        ):
            return flights.GROUPS
        return flight

    def can_pair_next(
        self,
        tournament: Tournament,
        flight: str,
        entries: Sequence[Entry],
        pairings: Sequence[Pairing],
    ) -> bool:
        flight = self.flight_to_pair(tournament, flight)
        if flight == flights.GROUPS:
            paired = {p.round.number for p in pairings if p.round.flight == flights.GROUPS}
            return max(paired, default=0) < len(group_schedule(tournament, entries))
        try:
            bracket = self.load_bracket(tournament, entries, pairings)
        except core.TournamentError:
            return True  # the pairing says what is wrong (a tie at the cut)
        return bool(ready_to_pair(bracket, pairings, flight))

    def plan(
        self, tournament: Tournament, flight: str, number: int, entries: Sequence[Entry]
    ) -> tuple[Plan, bool]:
        if flight == flights.GROUPS:
            schedule = group_schedule(tournament, entries)
            if number > len(schedule):
                raise core.PairingError("event_finished", "complete")
            plan: Plan = []
            for name, rnd in schedule[number - 1]:
                plan += [(p.a, p.b, name) for p in rnd.pairings]
            for name, rnd in schedule[number - 1]:
                plan += [(b, None, name) for b in rnd.byes]
            return plan, False
        pairings = list(adapters.pairing_rows(tournament))
        if not group_stage_complete(tournament, pairings):
            raise ValidationError(_("The group stage is not complete yet."))
        return bracket_plan(self.load_bracket(tournament, entries, pairings), pairings, flight)

    def load_bracket(
        self,
        tournament: Tournament,
        entries: Sequence[Entry] | None = None,
        pairings: Sequence[Pairing] | None = None,
    ) -> core.Bracket:
        """The knock-out, drawn from the group tables (complete group stage)."""
        entries = adapters.entry_rows(tournament) if entries is None else entries
        if pairings is None:
            pairings = list(adapters.pairing_rows(tournament))
        bracket = knockout_bracket(tournament, entries, pairings)
        return adapters.replay(bracket, [p for p in pairings if p.round.flight != flights.GROUPS])

    def bracket_exists(self, tournament: Tournament, pairings: Sequence[Pairing]) -> bool:
        return any(p.round.flight != flights.GROUPS for p in pairings) or group_stage_complete(
            tournament, pairings
        )

    def standings(
        self, tournament: Tournament, entries: Sequence[Entry], pairings: Sequence[Pairing]
    ) -> tuple[Rows, list[str]]:
        """The knock-out's places (once it can be drawn), then each group's table."""
        by_id = {e.pk: e for e in entries}
        rows: Rows = []
        group_pairings = [p for p in pairings if p.round.flight == flights.GROUPS]
        knockout_pairings = [p for p in pairings if p.round.flight != flights.GROUPS]
        if knockout_pairings or group_stage_complete(tournament, group_pairings):
            counts = core.result_counts(adapters.results(knockout_pairings), tournament.bye_is_win)
            try:
                bracket = self.load_bracket(tournament, entries, pairings)
            except core.QualificationError:
                bracket = None  # a tie at the cut: the organizer breaks it first
            if bracket is not None:
                rows += bracket_rows(bracket, by_id, counts)
        group_counts = core.result_counts(adapters.results(group_pairings), tournament.bye_is_win)
        for group, table in group_tables(tournament, entries, group_pairings):
            rows += table_rows(table, by_id, group_counts, flight=flights.GROUPS, group=group.name)
        return rows, list(GROUP_TIE_BREAKS)
