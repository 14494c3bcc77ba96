"""Hand-made match records for the analysis tests.

``Turn`` lists say what each side does in turn order (white opens); plays are
chosen among the engine's legal plays by a ``chooser`` (the first by default,
or the best or worst of an analyser), so every record is one the engine
accepts.  Only what the analysis reads is real: actions, score, Crawford flag;
the result is a resignation stated after the last action.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from analysis.core.model import CheckerQuery, CubeContext
from engine.movegen import legal_plays
from engine.records.record import (
    DOUBLE,
    DROP,
    PLAY,
    TAKE,
    MatchRecord,
    MatchSettings,
    RecordAction,
    RecordedGame,
)
from engine.rules import game as g
from engine.rules.board import Position
from engine.rules.plays import Play
from engine.rules.variants import SHORT, Variant

Chooser = Callable[[CheckerQuery, Sequence[Play]], int]


@dataclass(frozen=True)
class Turn:
    """One side's turn: an optional double before rolling (answered ``take`` or
    ``drop``), then a roll with ``dice`` (None when the double was dropped)."""

    dice: tuple[int, int] | None
    double: str | None = None  # "take" | "drop"


def first_play(query: CheckerQuery, plays: Sequence[Play]) -> int:
    return 0


def make_game(
    turns: Sequence[Turn],
    *,
    number: int = 1,
    length: int = 7,
    score: tuple[int, int] = (0, 0),
    crawford: bool = False,
    chooser: Chooser = first_play,
    variant: Variant = SHORT,
) -> RecordedGame:
    position: Position = variant.start_position()
    actions: list[RecordAction] = []
    cube, owner = 1, None
    side = 0
    for turn in turns:
        if turn.double is not None:
            actions.append(RecordAction(0, side, DOUBLE, value=2 * cube))
            answer = TAKE if turn.double == "take" else DROP
            actions.append(RecordAction(0, 1 - side, answer))
            if answer == DROP:
                break
            cube, owner = 2 * cube, 1 - side
        assert turn.dice is not None
        plays = legal_plays(variant, position, side, turn.dice)
        away = (length - score[side], length - score[1 - side]) if length else (0, 0)
        context = CubeContext(
            cube, "centred" if owner is None else "mover" if owner == side else "opponent", away
        )
        candidates = tuple(p.position for p in plays)
        query = CheckerQuery(variant, position, side, turn.dice, candidates, 0, context)
        chosen = plays[chooser(query, plays)]
        actions.append(RecordAction(0, side, PLAY, dice=turn.dice, play=chosen))
        position = chosen.position
        side = 1 - side
    result = g.GameResult(side, "single", 1, cube, cube, g.END_RESIGN)
    return RecordedGame(
        number=number,
        line=0,
        score_before=score,
        crawford=crawford,
        actions=tuple(actions),
        result=result,
        stated_points=cube,
        capped=False,
        final_position=position,
    )


def make_match(games: Sequence[RecordedGame], *, length: int = 7) -> MatchRecord:
    return MatchRecord(MatchSettings(length=length, players=("White", "Black")), tuple(games))


# A game's dice, none of them forced at the start (white opens).
DICE: tuple[tuple[int, int], ...] = (
    (3, 1),
    (6, 4),
    (5, 2),
    (4, 4),
    (6, 3),
    (2, 1),
    (5, 5),
    (4, 3),
    (6, 2),
    (5, 1),
)
