"""Swiss: every round pairs players of equal records (no rematches), for a fixed
number of rounds or until players reach their N-th loss; late entries join with
no wins."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _

from tournaments import adapters, core
from tournaments.formats import flights
from tournaments.formats.base import Plan, Rows, TournamentFormat, round_plan, table_standings
from tournaments.formats.codes import Format
from tournaments.models import Entry, Pairing, Round, Tournament


def swiss_plan(
    entries: Sequence[Entry],
    results: list[core.MatchResult],
    settings: core.SwissSettings,
    number: int,
) -> Plan:
    """Round ``number`` paired by records (the Swiss rounds of a cup's stage too)."""
    field = adapters.core_entries(entries)
    if core.swiss_finished(field, results, settings):
        raise core.PairingError("event_finished", "complete")
    return round_plan(core.pair_swiss_round(field, results, settings, round_number=number))


class Swiss(TournamentFormat):
    code = Format.SWISS
    label = Format.SWISS.label
    late_entries = True
    settings = ("rounds_planned", "max_losses")
    public_facts = ("rounds_planned", "max_losses")

    def settings_errors(self, tournament: Tournament) -> dict[str, str]:
        if not tournament.rounds_planned and not tournament.max_losses:
            return {"rounds_planned": _("A Swiss needs a number of rounds or of losses.")}
        return {}

    def check_draw(self, tournament: Tournament, entries: Sequence[Entry]) -> None:
        adapters.swiss_settings(tournament)

    def plan(
        self, tournament: Tournament, flight: str, number: int, entries: Sequence[Entry]
    ) -> tuple[Plan, bool]:
        results = adapters.flight_results(tournament, flights.MAIN)
        final = bool(tournament.rounds_planned) and number == tournament.rounds_planned
        return swiss_plan(entries, results, adapters.swiss_settings(tournament), number), final

    def standings(
        self, tournament: Tournament, entries: Sequence[Entry], pairings: Sequence[Pairing]
    ) -> tuple[Rows, list[str]]:
        results = adapters.results(p for p in pairings if p.round.flight == flights.MAIN)
        last_round: dict[int, int] | None = None
        if tournament.max_losses:
            # Eliminated after the N-th loss: later rounds are not theirs (no absences).
            records = core.swiss_records(
                adapters.core_entries(entries), results, adapters.swiss_settings(tournament)
            )
            last_round = {pid: r.eliminated_in for pid, r in records.items() if r.eliminated_in}
        # The event's rounds so far (the default): rounds not reached count for nobody.
        return table_standings(tournament, entries, results, last_round)

    def can_pair_next(
        self,
        tournament: Tournament,
        flight: str,
        entries: Sequence[Entry],
        pairings: Sequence[Pairing],
    ) -> bool:
        # swiss_plan's rule: the planned rounds are paired, or too few players are left.
        results = adapters.results(p for p in pairings if p.round.flight == flights.MAIN)
        field = adapters.core_entries(entries)
        return not core.swiss_finished(field, results, adapters.swiss_settings(tournament))

    def looks_finished(self, tournament: Tournament, rounds: Sequence[Round]) -> bool:
        main = [r for r in rounds if r.flight == flights.MAIN]
        return tournament.rounds_planned is not None and len(main) >= tournament.rounds_planned
