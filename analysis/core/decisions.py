"""The decisions of a recorded match, found by replaying its games.

A checked ``MatchRecord`` (``engine.records``) keeps each game's actions in
order, each play with the position it leads to; cube actions do not move
checkers, so the position before a turn is the one the previous play left
(the variant's start before the first).  Three kinds of decision count:

- ``checker``: a roll that allows at least two different resulting positions
  (forced plays and rolls with no legal play are no decisions);
- ``cube``: the roller's choice, before rolling, to double or not, wherever
  they may double: the variant has the cube, it is not the Crawford game nor
  the game's opening roll, the cube is centred or theirs, and the cube is not
  dead (in a match, a player who needs no more points than the cube's value
  has nothing to double for);
- ``take``: the doubled player's take or pass.  A beaver counts as a take;
  the doubler's answer to a beaver is not a decision here (money play only,
  and rare).

Rolls before a resignation (``ROLL``) carry the roller's cube decision like a
play does; resignations themselves never enter PR.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.core.model import (
    CENTRED,
    MOVER,
    OPPONENT,
    AnalysisError,
    CheckerQuery,
    CubeContext,
    CubeOwner,
    CubeQuery,
)
from engine.movegen import legal_plays
from engine.records.record import (
    BEAVER,
    DOUBLE,
    DROP,
    PLAY,
    ROLL,
    TAKE,
    MatchRecord,
    RecordedGame,
)
from engine.rules.board import Position, other
from engine.rules.plays import Play


@dataclass(frozen=True, slots=True)
class CheckerTurn:
    """An unforced checker play: ``action`` is its index in the game's actions."""

    game: int
    action: int
    side: int
    query: CheckerQuery
    plays: tuple[Play, ...]  # the legal plays, in the order of query.candidates


@dataclass(frozen=True, slots=True)
class CubeTurn:
    """A roller's cube decision: at the ``DOUBLE`` action when they doubled,
    else at the roll (``PLAY`` or ``ROLL``) they made instead."""

    game: int
    action: int
    side: int
    query: CubeQuery
    doubled: bool


@dataclass(frozen=True, slots=True)
class TakeTurn:
    """A doubled player's answer (``TAKE``, ``BEAVER`` or ``DROP`` at ``action``);
    the query is the doubler's cube decision, which the answer is judged by."""

    game: int
    action: int
    side: int
    query: CubeQuery
    took: bool


DecisionTurn = CheckerTurn | CubeTurn | TakeTurn


def _owner(owner: int | None, side: int) -> CubeOwner:
    if owner is None:
        return CENTRED
    return MOVER if owner == side else OPPONENT


class _GameWalk:
    """The state one game's replay needs: position, cube, who has played."""

    def __init__(self, record: MatchRecord, game: RecordedGame) -> None:
        self.settings = record.settings
        self.game = game
        self.position: Position = record.settings.variant.start_position()
        self.cube = 1
        self.owner: int | None = None
        self.played = [False, False]
        self.turns: list[DecisionTurn] = []

    def context(self, side: int) -> CubeContext:
        length = self.settings.length
        score = self.game.score_before
        away = (length - score[side], length - score[other(side)]) if length else (0, 0)
        rules = self.settings.rules
        return CubeContext(
            value=self.cube,
            owner=_owner(self.owner, side),
            away=away,
            crawford=self.game.crawford,
            jacoby=rules.jacoby,
            beaver=rules.beaver,
        )

    def may_double(self, side: int) -> bool:
        if not self.settings.rules.cube_enabled or self.game.crawford:
            return False
        if not any(self.played):  # the opening roll
            return False
        if self.owner is not None and self.owner != side:
            return False
        length = self.settings.length
        return not length or length - self.game.score_before[side] > self.cube

    def cube_query(self, side: int) -> CubeQuery:
        return CubeQuery(self.settings.variant, self.position, side, self.context(side))

    def walk(self) -> list[DecisionTurn]:
        number = self.game.number
        doubled_now = [False, False]  # the side doubled before its coming roll
        offer: tuple[int, int, CubeQuery | None] | None = None  # (doubler, value, its query)
        for index, action in enumerate(self.game.actions):
            side = action.side
            if action.kind == DOUBLE:
                query = self.cube_query(side)
                if self.may_double(side):
                    self.turns.append(CubeTurn(number, index, side, query, doubled=True))
                doubled_now[side] = True
                offer = (side, action.value or 2 * self.cube, query)
            elif action.kind in (TAKE, BEAVER, DROP) and offer is not None:
                doubler, value, offered = offer
                if side != doubler and offered is not None:
                    took = action.kind != DROP
                    self.turns.append(TakeTurn(number, index, side, offered, took=took))
                if action.kind == BEAVER:
                    # The beaverer keeps the cube; the doubler's answer follows.
                    offer = (doubler, action.value or 2 * value, None)
                elif action.kind == TAKE:
                    self.cube = value
                    self.owner = other(doubler)
                    offer = None
            elif action.kind in (PLAY, ROLL):
                if not doubled_now[side] and self.may_double(side):
                    self.turns.append(
                        CubeTurn(number, index, side, self.cube_query(side), doubled=False)
                    )
                doubled_now[side] = False
                if action.kind == PLAY:
                    self.checker_play(index, side, action.dice, action.play)
        return self.turns

    def checker_play(
        self, index: int, side: int, dice: tuple[int, int] | None, play: Play | None
    ) -> None:
        if dice is None or play is None:
            raise AnalysisError(
                "unchecked_record",
                f"game {self.game.number}, action {index}: a play without dice or checked play",
                game=self.game.number,
                action=index,
            )
        variant = self.settings.variant
        first_turn = not self.played[side]
        self.played[side] = True
        before = self.position
        self.position = play.position
        plays = legal_plays(variant, before, side, dice, first_turn=first_turn)
        if len(plays) < 2:
            return
        candidates = tuple(p.position for p in plays)
        try:
            played = candidates.index(play.position)
        except ValueError:
            raise AnalysisError(
                "play_not_legal",
                f"game {self.game.number}, action {index}: the recorded play is not a legal play",
                game=self.game.number,
                action=index,
            ) from None
        query = CheckerQuery(variant, before, side, dice, candidates, played, self.context(side))
        self.turns.append(CheckerTurn(self.game.number, index, side, query, tuple(plays)))


def find_decisions(record: MatchRecord) -> list[DecisionTurn]:
    """Every decision of the match, in the order they were made."""
    turns: list[DecisionTurn] = []
    for game in record.games:
        turns.extend(_GameWalk(record, game).walk())
    return turns
