"""The turn dispatch: every action of a game as a typed value, and the one
``apply(state, action)`` that replay, the .mat/SGF importer, AZN and the
games app all call.

An action is a frozen dataclass naming what is done (``Double()``,
``RecordedTurn((5, 1), moves)``); ``apply`` returns the new ``GameState`` or
raises the engine's error (``GameStateError`` or ``IllegalPlay``, with its
stable code), exactly as the function of ``engine.rules.game`` it calls.
Each action's ``kind`` is the ``game.Action`` it performs, so a caller can
test it against ``game.legal_actions(state)``.

Two actions are whole recorded moves rather than single steps:

- ``OpeningThrow``: the deciding opening throw (one die each, the first
  seat's then the second's), as ``game.opening_throw``.  The higher die
  starts (and plays White where the throw names the colours, Nauka); ties
  were re-rolled, so equal dice are refused.  Where the variant plays the
  opening dice (dice not named by the mover) the starter's first dice are
  those two, larger first; elsewhere the game waits for the starter's roll.
- ``RecordedTurn``: a turn as records write it, the dice and the checker
  journeys.  It rolls the recorded dice (or names them, where the mover
  names the dice) and plays; dice None is a turn passed without a roll,
  only when no roll could be played.  Where the dice are already known (the
  opening dice) they must be the ones written.  At the opening, a turn
  with its ``side`` starts the game: that side is the starter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from engine.errors import GameStateError
from engine.rules import game as g
from engine.rules.dice import DiceSource, RecordedDice
from engine.rules.plays import Move, Play


@dataclass(frozen=True, slots=True)
class OpeningRoll:
    """Throw the opening from ``dice`` (ties re-rolled), as ``game.opening_roll``."""

    dice: DiceSource
    kind: ClassVar[g.Action] = g.Action.OPENING_ROLL


@dataclass(frozen=True, slots=True)
class OpeningThrow:
    """The recorded deciding opening throw: (the first seat's die, the second's)."""

    dice: tuple[int, ...]
    kind: ClassVar[g.Action] = g.Action.SET_OPENING


@dataclass(frozen=True, slots=True)
class SetOpening:
    """Start with a known first mover and, where given, its first dice (``game.set_opening``)."""

    starter: int
    dice: tuple[int, ...] | None = None
    kind: ClassVar[g.Action] = g.Action.SET_OPENING


@dataclass(frozen=True, slots=True)
class Roll:
    """Roll the side on turn's dice from ``dice``."""

    dice: DiceSource
    kind: ClassVar[g.Action] = g.Action.ROLL


@dataclass(frozen=True, slots=True)
class SetDice:
    """Name the dice, where the mover names them."""

    dice: tuple[int, ...]
    kind: ClassVar[g.Action] = g.Action.SET_DICE


@dataclass(frozen=True, slots=True)
class SkipTurn:
    """Pass a turn without dice: only when no roll could be played."""

    kind: ClassVar[g.Action] = g.Action.SKIP_TURN


@dataclass(frozen=True, slots=True)
class PlayMoves:
    """Play the dice on the table as the written journeys ``moves`` (empty: no play)."""

    moves: tuple[Move, ...]
    kind: ClassVar[g.Action] = g.Action.PLAY


@dataclass(frozen=True, slots=True)
class ChoosePlay:
    """Play ``play``.  ``from_legal_plays``: the caller took it from the legal
    plays of this very state (an importer that generated them already), so it
    is not checked again."""

    play: Play
    from_legal_plays: bool = False
    kind: ClassVar[g.Action] = g.Action.PLAY


@dataclass(frozen=True, slots=True)
class RecordedTurn:
    """A recorded turn: its dice (None: passed without a roll) and journeys;
    ``side``, the recorded mover, starts the game when it is at the opening."""

    dice: tuple[int, ...] | None
    moves: tuple[Move, ...] = ()
    side: int | None = field(default=None, kw_only=True)
    kind: ClassVar[g.Action] = g.Action.PLAY


@dataclass(frozen=True, slots=True)
class Double:
    kind: ClassVar[g.Action] = g.Action.DOUBLE


