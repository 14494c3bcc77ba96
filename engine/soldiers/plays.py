"""Soldiers' legal plays: the generator for two different dice where it is exact
(`engine.soldiers.twodice`: one general at most); for doubles, the journeys
where no bear-off is within reach (`engine.soldiers.journeys`), else the walk
where it is exact (`engine.soldiers.doubles`: one general at most, every die
played, or nothing can enter); else the search (`movegen.searched_plays`).

Its own module so that the fast paths, which build on the search's step primitives,
and the search import nothing of each other's callers."""

from __future__ import annotations

from collections.abc import Sequence

from engine.soldiers.doubles import doubles_plays
from engine.soldiers.journeys import journey_plays
from engine.soldiers.movegen import SoldierPlay, dice_moves, searched_plays
from engine.soldiers.state import SoldiersPosition
from engine.soldiers.twodice import two_dice_plays


def legal_plays(position: SoldiersPosition, dice: Sequence[int]) -> list[SoldierPlay]:
    """Every legal play of ``dice`` for the side to move, one per resulting
    position; ``[SoldierPlay((), position with the turn passed)]`` when
    nothing can be played.  It gives the plays `searched_plays` gives: the
    same resulting positions, each with a legal path, the larger die first
    where both orders of two dice reach it (the order of the list and, among
    several paths so ordered, which one stands are the generator's own)."""
    moves = dice_moves(dice)
    if len(moves) == 2:
        fast = two_dice_plays(position, *moves)
        if fast is not None:
            return fast
    else:
        fast = journey_plays(position, moves[0])
        if fast is None:
            fast = doubles_plays(position, moves[0])
        if fast is not None:
            return fast
    return searched_plays(position, dice)
