"""Soldiers (RULES.md §3.1): short nardy with checker classes.

Registered as ``engine.rules.variants.SOLDIERS`` (``checker_classes``): the
movegen entry points, the notation and the game's start hand a Soldiers game
to `bridge`, which speaks the registry's types (``Position`` with the
class-aware position under ``extra["soldiers"]``, ``ClassStep``,
``ClassMove``), so ``engine.rules.game`` plays it like short nardy.

Modules:

- `army`: the options ``army`` and ``placement``, validated
  (`SoldiersOptionError`: ``army_too_large``, ``unknown_class``,
  ``placement_no_room``, ``placement_mismatch``, ``bad_army``, ``bad_placement``);
- `state`: `SoldiersPosition` (classes per point, pins, side to move), the
  position text read (`parse_position`) and written (`.text()`, canonical),
  `start_position`;
- `movegen`: the search, `searched_plays` (every class rule, the whole-play
  conditions and the §2 forced-move rules), `winner`;
- `twodice`: `two_dice_plays`, the plays of two different dice without the
  search, for the positions where that is exact (one per resulting position,
  each with a legal path);
- `doubles`: `doubles_plays`, the same plays of a double without the
  search's bookkeeping (one general at most, every die played);
- `plays`: `legal_plays`, the fast paths where they answer, else the search;
- `notation`: `format_play`, `parse_moves`, `find_play` (§8 with class letters);
- `scoring`: `result` through the §6 presets (``short-standard`` by default);
- `record`: the project's own record (classes and pins kept) and
  `refuse_export` for Position ID, ``.mat`` and SGF;
- `bridge`: the registry's entry points for this variant (see above).

`SOLDIERS` (`variant()`) is the package's own descriptor (the CLI's
``python -m engine plays --variant soldiers --position 'W: ... | B: ... | W'
--dice 6-5`` reads texts with it).

Readings chosen where §3.1 leaves a choice:

1. A druid may not land at all on a point whose only opposing checker is a
   guard (not even after a first attacker): any landing there is an attack,
   and a druid is never an attacker.
2. The second attacker's landing is the capture; that checker may move on
   in the same turn (the guard's point is no longer a lone guard), and so
   may the first attacker.  A lone guard is not a landing place for one
   checker's intermediate point unless that landing is the capture.
3. The highest-checker rule counts every own checker on a higher point,
   pinned ones outside the home included: with a checker pinned outside,
   only exact bear-offs (and moves inside the home) remain.
4. With several generals on one point, which one moves is a choice the
   search branches on (each carries its start point and whether it hit).
   A general that steps back and forth uses its dice: with doubles a play
   may end with the general where it started and all four dice used.
5. Among paths to the same position, one that uses more dice (then larger
   dice) stands for the play; bearing off the last checker counts as every
   die, so a finished game's play is always among the longest.
6. A pinned checker is not a landing target for its owner's checkers: its
   point holds the opponent's checkers (two or more close it; a lone holder
   is hit as a blot, a lone guard needs two attackers).  Capturing or
   hitting the last holder frees the pinned checker where it stands.
7. The position after a play is written with the opponent to move (the
   CLI's JSON likewise); a Position ID keeps the mover, a Soldiers text
   names the side to move explicitly.
8. A written ``*`` is not checked when a play is read, and its absence is
   no claim that nothing was hit (as for §8); when written, it marks hits,
   pins and the capturing landing only.
9. A position text without an army is read as given (any classes); with an
   army each side's class counts must be that army's.  A placement must
   place exactly the army's class checkers; with no placement each class
   goes to its default point (K24 G13 D8 E6 O6), which fails with
   ``placement_no_room`` when the army has more of a class than that point
   holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.rules.variants import Variant
from engine.soldiers.army import Army, Options, options
from engine.soldiers.movegen import SoldierPlay, SoldierStep, winner
from engine.soldiers.notation import find_play, format_play, parse_moves
from engine.soldiers.plays import legal_plays
from engine.soldiers.record import SoldiersRecord, refuse_export
from engine.soldiers.scoring import BOARD, result
from engine.soldiers.state import SoldiersPosition, parse_position, start_position


@dataclass(frozen=True, slots=True)
class SoldiersVariant:
    """The engine-level descriptor: name, board for §6 scoring, defaults."""

    name: str = "soldiers"
    dice: int = 2
    cube: bool = True
    scoring: str = "short-standard"

    @property
    def board(self) -> Variant:
        """The registry's variant, whose plain board the §6 conditions read."""
        return BOARD

    def options(self, army: Any = None, placement: Any = None) -> Options:
        return options(army, placement)

    def start(self, opts: Options | None = None) -> SoldiersPosition:
        chosen = opts or options()
        return start_position(chosen.placed, chosen.army)


SOLDIERS = SoldiersVariant()


def variant() -> SoldiersVariant:
    return SOLDIERS


def plays_json(position_text: str, dice: Sequence[int]) -> list[dict[str, str]]:
    """The CLI's answer: each legal play's notation and resulting position text."""
    position = parse_position(position_text)
    return [
        {"notation": format_play(play), "position": play.position.text()}
        for play in legal_plays(position, dice)
    ]


__all__ = [
    "SOLDIERS",
    "Army",
    "Options",
    "SoldierPlay",
    "SoldierStep",
    "SoldiersPosition",
    "SoldiersRecord",
    "SoldiersVariant",
    "find_play",
    "format_play",
    "legal_plays",
    "options",
    "parse_moves",
    "parse_position",
    "plays_json",
    "refuse_export",
    "result",
    "start_position",
    "variant",
    "winner",
]
