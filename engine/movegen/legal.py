"""`legal_plays`: the generator the variant's rules call for."""

from __future__ import annotations

from collections.abc import Sequence

from engine.movegen.fast import _doubles, _doubles_in_play, _two_dice
from engine.movegen.primitives import _build, _rules, dice_moves
from engine.movegen.search import _search, _second_head_checker
from engine.movegen.special import _special_plays
from engine.rules.board import Position
from engine.rules.plays import Play
from engine.rules.variants import Variant
from engine.soldiers import bridge


def legal_plays(
    variant: Variant,
    position: Position,
    side: int,
    dice: Sequence[int],
    *,
    first_turn: bool = False,
) -> list[Play]:
    """Every legal play for ``side`` with ``dice``, one per distinct resulting
    position; ``[Play((), position)]`` when nothing can be played."""
    if variant.checker_classes:  # Soldiers: the classes' own rules (engine.soldiers)
        return bridge.legal_plays(position, side, dice)
    r = _rules(variant)
    moves = dice_moves(variant, dice)
    if r.simple:
        if len(moves) == 2:
            return _two_dice(r, side, position, moves[0], moves[1])
        elif len(moves) == 4 and moves[0] == moves[3]:
            found = _doubles_in_play(r, side, position, moves[0])
            if found is None:
                found = _doubles(r, side, position, moves[0])
            return _build(r, side, position, found.values())
    elif r.special:
        return _special_plays(r, side, position, moves)
    s = _search(r, side, position, moves, 1)
    if _second_head_checker(r, moves, first_turn, s.best_n):
        s = _search(r, side, position, moves, 2)
    return _build(r, side, position, s.results.values())
