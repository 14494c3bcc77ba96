"""Main flight with consolation: the losers of the first main rounds play a
consolation flight (plain or progressive), and optionally a last-chance flight
the consolation's early losers drop into.  Every flight is a bracket, played side
by side: the organizer pairs each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tournaments import adapters, core
from tournaments.formats import flights
from tournaments.formats.base import KnockoutFormat
from tournaments.formats.codes import Format
from tournaments.models import Entry, Tournament


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


class MainConsolation(KnockoutFormat):
    code = Format.MAIN_CONSOLATION
    label = Format.MAIN_CONSOLATION.label
    several_flights = True
    settings = ("progressive_consolation", "last_chance")

    def flights(self, tournament: Tournament) -> list[str]:
        out = [flights.MAIN, flights.CONSOLATION]
        return [*out, flights.LAST_CHANCE] if tournament.last_chance else out

    def paired_flights(self, tournament: Tournament) -> list[str]:
        return self.flights(tournament)

    def build_bracket(self, tournament: Tournament, entries: Sequence[Entry]) -> core.Bracket:
        order = [e.id for e in adapters.drawn_entries(entries)]
        shape = consolation_shape(tournament, order)
        return core.main_with_consolation(
            [],
            consolation_rounds=shape.consolation_rounds,
            last_chance_rounds=shape.last_chance_rounds,
            order=order,
        )
