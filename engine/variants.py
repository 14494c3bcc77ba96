"""Each variant as data: geometry, start, opening rule, dice, cube and scoring.

The move generator reads these fields; a rule that data cannot say becomes a
named flag here (``head_rule``, ``six_block_rule``) rather than a branch on
the variant's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine.board import OPPOSITE, SAME_DIRECTION, Geometry, Position


class Opening(Enum):
    # Each side rolls one die; the higher plays those two dice (short nardy, 002).
    USE_OPENING_DICE = "use_opening_dice"
    # Each side rolls one die; the higher re-rolls both dice and moves (long nardy, 000).
    REROLL = "reroll"


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    geometry: Geometry
    start: tuple[tuple[int, int], ...]  # (point, count) in each side's own numbering
    checkers: int = 15
    opening: Opening = Opening.USE_OPENING_DICE
    dice: int = 2
    # Landing on a lone opposing checker hits it (short family); in the long
    # family a single opposing checker already closes the point.
    hitting: bool = True
    closes_at: int = 2  # opposing checkers that close a point to me
    head_rule: bool = False  # long nardy: one checker off the head per turn (RULES §5)
    six_block_rule: bool = False  # long nardy: no six-block with nobody ahead (RULES §5)
    # Doubles that, on a side's first roll, let a second checker leave the head
    # when one head checker cannot play the whole roll (RULES §5: 6-6, 4-4, 3-3).
    head_exception_doubles: tuple[int, ...] = ()
    cube: bool = True
    scoring: str = "short-standard"  # scoring preset name (RULES §6)
    mover_names_dice: bool = False  # dice-less long nardy only

    def start_position(self) -> Position:
        counts = dict(self.start)
        return Position.from_points(counts, counts, total=self.checkers)

    @property
    def head(self) -> int:
        """The starting point of a side's path, in its own numbering."""
        return 24


SHORT = Variant(
    name="short",
    geometry=OPPOSITE,
    start=((24, 2), (13, 5), (8, 3), (6, 5)),
)
NACKGAMMON = Variant(
    name="nackgammon",
    geometry=OPPOSITE,
    start=((24, 2), (23, 2), (13, 4), (8, 3), (6, 4)),
)
HYPERGAMMON = Variant(
    name="hypergammon",
    geometry=OPPOSITE,
    start=((24, 1), (23, 1), (22, 1)),
    checkers=3,
)
LONG = Variant(
    name="long",
    geometry=SAME_DIRECTION,
    start=((24, 15),),
    opening=Opening.REROLL,
    hitting=False,
    closes_at=1,
    head_rule=True,
    six_block_rule=True,
    head_exception_doubles=(6, 4, 3),
    cube=False,
    scoring="long-masters",
)

VARIANTS: dict[str, Variant] = {v.name: v for v in (SHORT, LONG, NACKGAMMON, HYPERGAMMON)}


def get_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise KeyError(f"unknown variant {name!r}; known: {', '.join(sorted(VARIANTS))}") from None
