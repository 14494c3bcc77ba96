"""Shared helpers: hand-made positions and their plays."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from engine.soldiers.army import GENERAL
from engine.soldiers.movegen import (
    SoldierPlay,
    apply_step,
    generals_at,
    legal_steps,
    position_of,
    view,
)
from engine.soldiers.notation import find_play, format_play
from engine.soldiers.plays import legal_plays
from engine.soldiers.state import LONE_GUARD, SoldiersPosition, parse_position


def pos(text: str) -> SoldiersPosition:
    return parse_position(text)


def plays(text: str, dice: tuple[int, int]) -> list[SoldierPlay]:
    return legal_plays(pos(text), dice)


def notations(text: str, dice: tuple[int, int]) -> set[str]:
    found = plays(text, dice)
    # every written play reads back to the play it was written from
    for play in found:
        assert find_play(pos(text), dice, format_play(play)) == play
    return {format_play(p) for p in found}


def after(text: str, dice: tuple[int, int], written: str) -> str:
    """The canonical text after the written play (it must be legal)."""
    return find_play(pos(text), dice, written).position.text()


def side_text(text: str, side: int) -> str:
    """One side's half of a position text, without its ``W:``/``B:``."""
    return text.split("|")[side].split(":", 1)[1].strip()


def legal_path(position: SoldiersPosition, play: SoldierPlay) -> bool:
    """Whether the play's steps are a legal sequence from ``position`` (each
    step among the board's legal steps for its die, the dice those of a
    roll) that ends on the play's position and keeps the whole-play
    conditions: no first attacker left alone on a guard, and a general
    (when the side has one) further back than it began only if it hit."""
    side = position.turn
    dice = [s.die for s in play.steps]
    # two dice, or up to four equal ones (fewer when the last checker is off)
    if len(dice) > 4 or (len(dice) > 2 and len(set(dice)) != 1):
        return False
    states = [view(position, side)]
    for step in play.steps:
        legal = (step.origin, step.cls, step.dest, step.effect)
        following = []
        for st in states:
            if legal not in legal_steps(st, step.die):
                continue
            choices = generals_at(st, step.origin) if step.cls == GENERAL else [None]
            following += [apply_step(st, *legal, general) for general in choices]
        if not following:
            return False
        states = following
    for st in states:
        me, op, _, _, gens = st
        attacker_alone = any(op[q] == LONE_GUARD and me[q] for q in range(1, 25))
        retreated = any(now > begun and not hit for now, begun, hit in gens)
        if (
            not attacker_alone
            and not retreated
            and position_of(position, side, st) == play.position
        ):
            return True
    return False


Roll = TypeVar("Roll")


def against_search(
    positions: Iterable[SoldiersPosition | None],
    rolls: Iterable[Roll],
    same: Callable[[SoldiersPosition, Roll], bool | None],
) -> tuple[int, list[tuple[str, Roll]]]:
    """Each position (None: skipped) with each roll through ``same`` (None
    where the generator declines, else whether it gives the search's
    plays): how many it answered, and where it differs."""
    rolls = list(rolls)
    compared = 0
    differences: list[tuple[str, Roll]] = []
    for position in positions:
        if position is None:
            continue
        for roll in rolls:
            answer = same(position, roll)
            compared += answer is not None
            if answer is False:
                differences.append((position.text(), roll))
    return compared, differences
