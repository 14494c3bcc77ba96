"""Double elimination: out at the second loss; a winners' and a losers' bracket in
one flight, and a grand final with a reset."""

from __future__ import annotations

from collections.abc import Sequence

from tournaments import adapters, core
from tournaments.formats.base import KnockoutFormat
from tournaments.formats.codes import Format
from tournaments.models import Entry, Tournament


class DoubleElimination(KnockoutFormat):
    code = Format.DOUBLE_ELIMINATION
    label = Format.DOUBLE_ELIMINATION.label

    def build_bracket(self, tournament: Tournament, entries: Sequence[Entry]) -> core.Bracket:
        return core.double_elimination([], order=[e.id for e in adapters.drawn_entries(entries)])
