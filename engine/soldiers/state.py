"""The class-aware Soldiers position and its text (RULES.md §3.1).

Each side keeps, in its own numbering, 26 slots (0 off, 1..24 points, 25 the
bar).  A slot of ``free`` packs the side's unpinned checkers there, five bits
per class (``count(v, c) = v >> 5c & 31``); since 32 ≡ 1 (mod 31) and a slot
holds at most 15 checkers, ``v % 31`` is the slot's total.  ``pinned[q]`` is
0, or 1 + the class of the side's checker pinned on its point ``q`` (under
the opposing checkers there; at most one per point).  Pinned checkers are
not in ``free``.

Position text: ``W: K24 P24 G13 P13x4 D8 P8x2 E6 O6 P6x3 | B: ... | W``.
`parse_position` reads any valid text; `SoldiersPosition.text` writes the
canonical one (every checker, bar then 24..1 then off, classes K G D E O P,
unpinned before pinned, ``xN`` only for N > 1).  Errors are
`PositionTextError` with a code: ``bad_position_text``, ``bad_token``
(``token``), ``too_many_checkers`` (``side``, ``count``), ``bad_pin``
(``side``, ``token``), ``mixed_point`` (``point``), ``army_mismatch``
(``side``, ``cls``).
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from engine.errors import EngineError
from engine.rules.board import BAR, BLACK, OFF, WHITE, Position
from engine.soldiers.army import (
    CHECKERS,
    CLASSES,
    DEFAULT_ARMY,
    GUARD,
    LETTERS,
    PAWN,
    START,
    Army,
    Placement,
    parse_placement,
)

SHIFT: Final = 5
ONE: Final = tuple(1 << (SHIFT * c) for c in range(CLASSES))
# A packed slot holding exactly one checker -> its class.
LONE: Final = {ONE[c]: c for c in range(CLASSES)}
LONE_GUARD: Final = ONE[GUARD]
SLOTS: Final = 26
SIDE_LETTERS: Final = "WB"

Row = tuple[int, ...]


class PositionTextError(EngineError):
    """A Soldiers position text that cannot be read."""


def total(v: int) -> int:
    """Checkers in a packed slot."""
    return v % 31


def count(v: int, cls: int) -> int:
    return v >> (SHIFT * cls) & 31


def classes(v: int) -> list[int]:
    """The classes present in a packed slot, in canonical order."""
    return [c for c in range(CLASSES) if v >> (SHIFT * c) & 31]


def mirror(q: int) -> int:
    """The opponent's number for my point ``q`` (Soldiers is short nardy: 25 - q)."""
    return 25 - q if 1 <= q <= 24 else q


class SoldiersPosition(NamedTuple):
    """Both sides' checkers by class, their pins, and the side to move.

    A named tuple, not a dataclass: the generators make one for every play
    (thousands a second), and a tuple is built in one call
    (`engine.soldiers.movegen._make`)."""

    free: tuple[Row, Row]
    pinned: tuple[Row, Row]
    turn: int = WHITE

    def checkers(self, side: int) -> int:
        return sum(total(v) for v in self.free[side]) + sum(1 for p in self.pinned[side] if p)

    def class_count(self, side: int, cls: int) -> int:
        return sum(count(v, cls) for v in self.free[side]) + sum(
            1 for p in self.pinned[side] if p == cls + 1
        )

    def at(self, side: int, q: int) -> int:
        """All of ``side``'s checkers on its point ``q`` (pinned included)."""
        return total(self.free[side][q]) + (1 if self.pinned[side][q] else 0)

    def off(self, side: int) -> int:
        return total(self.free[side][OFF])

    def to_position(self) -> Position:
        """Counts per point, pinned checkers where they stand (for §6 scoring
        and pip counts); classes and pins are dropped."""
        rows = tuple(tuple(self.at(side, q) for q in range(SLOTS)) for side in (WHITE, BLACK))
        return Position((rows[0], rows[1]))

    def with_turn(self, turn: int) -> SoldiersPosition:
        return SoldiersPosition(self.free, self.pinned, turn)

    def text(self) -> str:
        """The canonical position text."""
        halves = [f"{SIDE_LETTERS[s]}: {side_text(self, s)}" for s in (WHITE, BLACK)]
        return f"{halves[0]} | {halves[1]} | {SIDE_LETTERS[self.turn]}"

    def __str__(self) -> str:
        return self.text()


def _where(q: int) -> str:
    return "bar" if q == BAR else "off" if q == OFF else str(q)


def side_text(position: SoldiersPosition, side: int) -> str:
    tokens: list[str] = []
    free, pinned = position.free[side], position.pinned[side]
    for q in (BAR, *range(24, 0, -1), OFF):
        v = free[q]
        for cls in range(CLASSES):
            n = count(v, cls)
            if n:
                tokens.append(f"{LETTERS[cls]}{_where(q)}" + (f"x{n}" if n > 1 else ""))
            if pinned[q] == cls + 1:
                tokens.append(f"{LETTERS[cls]}{_where(q)}!")
    return " ".join(tokens)


_SIDE_HEAD: Final = re.compile(r"\s*([WBwb])\s*:(.*)", re.DOTALL)
_CHECKER: Final = re.compile(r"([KGDEOPkgdeop]?)(\d{1,2}|bar|off)(!?)(?:x(\d{1,2}))?", re.I)


