"""The names of flights and bracket sections, and how the pages word them.

A flight is a line of rounds: ``main`` in every format; ``consolation`` and
``last_chance`` beside the main flight of a main flight with consolation;
``groups`` for the group stage before a knock-out (its pairings carry the
group's name as ``slot``); ``stage-1``, ``stage-2``, ... for the stages of a
cup.  Which flights a tournament has is its format's answer
(``registry.for_tournament(t).flights(t)``).

A bracket flight is drawn in sections: the core names them after the flight
(``main``, ``consolation``, ``last_chance``), or ``W``, ``L`` and ``GF`` for
the winners' and losers' brackets and the grand final of a double elimination.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

MAIN = "main"
CONSOLATION = "consolation"
LAST_CHANCE = "last_chance"
GROUPS = "groups"
STAGE_PREFIX = "stage-"

# The flights known by name (a cup's stages are numbered).
NAMED = (MAIN, CONSOLATION, LAST_CHANCE, GROUPS)

WINNERS = "W"
LOSERS = "L"
GRAND_FINAL = "GF"

# The flight in a sentence ("Round 2 of the consolation is still open").
_LABELS: dict[str, Promise] = {
    MAIN: gettext_lazy("main flight"),
    CONSOLATION: gettext_lazy("consolation"),
    LAST_CHANCE: gettext_lazy("last chance"),
    GROUPS: gettext_lazy("group stage"),
}
# The flight as a heading (a standings table, a bracket, a round's title).
_TITLES: dict[str, Promise] = {
    MAIN: gettext_lazy("Main flight"),
    CONSOLATION: gettext_lazy("Consolation"),
    LAST_CHANCE: gettext_lazy("Last chance"),
    GROUPS: gettext_lazy("Group stage"),
}
_SECTION_TITLES: dict[str, Promise] = {
    WINNERS: gettext_lazy("Winners' bracket"),
    LOSERS: gettext_lazy("Losers' bracket"),
    GRAND_FINAL: gettext_lazy("Grand final"),
}
# Sections in playing order within a stage of a bracket; a flight's own section first.
_SECTION_ORDER = {WINNERS: 0, LOSERS: 1, GRAND_FINAL: 2}

# The flights a match length may be set for by name (a cup's stages and the group
# stage play the default length).
LENGTH_CHOICES: list[tuple[str, Promise]] = [
    (flight, _LABELS[flight]) for flight in (MAIN, CONSOLATION, LAST_CHANCE)
]


def stage(number: int) -> str:
    """The flight of a cup's stage ``number`` (from 1)."""
    return f"{STAGE_PREFIX}{number}"


def is_stage(flight: str) -> bool:
    return flight.startswith(STAGE_PREFIX)


def stage_number(flight: str) -> int:
    """The number of a cup's stage flight (its order among the stages)."""
    return int(flight.removeprefix(STAGE_PREFIX) or 0)


def label(flight: str) -> str:
    if is_stage(flight):
        return _("stage %(number)s") % {"number": flight.removeprefix(STAGE_PREFIX)}
    return str(_LABELS.get(flight, flight))


def title(flight: str) -> str:
    if is_stage(flight):
        return _("Stage %(number)s") % {"number": flight.removeprefix(STAGE_PREFIX)}
    return str(_TITLES.get(flight, flight))


def section_title(section: str) -> str:
    """A bracket section's heading: its flight's title, or the double elimination's parts."""
    if section in _SECTION_TITLES:
        return str(_SECTION_TITLES[section])
    return str(_TITLES.get(section, section))


def section_order(section: str) -> int:
    return _SECTION_ORDER.get(section, 0)
