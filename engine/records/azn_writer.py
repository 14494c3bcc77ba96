"""Writing a game in Azerbaijani notation (``engine.records.azn``): one move
number a line, each part closed by a period, em dashes, the dice in the order
given, ``*`` and ``X`` where they are true: ``1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.``
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from engine import movegen
from engine.errors import EngineError
from engine.records.azn import (
    BEAR_OFF,
    ENTER,
    HOME,
    MOVE,
    AznGame,
    AznMove,
    AznTurn,
    Layout,
    layout,
    make_move,
)
from engine.rules.board import BAR, OFF, WHITE, Position, other
from engine.rules.plays import Play
from engine.rules.variants import Variant

PlayedTurn = tuple[Sequence[int] | None, Play]


def azn_turn(
    variant: Variant,
    before: Position,
    side: int,
    dice: Sequence[int] | None,
    play: Play,
    number: int,
) -> AznTurn:
    """``play`` (from ``before``, by ``side``) as a written part: entries
    first, then board moves (a checker's consecutive steps merged, landings
    kept where it hit), then bear-offs; equal moves counted; ``*`` on the
    move that brings the last checker home; ``X`` when it bears off the last.

    Merging moves two checkers' steps as one; where the order of those steps
    matters (a per-point cap) the merged writing may not replay, so it is
    checked with the move generator and, failing that, each step is written
    as its own move."""
    board = layout(variant)
    written_dice: tuple[int, int] | None = None
    if dice is not None:
        values = tuple(dice)
        if len(values) != 2:
            raise ValueError(f"two dice expected, got {values}")
        written_dice = (values[0], values[1])
    if not play.steps:
        return AznTurn(number, side, written_dice, (), no_move=True)
    moves = _written(board, side, play, merge=True)
    if written_dice is not None and not _replays(variant, before, side, written_dice, moves, play):
        moves = _written(board, side, play, merge=False)
    row = list(before.side(side))
    if any(row[HOME + 1 :]):
        for k, move in enumerate(moves):
            for journey in move.journeys:
                row[journey.origin] -= 1
                row[journey.dest] += 1
            if not any(row[HOME + 1 :]):
                moves[k] = dataclasses.replace(move, home=True)
                break
    won = play.position.side(side)[OFF] == variant.checkers
    return AznTurn(number, side, written_dice, tuple(moves), won=won)


def _written(board: Layout, side: int, play: Play, *, merge: bool) -> list[AznMove]:
    hit_points = {s.dest for s in play.steps if s.hit}
    pieces: list[tuple[str, tuple[int, ...]]] = []
    # An entry that hits names its field twice (d4:d4), one that does not once.
    pieces += [
        (ENTER, (s.dest, s.dest) if s.hit else (s.dest,)) for s in play.steps if s.origin == BAR
    ]
    board_steps = sorted(
        ((s.origin, s.dest) for s in play.steps if s.origin != BAR and s.dest != OFF),
        reverse=True,
    )
    used = [False] * len(board_steps)
    for i, (origin, dest) in enumerate(board_steps):
        if used[i]:
            continue
        chain = [origin, dest]
        for j in range(i + 1, len(board_steps)):
            if merge and not used[j] and board_steps[j][0] == chain[-1]:
                if chain[-1] not in hit_points:
                    chain.pop()
                chain.append(board_steps[j][1])
                used[j] = True
        pieces.append((MOVE, tuple(chain)))
    offs = sorted((s.origin for s in play.steps if s.dest == OFF and s.origin != BAR), reverse=True)
    pieces += [(BEAR_OFF, (q,)) for q in offs]

    marked: set[int] = set()
    counted: dict[tuple[tuple[str, ...], tuple[bool, ...]], int] = {}
    for kind, points in pieces:
        marks: list[bool] = []
        if kind == ENTER and len(points) == 2:
            marks.append(True)
            marked.add(points[1])
        if kind == MOVE:
            for q in points[1:]:
                hit = q in hit_points and q not in marked
                if hit:
                    marked.add(q)
                marks.append(hit)
        item = (tuple(board.field(side, q) for q in points), tuple(marks))
        counted[item] = counted.get(item, 0) + 1
    return [make_move(board, side, fields, marks, n) for (fields, marks), n in counted.items()]


def _replays(
    variant: Variant,
    before: Position,
    side: int,
    dice: tuple[int, int],
    moves: Sequence[AznMove],
    play: Play,
) -> bool:
    journeys = [j for m in moves for j in m.journeys]
    first_turn = movegen.is_first_turn(variant, before, side)
    try:
        found = movegen.find_play(variant, before, side, dice, journeys, first_turn=first_turn)
    except EngineError:
        return False
    return found.position == play.position


def format_azn(
    turns: AznGame | Sequence[AznTurn] | Sequence[PlayedTurn],
    variant: Variant,
    *,
    start: Position | None = None,
    first: int = WHITE,
) -> str:
    """Write a game in AZN, one move number a line (``1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.``).

    ``turns``: a parsed game (or its turns), or ``(dice, Play)`` for each
    side's turn in order from ``start`` (default the variant's), the first
    by ``first``; dice None with an empty play is a turn passed unrolled.
    """
    items: Sequence[AznTurn | PlayedTurn] = turns.turns if isinstance(turns, AznGame) else turns
    written: list[AznTurn] = []
    position = start if start is not None else variant.start_position()
    side = first
    number = 1
    for item in items:
        if isinstance(item, AznTurn):
            written.append(item)
            continue
        dice, play = item
        written.append(azn_turn(variant, position, side, dice, play, number))
        position = play.position
        if side != WHITE:
            number += 1
        side = other(side)
    lines: list[str] = []
    for turn in written:
        if turn.side == WHITE or not lines or not lines[-1].startswith(f"{turn.number}. "):
            lines.append(f"{turn.number}." + ("" if turn.side == WHITE else " ..."))
        lines[-1] += " " + turn.format()
    return "\n".join(lines) + "\n"
