"""What every tournament format answers (``TournamentFormat``), and the knock-out
behaviour the bracket formats share (``KnockoutFormat``).

A format is the adapter's policy for one kind of tournament: it reads the rows
through ``tournaments.adapters`` and leaves the algorithms to the pure
``tournaments.core``.  Core errors pass through; the services word them.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any, ClassVar

from django.core.exceptions import ValidationError
from django.utils.functional import Promise
from django.utils.translation import gettext as _

from tournaments import adapters, core
from tournaments.formats import flights, tables
from tournaments.models import Entry, Pairing, Round, Tournament

Plan = list[tuple[int, int | None, str]]  # (entry1, entry2 or None for a bye, slot)
Rows = list[dict[str, Any]]  # standings rows as a snapshot stores them


class TournamentFormat(abc.ABC):
    """One format: its code, what it allows, how it plans rounds and reads standings."""

    code: ClassVar[str]
    label: ClassVar[str | Promise]
    # Players may enter while it runs (paired from the next round, with no wins).
    late_entries: ClassVar[bool] = False
    # Rounds of several flights are played side by side: a round's title names its flight.
    several_flights: ClassVar[bool] = False
    # The flight a request to pair names is the flight paired, so the console can number
    # the next round before pairing it.
    next_round_number_known: ClassVar[bool] = True
    # Some flight is a bracket tree (drawn on the public page).
    has_bracket: ClassVar[bool] = False
    # The settings of the tournament form that belong to this format (the form shows
    # only the chosen format's).
    settings: ClassVar[tuple[str, ...]] = ()
    # Settings the public page names beside the format ("rounds: 7").
    public_facts: ClassVar[tuple[str, ...]] = ()

    def flights(self, tournament: Tournament) -> list[str]:
        """The tournament's flights, in playing order."""
        return [flights.MAIN]

    def paired_flights(self, tournament: Tournament) -> list[str]:
        """The flights the organizer chooses to pair (the format finds the rest itself)."""
        return [flights.MAIN]

    def bracket_flights(self, tournament: Tournament) -> list[str]:
        """The flights drawn as bracket trees."""
        return []

    def is_knockout(self, flight: str) -> bool:
        """Whether ``flight`` is a bracket: someone goes through each of its matches
        (no double forfeit, pairings that follow the draw)."""
        return False

    def settings_errors(self, tournament: Tournament) -> dict[str, str]:
        """The format's settings that are missing or wrong, by field."""
        return {}

    @abc.abstractmethod
    def check_draw(self, tournament: Tournament, entries: Sequence[Entry]) -> None:
        """Build what the format needs from the draw (seeds fixed), so bad settings show
        when the tournament starts (a core error or a ValidationError)."""

    def flight_to_pair(self, tournament: Tournament, flight: str) -> str:
        """The flight a request to pair ``flight`` pairs."""
        return flight

    @abc.abstractmethod
    def plan(
        self, tournament: Tournament, flight: str, number: int, entries: Sequence[Entry]
    ) -> tuple[Plan, bool]:
        """The pairings of round ``number`` of ``flight``, and whether it is the flight's
        final (core.PairingError "event_finished" when the flight has no more rounds)."""

    @abc.abstractmethod
    def standings(
        self, tournament: Tournament, entries: Sequence[Entry], pairings: Sequence[Pairing]
    ) -> tuple[Rows, list[str]]:
        """(rows, tie-breaks used) of the standings from these entries and pairings."""

    def load_bracket(
        self,
        tournament: Tournament,
        entries: Sequence[Entry] | None = None,
        pairings: Sequence[Pairing] | None = None,
    ) -> core.Bracket:
        """The tournament's bracket with every recorded result."""
        raise core.ConfigError("bad_setting", "not a bracket format", format=tournament.format)

    def bracket_exists(self, tournament: Tournament, pairings: Sequence[Pairing]) -> bool:
        """Whether the bracket can be drawn yet (``pairings``: all the tournament's)."""
        return self.has_bracket

    def looks_finished(self, tournament: Tournament, rounds: Sequence[Round]) -> bool:
        """Whether the rounds played are all the format plans (finishing comes first)."""
        return False