@dataclass(frozen=True, slots=True)
class Take:
    kind: ClassVar[g.Action] = g.Action.TAKE


@dataclass(frozen=True, slots=True)
class Pass:
    """Refuse the pending double (drop)."""

    kind: ClassVar[g.Action] = g.Action.PASS


@dataclass(frozen=True, slots=True)
class Beaver:
    kind: ClassVar[g.Action] = g.Action.BEAVER


@dataclass(frozen=True, slots=True)
class Explode:
    """Nuclear: set off the bomb before rolling."""

    kind: ClassVar[g.Action] = g.Action.EXPLODE


@dataclass(frozen=True, slots=True)
class Resign:
    """Offer to lose at ``level``, by ``side`` (None: the side on turn)."""

    level: str = "single"
    side: int | None = None
    kind: ClassVar[g.Action] = g.Action.RESIGN


@dataclass(frozen=True, slots=True)
class AcceptResignation:
    kind: ClassVar[g.Action] = g.Action.ACCEPT_RESIGNATION


@dataclass(frozen=True, slots=True)
class RejectResignation:
    kind: ClassVar[g.Action] = g.Action.REJECT_RESIGNATION


GameAction = (
    OpeningRoll
    | OpeningThrow
    | SetOpening
    | Roll
    | SetDice
    | SkipTurn
    | PlayMoves
    | ChoosePlay
    | RecordedTurn
    | Double
    | Take
    | Pass
    | Beaver
    | Explode
    | Resign
    | AcceptResignation
    | RejectResignation
)


def apply(state: g.GameState, action: GameAction) -> g.GameState:
    """The state after ``action``; raises the engine's error when it is not allowed."""
    match action:
        case OpeningRoll(dice):
            return g.opening_roll(state, dice)
        case OpeningThrow(dice):
            return _opening_throw(state, dice)
        case SetOpening(starter, dice):
            return g.set_opening(state, starter, dice)
        case Roll(dice):
            return g.roll(state, dice)
        case SetDice(dice):
            return g.set_dice(state, dice)
        case SkipTurn():
            return g.skip_turn(state)
        case PlayMoves(moves):
            return g.play(state, moves)
        case ChoosePlay(play, from_legal_plays):
            if from_legal_plays:
                return g.apply_legal_play(state, play)
            return g.choose_play(state, play)
        case RecordedTurn(dice, moves, side=side):
            return _recorded_turn(state, dice, moves, side)
        case Double():
            return g.double(state)
        case Take():
            return g.take(state)
        case Pass():
            return g.pass_(state)
        case Beaver():
            return g.beaver(state)
        case Explode():
            return g.explode(state)
        case Resign(level, side):
            return g.resign(state, level, side=side)
        case AcceptResignation():
            return g.accept_resignation(state)
        case RejectResignation():
            return g.reject_resignation(state)
    raise TypeError(f"not a game action: {action!r}")


def _opening_throw(state: g.GameState, throw: tuple[int, ...]) -> g.GameState:
    if len(throw) != 2:
        raise GameStateError("opening_dice", "the opening roll is one die for each player")
    return g.opening_throw(state, *throw)


def _recorded_turn(
    state: g.GameState, dice: tuple[int, ...] | None, moves: Sequence[Move], side: int | None
) -> g.GameState:
    if dice is None and moves:
        raise GameStateError(
            "moves_without_dice", "a turn without a roll (?-?) cannot move checkers"
        )
    if state.phase is g.Phase.OPENING and side is not None:
        state = g.set_opening(state, side, dice)
    if state.phase is g.Phase.ROLL:
        if dice is None:
            return g.skip_turn(state)
        if state.variant.mover_names_dice:
            state = g.set_dice(state, dice)
        else:
            state = g.roll(state, RecordedDice([dice]))
    elif state.phase is g.Phase.PLAY and dice is not None and sorted(dice) != sorted(state.dice):
        raise GameStateError(
            "dice_already_known",
            f"this turn is played with the opening dice {'-'.join(map(str, state.dice))}",
            dice=list(state.dice),
        )
    return g.play(state, moves)
