"""The end of a Soldiers game and its result (RULES.md §3.1, §6).

The result uses the §6 preset code unchanged: the class-aware position is
read as plain counts with every checker where it stands, pinned ones
included (a loser's checker pinned on its 19..24 is in the winner's home).
"""

from __future__ import annotations

from engine.rules.scoring import ScoringPreset, get_preset, score
from engine.rules.variants import SOLDIERS, Variant
from engine.soldiers.movegen import winner
from engine.soldiers.state import SoldiersPosition

# The board and scoring the §6 conditions read: the registry's variant.
BOARD: Variant = SOLDIERS


def result(
    position: SoldiersPosition, preset: ScoringPreset | None = None
) -> tuple[int, str, int] | None:
    """``(winner, result name, multiplier)`` once a side has borne off all
    its checkers, else None; the preset is short-standard unless given."""
    won = winner(position)
    if won is None:
        return None
    chosen = preset if preset is not None else get_preset(BOARD.scoring)
    name, multiplier = score(chosen, BOARD, position.to_position(), 1 - won)
    return won, name, multiplier
