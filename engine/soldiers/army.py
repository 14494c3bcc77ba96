"""Soldiers options (RULES.md §3.1): the ``army`` and its ``placement``.

Classes are small integers in the canonical order of the position text
(``K G D E O P``): general, guard, druid, wounded even, wounded odd, pawn.
An army is the count of each class other than the pawn (the rest of the 15
are pawns); a placement puts each class checker on a start point with room.

Bad options raise `SoldiersOptionError` with a stable code and its data:
``army_too_large`` (``total``), ``unknown_class`` (``token``), ``bad_army`` /
``bad_placement`` (``token``), ``placement_no_room`` (``cls``, ``point``,
``room``), ``placement_mismatch`` (``cls``, ``army``, ``placed``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from engine.errors import EngineError

GENERAL: Final = 0
GUARD: Final = 1
DRUID: Final = 2
EVEN: Final = 3
ODD: Final = 4
PAWN: Final = 5
CLASSES: Final = 6
LETTERS: Final = "KGDEOP"
CHECKERS: Final = 15
# The §2 start in each side's own numbering: point -> checkers.
START: Final = {24: 2, 13: 5, 8: 3, 6: 5}
# Where each class stands by default (§3.1); the pawn fills the rest.
DEFAULT_POINTS: Final = (24, 13, 8, 6, 6)

_TOKEN: Final = re.compile(r"([A-Za-z])(\d{1,2})(?:x(\d{1,2}))?")
_COUNT: Final = re.compile(r"([A-Za-z])(\d{1,2})?")


class SoldiersOptionError(EngineError, ValueError):
    """An ``army`` or ``placement`` option that cannot be used."""


def class_of(letter: str, token: str) -> int:
    """The class a letter names (``K G D E O P``)."""
    index = LETTERS.find(letter.upper()) if len(letter) == 1 else -1
    if index < 0:
        raise SoldiersOptionError(
            "unknown_class", f"{letter!r} is not a class (K G D E O P)", token=token
        )
    return index


@dataclass(frozen=True, slots=True)
class Army:
    """Per side: generals, guards, druids, wounded even, wounded odd (the rest pawns)."""

    counts: tuple[int, int, int, int, int] = (1, 1, 1, 1, 1)

    def __post_init__(self) -> None:
        if len(self.counts) != PAWN or any(
            isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in self.counts
        ):
            raise SoldiersOptionError("bad_army", "an army is five counts of 0 or more", token="")
        total = sum(self.counts)
        if total > CHECKERS:
            raise SoldiersOptionError(
                "army_too_large",
                f"the army has {total} class checkers; a side has {CHECKERS}",
                total=total,
            )

    @property
    def pawns(self) -> int:
        return CHECKERS - sum(self.counts)

    def count(self, cls: int) -> int:
        return self.pawns if cls == PAWN else self.counts[cls]

    def text(self) -> str:
        """``K1 G1 D1 E1 O1`` (classes with none are left out)."""
        return " ".join(f"{LETTERS[c]}{n}" for c, n in enumerate(self.counts) if n)


DEFAULT_ARMY: Final = Army()


def parse_army(value: str | Mapping[str, int] | Army | None) -> Army:
    """An army from ``"K1 G1 D1 E1 O1"``, ``{"K": 1, ...}`` or None (the default)."""
    if value is None:
        return DEFAULT_ARMY
    if isinstance(value, Army):
        return value
    counts = [0] * PAWN
    items: list[tuple[str, int]] = []
    if isinstance(value, str):
        for token in value.replace(",", " ").split():
            m = _COUNT.fullmatch(token)
            if m is None:
                raise SoldiersOptionError(
                    "bad_army", f"{token!r} is not a class and count like G1", token=token
                )
            items.append((m[1], int(m[2]) if m[2] else 1))
            class_of(m[1], token)
    else:
        for key, n in value.items():
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise SoldiersOptionError(
                    "bad_army", f"{key!r}: a count is a whole number", token=str(key)
                )
            items.append((str(key), n))
    for letter, n in items:
        cls = class_of(letter, letter)
        if cls == PAWN:
            continue  # pawns are the rest: a count given for them is not used
        counts[cls] += n
    return Army((counts[0], counts[1], counts[2], counts[3], counts[4]))


# A side's placement: for each class checker (pawns excluded), its start point.
SidePlacement = tuple[tuple[int, int], ...]  # sorted (class, point) pairs, one per checker


@dataclass(frozen=True, slots=True)
class Placement:
    """Each side's class checkers on their start points (own numbering)."""

    sides: tuple[SidePlacement, SidePlacement]

    def text(self, side: int = 0) -> str:
        counted: dict[tuple[int, int], int] = {}
        for cls, q in self.sides[side]:
            counted[(cls, q)] = counted.get((cls, q), 0) + 1
        return " ".join(
            f"{LETTERS[c]}{q}" + (f"x{n}" if n > 1 else "")
            for (c, q), n in sorted(counted.items(), key=lambda item: (-item[0][1], item[0][0]))
        )


