"""Engine positions as the 26-slot signed board of bgsage (and eXtreme Gammon).

The board is seen from the player on roll: index 1..24 are that player's
points (their own numbering, 24 where they start), their checkers counted
positive and the opponent's negative; index 25 is the mover's bar and index 0
the opponent's bar (a count, positive).  Borne-off checkers are implicit.

In the engine (``engine.rules.board``) each side counts its own points, and in
the backgammon family the opponent's point ``25 - q`` is the mover's ``q``.
GNU Backgammon's Position ID (``engine.records.gnubgid``) holds the same
information, but bgsage takes boards, not IDs, so this conversion is the one
the analysers use.
"""

from __future__ import annotations

from engine.rules.board import BAR, OPPOSITE, Position, other
from engine.rules.variants import Variant

BOARD_SLOTS = 26


def signed_board(position: Position, side: int) -> list[int]:
    """``position`` with ``side`` on roll (or just moved) as a signed board."""
    mine, theirs = position.sides[side], position.sides[other(side)]
    return [theirs[BAR]] + [mine[q] - theirs[BAR - q] for q in range(1, BAR)] + [mine[BAR]]


def has_board(variant: Variant) -> bool:
    """Whether the variant's positions fit the signed board at all: opposite
    directions, no state beyond the checkers, at most 15 checkers a side."""
    return variant.geometry == OPPOSITE and not variant.start_extra and variant.checkers <= 15
