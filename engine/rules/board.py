"""Board geometry and immutable positions.

Every side counts its own points 1..24 along its own path (24 where the path
starts, 1..6 its home).  A position stores, for each side, the number of
checkers at each index of that side's own numbering:

    index 0      borne off
    index 1..24  points in the side's own numbering
    index 25     the bar (or, in variants that enter from off the board, "not yet entered")

How one side's point maps to the other side's is data (`Geometry`), built
from each side's path over the 24 absolute locations; nothing branches on
the variant's name.

``Position.extra`` keys (variant state that is part of the position; pairs
sorted by key, so equal states compare and hash equal):

    "bomb"           Nuclear: the bomb's owner, None (nobody, like a centred
                     cube), 0 (white) or 1 (black); only the owner, or anybody
                     while it is None, may explode it (movegen.explode).
    "mother_pinned"  Plakoto: (white_pinned, black_pinned), bools: that side's
                     mother (the last checker on its own 24) is pinned at the
                     end of the last play (the game then ends with mars).
    "pinned"         Plakoto: (white_points, black_points), each a sorted tuple
                     of the points, in that side's own numbering, where that
                     side has a checker pinned (exactly one checker of that side
                     stands there, under one or more opposing checkers).
                     Every location holding checkers of both sides is listed for
                     exactly one of them.

Variants that start off the board (Dutch trictrac, Chase) keep the checkers
not yet entered on index 25: they enter exactly like checkers on the bar.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

WHITE: Final = 0
BLACK: Final = 1
OFF: Final = 0
BAR: Final = 25
POINTS: Final = 24
SLOTS: Final = 26  # off, 24 points, bar

SIDE_NAMES: Final = ("white", "black")


def other(side: int) -> int:
    return 1 - side


@dataclass(frozen=True, slots=True)
class Geometry:
    """Each side's path as the absolute location (0..23) of its points 24..1.

    ``paths[side][q - 1]`` is the absolute location of that side's point q.
    ``cross[side][q]`` is the opponent's point number for my point q
    (0 and 25 map to themselves' meaning-less 0; they are never looked up).
    """

    paths: tuple[tuple[int, ...], tuple[int, ...]]
    cross: tuple[tuple[int, ...], tuple[int, ...]]

    @classmethod
    def from_paths(cls, white: tuple[int, ...], black: tuple[int, ...]) -> Geometry:
        if sorted(white) != list(range(POINTS)) or sorted(black) != list(range(POINTS)):
            raise ValueError("a path must visit each of the 24 locations once")
        paths = (white, black)
        crosses: list[tuple[int, ...]] = []
        for side in (WHITE, BLACK):
            opp_path = paths[other(side)]
            point_at = {loc: q + 1 for q, loc in enumerate(opp_path)}
            crosses.append((0, *(point_at[paths[side][q - 1]] for q in range(1, 25)), 0))
        return cls(paths=paths, cross=(crosses[0], crosses[1]))

    def opponent_point(self, side: int, q: int) -> int:
        """The opponent's number for my point ``q`` (1..24)."""
        return self.cross[side][q]


# Opposite directions (short nardy family, Plakoto): opponent's q = my 25 - q.
OPPOSITE = Geometry.from_paths(
    tuple(range(POINTS)),
    tuple(POINTS - 1 - i for i in range(POINTS)),
)
# Same direction, heads opposite (long nardy family): opponent's head is my 12.
SAME_DIRECTION = Geometry.from_paths(
    tuple(range(POINTS)),
    tuple((i + 12) % POINTS for i in range(POINTS)),
)
# One shared path (Chase): opponent's q = my q.
SHARED = Geometry.from_paths(tuple(range(POINTS)), tuple(range(POINTS)))


@dataclass(frozen=True, slots=True)
class Position:
    """Checker counts of both sides, each in its own numbering (see module doc).

    ``extra`` carries variant state that is part of the position (a pinned
    checker, the nuclear bomb's owner); it is empty for the classic games and
    takes part in equality and hashing.
    """

    sides: tuple[tuple[int, ...], tuple[int, ...]]
    extra: tuple[tuple[str, object], ...] = ()

    @classmethod
    def from_points(
        cls,
        white: dict[int, int],
        black: dict[int, int],
        total: int = 15,
    ) -> Position:
        """Build from ``{point: count}`` maps; checkers not placed are borne off."""
        built: list[tuple[int, ...]] = []
        for counts in (white, black):
            row = [0] * SLOTS
            for q, n in counts.items():
                if not 1 <= q <= BAR:
                    raise ValueError(f"point {q} is not on the board")
                row[q] += n
            row[OFF] = total - sum(row[1:])
            if row[OFF] < 0:
                raise ValueError("more checkers than the side has")
            built.append(tuple(row))
        return cls(sides=(built[0], built[1]))

    def side(self, side: int) -> tuple[int, ...]:
        return self.sides[side]

    def pips(self, side: int) -> int:
        row = self.sides[side]
        return sum(q * row[q] for q in range(1, SLOTS))

    def checkers(self, side: int) -> int:
        return sum(self.sides[side])

    def get(self, key: str, default: object = None) -> object:
        """The ``extra`` value stored under ``key`` (``default`` when absent)."""
        for k, value in self.extra:
            if k == key:
                return value
        return default

    def with_extra(self, key: str, value: object) -> Position:
        """A copy with ``extra[key] = value`` (pairs kept sorted by key)."""
        pairs = dict(self.extra)
        pairs[key] = value
        return Position(self.sides, tuple(sorted(pairs.items())))

    def with_side(self, side: int, row: tuple[int, ...]) -> Position:
        if side == WHITE:
            return Position((row, self.sides[BLACK]), self.extra)
        return Position((self.sides[WHITE], row), self.extra)
