"""GNU Backgammon (gnubg-nn) as a test oracle for short-family legal plays.

gnubg's board is ``[opponent, player on roll]``, each 25 counts in that
player's own numbering: index ``i`` is point ``i + 1`` and index 24 the bar;
borne-off checkers are implicit.  The boards behind the keys that
``gnubg_nn.moves`` returns keep the mover in slot 1 (nothing swapped).
"""

from __future__ import annotations

import gnubg_nn

from engine.rules.board import Position

GnubgBoard = list[list[int]]


def to_gnubg(position: Position, side: int) -> GnubgBoard:
    """Our position with ``side`` on roll, as gnubg's board."""
    return [list(position.sides[1 - side][1:26]), list(position.sides[side][1:26])]


def from_gnubg(
    board: tuple[tuple[int, ...], ...] | GnubgBoard, side: int, checkers: int
) -> Position:
    """gnubg's board (mover in slot 1) as our position with the mover as ``side``."""
    rows = []
    for counts in (board[1], board[0]):
        on_board = sum(counts)
        rows.append((checkers - on_board, *counts))
    me, opp = rows
    return Position((me, opp) if side == 0 else (opp, me))


def oracle_plays(
    position: Position, side: int, dice: tuple[int, int], checkers: int = 15
) -> set[Position]:
    """gnubg's set of positions after every legal play; the position itself when
    nothing can be played."""
    keys = gnubg_nn.moves(to_gnubg(position, side), dice[0], dice[1])
    if not keys:
        return {position}
    return {from_gnubg(gnubg_nn.board_from_position_key(key), side, checkers) for key in keys}
