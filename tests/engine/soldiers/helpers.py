"""Shared helpers: hand-made positions and their plays."""

from __future__ import annotations

from engine.soldiers.movegen import SoldierPlay
from engine.soldiers.notation import find_play, format_play
from engine.soldiers.plays import legal_plays
from engine.soldiers.state import SoldiersPosition, parse_position


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
