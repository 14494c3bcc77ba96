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

    def can_pair_next(
        self,
        tournament: Tournament,
        flight: str,
        entries: Sequence[Entry],
        pairings: Sequence[Pairing],
    ) -> bool:
        """Whether asking to pair ``flight`` now finds a round to pair: the console offers
        "pair the next round" only then.  It is the rule ``plan`` refuses by ("no more
        rounds"), asked of the rows the caller has loaded (``entries``, ``pairings``: all
        the tournament's, each pairing with its round and match), so asking costs no
        query where the format needs none.  A format that cannot tell says yes and lets
        the pairing answer."""
        return True

    def round_title(self, tournament: Tournament, flight: str, number: int) -> str:
        """A round's heading on every page (console, public pages, print, exports):
        "Round 3", or in a bracket flight what the round is ("Semi-final"); with its
        flight when the format plays several side by side."""
        title = knockout_round_name(self, tournament, flight, number)
        if title is None:
            title = _("Round %(number)d") % {"number": number}
        return f"{title} · {flights.title(flight)}" if self.several_flights else title

    def bracket_shape(self, tournament: Tournament) -> core.Bracket:
        """The bracket whose stages name the knock-out rounds (its results do not matter)."""
        return self.load_bracket(tournament)


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

    def bracket_shape(self, tournament: Tournament) -> core.Bracket:
        # The draw alone: its stages and finals do not move with results.
        return self.build_bracket(tournament, adapters.entry_rows(tournament))

    def plan(
        self, tournament: Tournament, flight: str, number: int, entries: Sequence[Entry]
    ) -> tuple[Plan, bool]:
        pairings = list(adapters.pairing_rows(tournament))
        return bracket_plan(self.load_bracket(tournament, entries, pairings), pairings, flight)

    def can_pair_next(
        self,
        tournament: Tournament,
        flight: str,
        entries: Sequence[Entry],
        pairings: Sequence[Pairing],
    ) -> bool:
        try:
            bracket = self.load_bracket(tournament, entries, pairings)
        except core.TournamentError:
            return True  # the pairing says what is wrong with the draw
        return bool(ready_to_pair(bracket, pairings, flight))

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
    ready = ready_to_pair(bracket, pairings, flight)
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


def ready_to_pair(bracket: core.Bracket, pairings: Sequence[Pairing], flight: str) -> list[str]:
    """The matches of ``flight`` the next round pairs: ready, not paired yet, and of the
    earliest stage among them (none when the flight is over or waits for results)."""
    paired = {p.slot for p in pairings if p.slot}
    ready = [
        mid
        for mid in bracket.ready()
        if bracket.matches[mid].flight == flight and mid not in paired
    ]
    if not ready:
        return []
    # One column at a time: a match that is ready early (two players with byes) waits
    # for the others of its stage, as rounds are played at a board.
    first_stage = min(bracket.stage[mid] for mid in ready)
    return [mid for mid in ready if bracket.stage[mid] == first_stage]


def knockout_stage_name(rounds_left: int) -> str:
    """A knock-out round by how many rounds follow it in its flight: the final, the
    semi-final, the quarter-final, then "1/8 final", "1/16 final"..."""
    if rounds_left <= 0:
        return _("Final")
    if rounds_left == 1:
        return _("Semi-final")
    if rounds_left == 2:
        return _("Quarter-final")
    return _("1/%(fraction)d final") % {"fraction": 2**rounds_left}


def knockout_rounds_left(bracket: core.Bracket, flight: str, slot: str) -> int | None:
    """How many rounds follow the round of ``slot`` as its name counts them (the final
    0, the semi-final 1, ...), from the number of matches of its stage in the flight: a
    stage of 2**k matches is "1/2**k final".  A flight fed from another (a consolation
    takes the main flight's losers round after round) plays two rounds of as many
    matches: the first of them has no such name (None: it keeps its number), nor has a
    stage whose count is no power of two.  In a plain bracket this is the distance to
    the final."""
    stage = bracket.stage[slot]
    count = next_count = 0
    for m in bracket.matches.values():
        if m.flight == flight:
            count += bracket.stage[m.id] == stage
            next_count += bracket.stage[m.id] == stage + 1
    if count < 1 or count & (count - 1) or next_count == count:
        return None
    return count.bit_length() - 1


# The names of a tournament's knock-out rounds, kept on the instance for one request
# (a page titles every round: one query and one draw, not one per round).
_NAMES_ATTR = "_knockout_round_names"


def knockout_round_name(
    fmt: TournamentFormat, tournament: Tournament, flight: str, number: int
) -> str | None:
    """The name of round ``number`` of a bracket flight by what it is ("Semi-final"),
    from the stage of the matches it pairs; None where rounds keep their number (not
    a bracket flight, a round not paired, a flight drawn in several sections such as a
    double elimination's winners' and losers' brackets, where only the grand final
    has a name)."""
    if not fmt.is_knockout(flight):
        return None
    names: dict[tuple[str, int], str | None] | None = tournament.__dict__.get(_NAMES_ATTR)
    if names is None or (flight, number) not in names:
        names = _knockout_round_names(fmt, tournament)
        tournament.__dict__[_NAMES_ATTR] = names
    return names.get((flight, number))


def _knockout_round_names(
    fmt: TournamentFormat, tournament: Tournament
) -> dict[tuple[str, int], str | None]:
    slots: dict[tuple[str, int], str] = {}
    for flight, number, slot in (
        Pairing.objects.filter(round__tournament=tournament)
        .exclude(slot="")
        .order_by("round__number", "table")
        .values_list("round__flight", "round__number", "slot")
    ):
        slots.setdefault((flight, number), slot)
    if not slots:
        return {}
    try:
        bracket = fmt.bracket_shape(tournament)
    except core.TournamentError:
        return {}
    sections: dict[str, set[str]] = {}
    for m in bracket.matches.values():
        sections.setdefault(m.flight, set()).add(m.section)
    names: dict[tuple[str, int], str | None] = {}
    for (flight, number), slot in slots.items():
        match = bracket.matches.get(slot)
        final = bracket.finals.get(flight)
        if match is None or final is None or not fmt.is_knockout(flight):
            names[(flight, number)] = None
        elif match.section == flights.GRAND_FINAL:
            names[(flight, number)] = flights.section_title(flights.GRAND_FINAL)
        elif len(sections[flight]) > 1:
            names[(flight, number)] = None
        else:
            left = knockout_rounds_left(bracket, flight, slot)
            names[(flight, number)] = None if left is None else knockout_stage_name(left)
    return names


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
