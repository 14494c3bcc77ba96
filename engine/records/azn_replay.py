"""Replaying an Azerbaijani-notation record (``engine.records.azn``) on the
engine: each side's part is one ``RecordedTurn`` of ``engine.rules.actions``,
its ``*`` and ``X`` marks checked against the result, and the engine's
refusals told in the record's own fields.  ``replay_azn`` reports the
earliest problem in the record: an illegal move before a later unreadable
token is reported first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from engine.errors import EngineError, IllegalPlay
from engine.records.azn import (
    DASH,
    HOME,
    AznError,
    AznGame,
    AznTurn,
    Layout,
    azn_error,
    layout,
    read_azn,
)
from engine.records.notation import EMPTY_PLAY, format_moves
from engine.records.replay import ReplayResult
from engine.rules import game as g
from engine.rules.actions import RecordedTurn, apply
from engine.rules.board import BAR, OFF, SIDE_NAMES, Position
from engine.rules.plays import Move
from engine.rules.scoring import ScoringPreset
from engine.rules.variants import Variant


def replay_azn(
    text: str,
    variant: Variant,
    preset: ScoringPreset | None = None,
    *,
    start: Position | None = None,
) -> dict[str, Any]:
    """Replay an AZN record through the engine from the variant's start (or
    ``start``): the same dict as ``engine.records.replay.replay(...).to_dict()`` for
    the same game.  Raises ``AznError`` at the earliest problem (module doc)."""
    game, failure = read_azn(text, variant)
    state = replay_turns(game, variant, preset, start=start, lines=text.splitlines())
    if failure is not None:
        raise failure
    return ReplayResult(state, len(game.turns)).to_dict()


def replay_turns(
    game: AznGame,
    variant: Variant,
    preset: ScoringPreset | None = None,
    *,
    start: Position | None = None,
    lines: Sequence[str] = (),
) -> g.GameState:
    """The game state after playing ``game``'s turns (``lines``: the source,
    quoted in errors)."""
    state = g.new_game(g.GameRules(variant, scoring=preset), position=start)
    for turn in game.turns:
        state = _play_turn(state, turn, lines)
    return state


def _play_turn(state: g.GameState, turn: AznTurn, lines: Sequence[str]) -> g.GameState:
    """One part, driven the way engine.records.replay drives a turn line."""
    if state.finished:
        raise azn_error(
            "game_over", "the game is already over", turn.number, turn.side, turn.line, lines
        )
    try:
        after = apply(state, RecordedTurn(turn.dice, tuple(turn.journeys), side=turn.side))
    except EngineError as err:
        raise _engine_error(err, turn, lines, layout(state.variant)) from err
    if turn.dice is None:
        return after  # passed without a roll: nothing was played, nothing to check
    _check_marks(state.position, after, turn, lines)
    return after


def _check_marks(before: Position, after: g.GameState, turn: AznTurn, lines: Sequence[str]) -> None:
    mover = turn.side
    row = list(before.side(mover))
    for move in turn.moves:
        for j in move.journeys:
            row[j.origin] -= 1
            row[j.dest] += 1
        if move.home and any(row[HOME + 1 :]):
            token = move.text or move.format()
            raise azn_error(
                "false_home_mark",
                f"{token}: '*' says all {SIDE_NAMES[mover]}'s checkers are home after it, "
                f"but {sum(row[HOME + 1 :])} are not",
                turn.number,
                mover,
                move.line or turn.line,
                lines,
                token=token,
            )
    result = after.result
    if turn.won and (result is None or result.winner != mover):
        raise azn_error(
            "false_win_mark",
            "'X' says this turn wins the game, but the game goes on",
            turn.number,
            mover,
            turn.line,
            lines,
            token="X",
        )


def _engine_error(err: EngineError, turn: AznTurn, lines: Sequence[str], board: Layout) -> AznError:
    written = {_engine_text(m.journeys[0]): m for m in turn.moves}
    engine_move = err.data.get("move")
    culprit = written.get(engine_move) if isinstance(engine_move, str) else None
    data: dict[str, Any] = {"rule": err.code, "engine_reason": err.reason}
    if isinstance(engine_move, str):
        data["engine_move"] = engine_move
    line = turn.line
    if culprit is not None:
        data["token"] = culprit.text or culprit.format()
        line = culprit.line or line
    dice = "" if turn.dice is None else f"{turn.dice[0]}/{turn.dice[1]}"
    side = SIDE_NAMES[turn.side]
    if isinstance(err, IllegalPlay) and err.code == "dice_mismatch":
        if culprit is not None:
            why = f"{data['token']} ({engine_move} in {side}'s numbering) is not a move of {dice}"
        else:
            listed = ", ".join(
                f"{m.text or m.format()} ({_engine_text(m.journeys[0])})" for m in turn.moves
            )
            why = f"these moves use more than {dice} gives: {listed}"
        return azn_error("dice_mismatch", why, turn.number, turn.side, line, lines, **data)
    reason = err.reason
    if isinstance(engine_move, str) and reason.startswith(engine_move + ": "):
        reason = reason[len(engine_move) + 2 :]
    if culprit is not None:
        reason = f"{data['token']} ({engine_move} in {side}'s numbering): {reason}"
    example = err.data.get("example")
    if isinstance(example, str):
        data["example"] = _azn_example(example, board, turn.side)
        reason += f" (in fields: {data['example']})"
    point = err.data.get("point")
    if isinstance(point, int) and 1 <= point <= 24:
        data["field"] = board.field(turn.side, point)
    code = "illegal_move" if isinstance(err, IllegalPlay) else "illegal_turn"
    return azn_error(code, reason, turn.number, turn.side, line, lines, **data)


_ENGINE_STEP: Final = re.compile(r"(?P<o>bar|\d+)/(?P<d>off|\d+)(?P<hit>\*?)")


def _azn_example(example: str, board: Layout, side: int) -> str:
    """The move generator's example play (``24/18 13/8*``) written in fields."""
    if example == EMPTY_PLAY:
        return "Z"
    out = []
    for m in _ENGINE_STEP.finditer(example):
        if m["o"] == "bar":
            out.append(board.field(side, int(m["d"])))
        elif m["d"] == "off":
            out.append(board.field(side, int(m["o"])))
        else:
            sep = ":" if m["hit"] else DASH
            out.append(board.field(side, int(m["o"])) + sep + board.field(side, int(m["d"])))
    return ", ".join(out)


def _engine_text(move: Move) -> str:
    """A journey as the move generator names it in errors (``13/7*/5``, ``bar/22``)."""
    points = [move.origin, *move.via, move.dest]
    parts = []
    for i, q in enumerate(points):
        text = (
            "bar" if i == 0 and q == BAR else "off" if i == len(points) - 1 and q == OFF else str(q)
        )
        if i and q in move.hits:
            text += "*"
        parts.append(text)
    return "/".join(parts)


def to_replay_text(game: AznGame) -> str:
    """The game in engine.records.replay's line syntax (``W 5-1: 13/8 24/23``)."""
    out = []
    for turn in game.turns:
        dice = "?-?" if turn.dice is None else f"{turn.dice[0]}-{turn.dice[1]}"
        moves = format_moves(turn.journeys) if turn.journeys else EMPTY_PLAY
        out.append(f"{'WB'[turn.side]} {dice}: {moves}")
    return "\n".join(out) + "\n"
