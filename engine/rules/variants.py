"""Each variant as data: geometry, start, opening rule, dice, cube and scoring.

The move generator reads these fields; a rule that data cannot say becomes a
named flag here (``head_rule``, ``six_block_rule``, ``pinning``...) rather than
a branch on the variant's name.

Registered variants (``VARIANTS``, RULES.md §2-§5):

- ``short`` (§2), ``nackgammon``, ``hypergammon``, ``longgammon``, ``jacquet``
  (all 15 on own 24, otherwise §2), ``dutch`` (all 15 start on the bar),
  ``chase`` (one shared path; all 15 start waiting to enter, stored on the
  bar slot), ``garanquet`` (three dice), ``caucasian`` (no hit-and-hide in
  the home), ``tavla`` (no hit-and-run in the home, forced bear-off),
  ``old-english`` (dice may be left unplayed, at most 5 on a point),
  ``sudden-death`` (the first hit wins), ``nuclear`` (the bomb token),
  ``plakoto`` (pinning instead of hitting), ``nauka-short`` (§4);
- ``long`` (§5), ``nardegammon`` (long nardy with the cube, opening dice
  used), ``diceless-long`` (the mover names the dice);
- ``soldiers`` (§3.1, checker classes): ``checker_classes`` says so.  Its
  rules live in ``engine.soldiers``; a ``Position`` of it keeps the
  class-aware position under ``extra["soldiers"]`` (its ``sides`` are the
  plain counts, pinned checkers where they stand, which §6 scoring and the
  game's end read unchanged).  The movegen entry points, the notation and the
  game's start go to ``engine.soldiers.bridge`` on that one flag.

Variant options (``VariantOptions``): settings of a variant that an organiser
chooses per discipline and that change the start (Soldiers' ``army`` and
``placement``, §3.1).  A game's options are in ``GameRules.options``; a
variant without options refuses any.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from engine.rules.board import BAR, OPPOSITE, SAME_DIRECTION, SHARED, Geometry, Position


class Opening(Enum):
    # Each side rolls one die; the higher plays those two dice (short nardy, 002).
    USE_OPENING_DICE = "use_opening_dice"
    # Each side rolls one die; the higher re-rolls both dice and moves (long nardy, 000).
    REROLL = "reroll"
    # Each side rolls one die; the higher plays White and uses those two dice (Nauka, 001).
    HIGHER_PLAYS_WHITE = "higher_plays_white"


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    geometry: Geometry
    start: tuple[tuple[int, int], ...]  # (point, count) in each side's own numbering; 25 = bar
    checkers: int = 15
    opening: Opening = Opening.USE_OPENING_DICE
    dice: int = 2  # dice rolled per turn (3 in Garanquet)
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

    # --- game-level flags (read by engine/rules/game.py; the move generator ignores them)
    first_hit_wins: bool = False  # Sudden death: the first hit ends the game
    nuclear: bool = False  # Nuclear: the bomb token exists (extra key "bomb")

    # --- movement flags (read by engine/movegen/)
    # Plakoto: landing on a lone opposing checker pins it (needs hitting=False);
    # pins and the mother live in Position.extra (see engine/rules/board.py).
    pinning: bool = False
    # Caucasian: a checker that hit in its owner's home may not, that turn,
    # land on an own checker or bear off, unless that is the only way to play the die.
    no_hit_and_hide_in_home: bool = False
    # Tavla: a checker that hit in its owner's home may not move again that turn.
    no_hit_and_run_in_home: bool = False
    # Tavla: a play must bear off as many checkers as any legal play does.
    forced_bear_off: bool = False
    # Old English: any die may be left unplayed (at least one step when one is possible).
    optional_dice: bool = False
    # Nauka: a turn that starts with bear-off allowed may leave dice unplayed
    # (at least one step when one is possible).
    partial_bear_off: bool = False
    max_per_point: int = 0  # most own checkers on one point; 0 = no limit (Old English: 5)
    # Variant state that is part of the start position (see engine/rules/board.py).
    start_extra: tuple[tuple[str, object], ...] = ()
    # Soldiers (RULES §3.1): checkers have classes; plays, notation and the start
    # (built from the options) come from engine.soldiers.bridge, never the generators here.
    checker_classes: bool = False
    # The options the variant takes (``VariantOptions`` keys); empty: none.
    option_names: tuple[str, ...] = ()

    def start_position(self) -> Position:
        counts = dict(self.start)
        position = Position.from_points(counts, counts, total=self.checkers)
        if self.start_extra:
            position = Position(position.sides, self.start_extra)
        return position

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

_SHORT_START = SHORT.start
_ALL_ON_24 = ((24, 15),)

LONGGAMMON = Variant(name="longgammon", geometry=OPPOSITE, start=_ALL_ON_24)
JACQUET = Variant(name="jacquet", geometry=OPPOSITE, start=_ALL_ON_24)
DUTCH = Variant(name="dutch", geometry=OPPOSITE, start=((BAR, 15),))
# Chase's "not yet entered" checkers sit on the bar slot: 001 says "otherwise
# as short nardy", so they enter exactly like hit checkers (zone A = own
# 24..19) and nothing else moves while any of them waits.
CHASE = Variant(name="chase", geometry=SHARED, start=((BAR, 15),))
# Three dice; the opening winner rolls all three (two opening dice cannot be
# a Garanquet roll).
GARANQUET = Variant(
    name="garanquet",
    geometry=OPPOSITE,
    start=_SHORT_START,
    dice=3,
    opening=Opening.REROLL,
)
CAUCASIAN = Variant(
    name="caucasian",
    geometry=OPPOSITE,
    start=_SHORT_START,
    no_hit_and_hide_in_home=True,
)
TAVLA = Variant(
    name="tavla",
    geometry=OPPOSITE,
    start=_SHORT_START,
    opening=Opening.REROLL,
    no_hit_and_run_in_home=True,
    forced_bear_off=True,
    cube=False,
    scoring="tavla",
)
OLD_ENGLISH = Variant(
    name="old-english",
    geometry=OPPOSITE,
    start=_SHORT_START,
    optional_dice=True,
    max_per_point=5,
    cube=False,
    scoring="single",
)
SUDDEN_DEATH = Variant(
    name="sudden-death",
    geometry=OPPOSITE,
    start=_SHORT_START,
    first_hit_wins=True,
    scoring="single",
)
NUCLEAR = Variant(
    name="nuclear",
    geometry=OPPOSITE,
    start=_SHORT_START,
    nuclear=True,
    start_extra=(("bomb", None),),
)
PLAKOTO = Variant(
    name="plakoto",
    geometry=OPPOSITE,
    start=_ALL_ON_24,
    hitting=False,
    closes_at=2,
    pinning=True,
    scoring="plakoto",
    start_extra=(("mother_pinned", (False, False)), ("pinned", ((), ()))),
)
NAUKA_SHORT = Variant(
    name="nauka-short",
    geometry=OPPOSITE,
    start=_SHORT_START,
    opening=Opening.HIGHER_PLAYS_WHITE,
    partial_bear_off=True,
    cube=False,
    scoring="short-nauka-1980",
)
NARDEGAMMON = Variant(
    name="nardegammon",
    geometry=SAME_DIRECTION,
    start=LONG.start,
    opening=Opening.USE_OPENING_DICE,
    hitting=False,
    closes_at=1,
    head_rule=True,
    six_block_rule=True,
    head_exception_doubles=LONG.head_exception_doubles,
    cube=True,
    scoring="long-masters",
)
# Nobody rolls: the mover names the dice (``opening`` is kept at REROLL but
# means nothing here; the game decides who starts).
DICELESS_LONG = Variant(
    name="diceless-long",
    geometry=SAME_DIRECTION,
    start=LONG.start,
    opening=Opening.REROLL,
    hitting=False,
    closes_at=1,
    head_rule=True,
    six_block_rule=True,
    head_exception_doubles=LONG.head_exception_doubles,
    cube=False,
    scoring="long-masters",
    mover_names_dice=True,
)

# Short nardy with checker classes (RULES §3.1): army and placement are options;
# the placement's second side, when the organiser sets two, is ``placement_black``.
SOLDIERS = Variant(
    name="soldiers",
    geometry=OPPOSITE,
    start=_SHORT_START,
    checker_classes=True,
    option_names=("army", "placement", "placement_black"),
)

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        SHORT,
        LONG,
        NACKGAMMON,
        HYPERGAMMON,
        LONGGAMMON,
        JACQUET,
        DUTCH,
        CHASE,
        GARANQUET,
        CAUCASIAN,
        TAVLA,
        OLD_ENGLISH,
        SUDDEN_DEATH,
        NUCLEAR,
        PLAKOTO,
        NAUKA_SHORT,
        NARDEGAMMON,
        DICELESS_LONG,
        SOLDIERS,
    )
}

# A variant's options as sorted (name, written value) pairs, hashable and
# comparable like the rest of a game's rules; empty values are left out.
VariantOptions = tuple[tuple[str, str], ...]
NO_OPTIONS: Final[VariantOptions] = ()


def variant_options(values: dict[str, str] | None = None) -> VariantOptions:
    """Options from a mapping of written values (``{"army": "K1 G1"}``)."""
    if not values:
        return NO_OPTIONS
    return tuple(sorted((str(k), str(v).strip()) for k, v in values.items() if str(v).strip()))


def get_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise KeyError(f"unknown variant {name!r}; known: {', '.join(sorted(VARIANTS))}") from None