class KnockoutFormat(TournamentFormat):
    """A bracket from the draw: every flight is a knock-out."""

    has_bracket = True

    @abc.abstractmethod
    def build_bracket(self, tournament: Tournament, entries: Sequence[Entry]) -> core.Bracket:
        """The draw, without results (core errors pass through)."""

    def bracket_flights(self, tournament: Tournament) -> list[str]:
        return self.flights(tournament)

    def is_knockout(self, flight: str) -> bool:
        return True

    def check_draw(self, tournament: Tournament, entries: Sequence[Entry]) -> None:
        self.build_bracket(tournament, entries)

    def load_bracket(
        self,
        tournament: Tournament,
        entries: Sequence[Entry] | None = None,
        pairings: Sequence[Pairing] | None = None,
    ) -> core.Bracket:
        entries = adapters.entry_rows(tournament) if entries is None else entries
        if pairings is None:
            pairings = list(adapters.pairing_rows(tournament))
        return adapters.replay(self.build_bracket(tournament, entries), pairings)

    def plan(
        self, tournament: Tournament, flight: str, number: int, entries: Sequence[Entry]
    ) -> tuple[Plan, bool]:
        pairings = list(adapters.pairing_rows(tournament))
        return bracket_plan(self.load_bracket(tournament, entries, pairings), pairings, flight)

    def standings(
        self, tournament: Tournament, entries: Sequence[Entry], pairings: Sequence[Pairing]
    ) -> tuple[Rows, list[str]]:
        by_id = {e.pk: e for e in entries}
        counts = core.result_counts(adapters.results(pairings), tournament.bye_is_win)
        bracket = self.load_bracket(tournament, entries, pairings)
        return tables.bracket_rows(bracket, by_id, counts), []


def bracket_plan(
    bracket: core.Bracket, pairings: Sequence[Pairing], flight: str
) -> tuple[Plan, bool]:
    """The next round of a bracket flight: its matches that are ready and not yet paired,
    one column at a time."""
    if flight not in bracket.flights():
        raise ValidationError(
            _("This tournament has no %(flight)s.") % {"flight": flights.label(flight)}
        )
    paired = {p.slot for p in pairings if p.slot}
    ready = [
        mid
        for mid in bracket.ready()
        if bracket.matches[mid].flight == flight and mid not in paired
    ]
    if not ready:
        flight_done = all(
            bracket.status(mid) in ("decided", "bye", "void")
            for mid, m in bracket.matches.items()
            if m.flight == flight
        )
        if flight_done:
            raise core.PairingError("event_finished", "complete")
        raise ValidationError(
            _("No match of the %(flight)s is ready yet: it waits for results of other matches.")
            % {"flight": flights.label(flight)},
            code="not_ready",
        )
    # One column at a time: a match that is ready early (two players with byes) waits
    # for the others of its stage, as rounds are played at a board.
    first_stage = min(bracket.stage[mid] for mid in ready)
    ready = [mid for mid in ready if bracket.stage[mid] == first_stage]
    ready.sort(
        key=lambda mid: (
            bracket.stage[mid],
            flights.section_order(bracket.matches[mid].section),
            bracket.matches[mid].index,
        )
    )
    plan: Plan = []
    for mid in ready:
        a, b = bracket.players(mid)
        assert isinstance(a, int) and isinstance(b, int)
        plan.append((a, b, mid))
    final_ids = {bracket.finals.get(flight)}
    final = any(
        mid in final_ids or bracket.matches[mid].section == flights.GRAND_FINAL for mid in ready
    )
    return plan, final


def round_plan(rnd: core.Round, slot: str = "") -> Plan:
    """A core round as a plan: its pairings, then its byes."""
    return [(p.a, p.b, slot) for p in rnd.pairings] + [(b, None, slot) for b in rnd.byes]


def table_standings(
    tournament: Tournament,
    entries: Sequence[Entry],
    results: list[core.MatchResult],
    last_round: dict[int, int] | None = None,
) -> tuple[Rows, list[str]]:
    """The ranked table of a format played in numbered rounds, by the tournament's
    tie-breaks."""
    by_id = {e.pk: e for e in entries}
    table = core.compute_standings(
        adapters.core_entries(entries),
        results,
        adapters.standings_settings(tournament),
        last_round=last_round,
    )
    counts = core.result_counts(results, tournament.bye_is_win)
    return tables.table_rows(table, by_id, counts), list(tournament.tie_breaks or [])