def _error(code: str, reason: str, **data: object) -> PositionTextError:
    return PositionTextError(code, reason, **data)


def _read_side(body: str, side: int) -> tuple[list[int], list[int]]:
    free = [0] * SLOTS
    pinned = [0] * SLOTS
    listed = 0
    for token in body.split():
        m = _CHECKER.fullmatch(token)
        if m is None:
            raise _error(
                "bad_token", f"{token[:20]!r} is not a checker like G13 or P6x3", token=token
            )
        cls = LETTERS.index(m[1].upper()) if m[1] else PAWN
        where = m[2].lower()
        q = BAR if where == "bar" else OFF if where == "off" else int(where)
        if not 0 <= q <= BAR or (where not in ("bar", "off") and not 1 <= q <= 24):
            raise _error("bad_token", f"{token!r}: a point is 1..24, bar or off", token=token)
        n = int(m[4]) if m[4] else 1
        if n < 1:
            raise _error("bad_token", f"{token!r}: a count is 1 or more", token=token)
        listed += n
        if listed > CHECKERS:
            raise _error(
                "too_many_checkers",
                f"{SIDE_LETTERS[side]} lists more than {CHECKERS} checkers",
                side=side,
                count=listed,
            )
        if m[3]:
            if n != 1 or not 1 <= q <= 24 or pinned[q]:
                raise _error(
                    "bad_pin",
                    f"{token!r}: one checker at most is pinned on a point, never on bar or off",
                    side=side,
                    token=token,
                )
            pinned[q] = cls + 1
        else:
            free[q] += ONE[cls] * n
    free[OFF] += ONE[PAWN] * (CHECKERS - listed)
    return free, pinned


def parse_position(text: str, army: Army | None = None) -> SoldiersPosition:
    """Read a position text (any valid form); with ``army``, each side's
    classes must be that army's."""
    parts = text.split("|")
    if len(parts) != 3:
        raise _error(
            "bad_position_text",
            "a position is 'W: ... | B: ... | W' (two sides and the side to move)",
        )
    rows: list[tuple[list[int], list[int]]] = []
    for side, part in enumerate(parts[:2]):
        m = _SIDE_HEAD.fullmatch(part)
        if m is None or m[1].upper() != SIDE_LETTERS[side]:
            raise _error(
                "bad_position_text",
                f"part {side + 1} must start with '{SIDE_LETTERS[side]}:'",
            )
        rows.append(_read_side(m[2], side))
    turn_text = parts[2].strip().upper()
    if turn_text not in ("W", "B"):
        raise _error("bad_position_text", "the side to move is W or B")
    position = SoldiersPosition(
        (tuple(rows[0][0]), tuple(rows[1][0])),
        (tuple(rows[0][1]), tuple(rows[1][1])),
        SIDE_LETTERS.index(turn_text),
    )
    check_position(position)
    if army is not None:
        for side in (WHITE, BLACK):
            for cls in range(CLASSES):
                if position.class_count(side, cls) != army.count(cls):
                    raise _error(
                        "army_mismatch",
                        f"{SIDE_LETTERS[side]} has {position.class_count(side, cls)} "
                        f"{LETTERS[cls]}, the army {army.count(cls)}",
                        side=side,
                        cls=LETTERS[cls],
                    )
    return position


def check_position(position: SoldiersPosition) -> None:
    """Refuse a point shared by both sides unless it is one pin: the pinned
    side has only its pinned checker there, the other side at least one."""
    for q in range(1, 25):
        p = mirror(q)
        mine = position.at(WHITE, q)
        theirs = position.at(BLACK, p)
        wpin, bpin = position.pinned[WHITE][q], position.pinned[BLACK][p]
        if wpin and bpin:
            raise _error("bad_pin", f"both sides pinned on white's {q}", side=WHITE, token=str(q))
        for pin, side, own, other_free in (
            (wpin, WHITE, mine, total(position.free[BLACK][p])),
            (bpin, BLACK, theirs, total(position.free[WHITE][q])),
        ):
            if pin and (own != 1 or not other_free):
                raise _error(
                    "bad_pin",
                    f"a pinned checker of {SIDE_LETTERS[side]} stands alone under the "
                    "opposing checkers of its point",
                    side=side,
                    token=str(q if side == WHITE else p),
                )
        if mine and theirs and not (wpin or bpin):
            raise _error("mixed_point", f"both sides on white's {q} and nothing pinned", point=q)
        # A lone guard with an opposing checker beside it is an unfinished capture.
        if (position.free[WHITE][q] == LONE_GUARD and total(position.free[BLACK][p])) or (
            position.free[BLACK][p] == LONE_GUARD and total(position.free[WHITE][q])
        ):
            raise _error("mixed_point", f"a lone guard beside an attacker on white's {q}", point=q)


def start_position(
    placement: Placement | None = None, army: Army = DEFAULT_ARMY
) -> SoldiersPosition:
    """The §2 start with the class checkers where ``placement`` puts them."""
    placed = parse_placement(placement, army)
    rows: list[Row] = []
    for side in (WHITE, BLACK):
        row = [0] * SLOTS
        room = dict(START)
        for cls, q in placed.sides[side]:
            row[q] += ONE[cls]
            room[q] -= 1
        for q, n in room.items():
            row[q] += ONE[PAWN] * n
        rows.append(tuple(row))
    empty = (0,) * SLOTS
    return SoldiersPosition((rows[0], rows[1]), (empty, empty), WHITE)
