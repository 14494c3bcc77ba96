"""Round robin: everybody meets everybody by the Berger tables (truncated to
``rounds_planned`` rounds when set)."""

from __future__ import annotations

from collections.abc import Sequence

from tournaments import adapters, core
from tournaments.formats import flights
from tournaments.formats.base import Plan, Rows, TournamentFormat, round_plan, table_standings
from tournaments.formats.codes import Format
from tournaments.models import Entry, Pairing, Tournament


class RoundRobin(TournamentFormat):
    code = Format.ROUND_ROBIN
    label = Format.ROUND_ROBIN.label
    settings = ("rounds_planned",)

    def check_draw(self, tournament: Tournament, entries: Sequence[Entry]) -> None:
        core.round_robin_rounds(adapters.drawn_entries(entries), rounds=tournament.rounds_planned)

    def schedule(self, tournament: Tournament, entries: Sequence[Entry]) -> list[core.Round]:
        """Every round of the Berger table (truncated to the rounds planned)."""
        return core.round_robin_rounds(
            adapters.drawn_entries(entries), rounds=tournament.rounds_planned
        )

    def can_pair_next(
        self,
        tournament: Tournament,
        flight: str,
        entries: Sequence[Entry],
        pairings: Sequence[Pairing],
    ) -> bool:
        paired = {p.round.number for p in pairings if p.round.flight == flights.MAIN}
        try:
            return max(paired, default=0) < len(self.schedule(tournament, entries))
        except core.TournamentError:
            return True  # the pairing says what is wrong with the field

    def plan(
        self, tournament: Tournament, flight: str, number: int, entries: Sequence[Entry]
    ) -> tuple[Plan, bool]:
        schedule = self.schedule(tournament, entries)
        if number > len(schedule):
            raise core.PairingError("event_finished", "complete")
        return round_plan(schedule[number - 1]), number == len(schedule)

    def standings(
        self, tournament: Tournament, entries: Sequence[Entry], pairings: Sequence[Pairing]
    ) -> tuple[Rows, list[str]]:
        results = adapters.results(p for p in pairings if p.round.flight == flights.MAIN)
        return table_standings(tournament, entries, results)
