"""Single elimination: one bracket from the seeds, out at the first loss."""

from __future__ import annotations

from collections.abc import Sequence

from tournaments import adapters, core
from tournaments.formats.base import KnockoutFormat
from tournaments.formats.codes import Format
from tournaments.models import Entry, Tournament


class SingleElimination(KnockoutFormat):
    code = Format.SINGLE_ELIMINATION
    label = Format.SINGLE_ELIMINATION.label

    def build_bracket(self, tournament: Tournament, entries: Sequence[Entry]) -> core.Bracket:
        return core.single_elimination([], order=[e.id for e in adapters.drawn_entries(entries)])
