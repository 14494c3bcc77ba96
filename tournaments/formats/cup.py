"""Cup of several stages: each stage is a short Swiss of ``rounds_planned`` rounds
in its own flight (``stage-1``, ``stage-2``, ...), started when the previous
stage is over; the standings add up the wins of every stage.  Late entries join
with no wins."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _

from tournaments import adapters, core
from tournaments.formats import flights
from tournaments.formats.base import Plan, Rows, TournamentFormat
from tournaments.formats.codes import Format
from tournaments.formats.swiss import swiss_plan
from tournaments.formats.tables import table_rows
from tournaments.models import Entry, Pairing, Round, RoundState, Tournament


def stage_flights(tournament: Tournament) -> list[str]:
    """The stages paired so far, in order."""
    names = (
        Round.objects.filter(tournament=tournament, flight__startswith=flights.STAGE_PREFIX)
        .values_list("flight", flat=True)
        .distinct()
    )
    return sorted(set(names), key=flights.stage_number)


class Cup(TournamentFormat):
    code = Format.CUP
    label = Format.CUP.label
    late_entries = True
    several_flights = True
    next_round_number_known = False
    settings = ("rounds_planned",)

    def flights(self, tournament: Tournament) -> list[str]:
        return stage_flights(tournament) or [flights.stage(1)]

    def settings_errors(self, tournament: Tournament) -> dict[str, str]:
        if not tournament.rounds_planned:
            return {"rounds_planned": _("A cup needs the number of rounds of each stage.")}
        return {}

    def check_draw(self, tournament: Tournament, entries: Sequence[Entry]) -> None:
        adapters.swiss_settings(tournament)

    def flight_to_pair(self, tournament: Tournament, flight: str) -> str:
        """The stage asked for; else the last stage's next round, or the next stage once
        the last one has played all its rounds."""
        if flights.is_stage(flight):
            return flight
        stages = stage_flights(tournament)
        if not stages:
            return flights.stage(1)
        last = stages[-1]
        rounds = list(
            Round.objects.filter(tournament=tournament, flight=last).values_list("state", flat=True)
        )
        done = all(state == RoundState.CLOSED for state in rounds)
        if len(rounds) >= (tournament.rounds_planned or 1) and done:
            return flights.stage(len(stages) + 1)
        return last  # its next round, or its open round (refused as still open)

    def plan(
        self, tournament: Tournament, flight: str, number: int, entries: Sequence[Entry]
    ) -> tuple[Plan, bool]:
        results = adapters.flight_results(tournament, flight)
        settings = adapters.swiss_settings(tournament, rounds=tournament.rounds_planned)
        return swiss_plan(entries, results, settings, number), False

    def standings(
        self, tournament: Tournament, entries: Sequence[Entry], pairings: Sequence[Pairing]
    ) -> tuple[Rows, list[str]]:
        stages = [
            adapters.results(p for p in pairings if p.round.flight == flight)
            for flight in stage_flights(tournament)
        ]
        table = core.cup_standings(
            adapters.core_entries(entries), stages, adapters.standings_settings(tournament)
        )
        by_id = {e.pk: e for e in entries}
        counts = core.result_counts(adapters.results(pairings), tournament.bye_is_win)
        return table_rows(table, by_id, counts), list(tournament.tie_breaks or [])