def _default_side(army: Army) -> SidePlacement:
    return tuple(
        sorted((cls, DEFAULT_POINTS[cls]) for cls in range(PAWN) for _ in range(army.counts[cls]))
    )


def _parse_side(text: str) -> SidePlacement:
    placed: list[tuple[int, int]] = []
    for token in text.replace(",", " ").split():
        m = _TOKEN.fullmatch(token)
        if m is None:
            raise SoldiersOptionError(
                "bad_placement", f"{token!r} is not a class and point like G13", token=token
            )
        cls = class_of(m[1], token)
        if cls == PAWN:
            raise SoldiersOptionError(
                "bad_placement", "pawns fill the start: only classes are placed", token=token
            )
        n = int(m[3]) if m[3] else 1
        placed.extend([(cls, int(m[2]))] * n)
    return tuple(sorted(placed))


def _check_side(army: Army, side: SidePlacement) -> None:
    for cls in range(PAWN):
        placed = sum(1 for c, _ in side if c == cls)
        if placed != army.counts[cls]:
            raise SoldiersOptionError(
                "placement_mismatch",
                f"the placement puts {placed} {LETTERS[cls]} where the army has {army.counts[cls]}",
                cls=LETTERS[cls],
                army=army.counts[cls],
                placed=placed,
            )
    used: dict[int, int] = {}
    for cls, q in side:
        used[q] = used.get(q, 0) + 1
        room = START.get(q, 0)
        if used[q] > room:
            raise SoldiersOptionError(
                "placement_no_room",
                f"{LETTERS[cls]}{q}: the start has {room} checker(s) on {q}, "
                f"{used[q]} classes placed there",
                cls=LETTERS[cls],
                point=q,
                room=room,
            )


def parse_placement(
    value: str | tuple[str, str] | Placement | None, army: Army = DEFAULT_ARMY
) -> Placement:
    """A placement from ``"K24 G13 D8 E6 O6"`` (both sides), a pair of such
    texts (white's, black's), or None (each class on its default point)."""
    if isinstance(value, Placement):
        sides = value.sides
    elif value is None:
        default = _default_side(army)
        sides = (default, default)
    elif isinstance(value, str):
        one = _parse_side(value)
        sides = (one, one)
    else:
        sides = (_parse_side(value[0]), _parse_side(value[1]))
    for side in sides:
        _check_side(army, side)
    return Placement(sides)


@dataclass(frozen=True, slots=True)
class Options:
    """The Soldiers options of a game, validated together."""

    army: Army = DEFAULT_ARMY
    placement: Placement | None = None

    def __post_init__(self) -> None:
        placement = parse_placement(self.placement, self.army)
        object.__setattr__(self, "placement", placement)

    @property
    def placed(self) -> Placement:
        assert self.placement is not None  # set by __post_init__
        return self.placement


def options(
    army: str | Mapping[str, int] | Army | None = None,
    placement: str | tuple[str, str] | Placement | None = None,
) -> Options:
    """Validated options from their written forms (None: the §3.1 defaults)."""
    parsed = parse_army(army)
    return Options(parsed, parse_placement(placement, parsed))
