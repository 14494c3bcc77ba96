"""The formats by code: what the rest of the app asks instead of branching on
``Tournament.format``.

    get(code)            the format of that code (KeyError for an unknown one)
    find(code)           the same, or None
    for_tournament(t)    the tournament's format
    choices()            (code, label) pairs, for forms and filters
    all_formats()        every format, in the order of ``choices()``
    settings_by_field()  {setting: [codes of the formats that use it]}
"""

from __future__ import annotations

from django.utils.functional import Promise

from tournaments.formats.base import TournamentFormat
from tournaments.formats.cup import Cup
from tournaments.formats.double_elimination import DoubleElimination
from tournaments.formats.groups_knockout import GroupsKnockout
from tournaments.formats.main_consolation import MainConsolation
from tournaments.formats.round_robin import RoundRobin
from tournaments.formats.single_elimination import SingleElimination
from tournaments.formats.swiss import Swiss
from tournaments.models import Tournament

_FORMATS: dict[str, TournamentFormat] = {}


def register(fmt: TournamentFormat) -> TournamentFormat:
    """Add a format (a code already taken is refused)."""
    if fmt.code in _FORMATS:
        raise ValueError(f"format {fmt.code!r} is registered already")
    _FORMATS[fmt.code] = fmt
    return fmt


def get(code: str) -> TournamentFormat:
    return _FORMATS[code]


def find(code: str) -> TournamentFormat | None:
    """The format of that code, None for an unknown one (a value still to be validated)."""
    return _FORMATS.get(code)


def for_tournament(tournament: Tournament) -> TournamentFormat:
    return _FORMATS[tournament.format]


def all_formats() -> list[TournamentFormat]:
    return list(_FORMATS.values())


def choices() -> list[tuple[str, str | Promise]]:
    return [(str(fmt.code), fmt.label) for fmt in _FORMATS.values()]


def settings_by_field() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for fmt in _FORMATS.values():
        for name in fmt.settings:
            out.setdefault(name, []).append(str(fmt.code))
    return out


for _fmt in (
    SingleElimination(),
    MainConsolation(),
    DoubleElimination(),
    Swiss(),
    RoundRobin(),
    GroupsKnockout(),
    Cup(),
):
    register(_fmt)

# The format a new tournament's form proposes.
DEFAULT = Swiss.code
