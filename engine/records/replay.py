"""Replay a game written one line per action, checking every turn (pure: text in).

Record syntax (blank lines and lines starting with ``#`` are ignored):

    W 5-1: 13/8 24/23      a turn: mover (W/B or white/black), dice, moves in
    B 4-3: 13/9/6          the mover's own numbering (RULES §8)
    W 6-6: Ø               dice that could not be played
    B ?-?: Ø               a turn with no roll written: only when no roll at
                           all could be played (closed out on the bar)
    W 5-5-4: 13/8(3) 6/2   three dice where the variant rolls three (Garanquet)
    W doubles              cube actions, by the side that takes them
    B takes                (also: B passes / B drops, B beavers)
    W explodes             Nuclear: the side on turn sets off the bomb before rolling
    W resigns mars         a resignation (level defaults to single);
    B accepts              answered by accepts / rejects

Where the mover names the dice (dice-less long nardy) the dice of a turn line
are the named ones; anywhere else they are the roll.

The first turn line's mover starts the game (its dice are the opening dice
where the variant plays them).  Every line must come from the side that has
to act, so turns alternate.  A record that stops before the game ends is not
an error: the result has ``winner`` None and shows the position reached, so
a partial record can be checked and inspected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.errors import EngineError
from engine.records.notation import format_turn, parse_turn
from engine.rules import game as g
from engine.rules.actions import (
    AcceptResignation,
    Beaver,
    Double,
    Explode,
    GameAction,
    Pass,
    RecordedTurn,
    RejectResignation,
    Resign,
    Take,
    apply,
)
from engine.rules.board import BAR, OFF, SIDE_NAMES, Position
from engine.rules.plays import Play

_SIDES = {"w": 0, "white": 0, "b": 1, "black": 1}
_LINE = re.compile(r"\s*(?P<side>\S+)\s+(?P<rest>.*\S)\s*$")
# The action words of a line; a resignation's level follows its word.
_ACTIONS: dict[str, GameAction] = {
    "doubles": Double(),
    "double": Double(),
    "takes": Take(),
    "take": Take(),
    "passes": Pass(),
    "pass": Pass(),
    "drops": Pass(),
    "drop": Pass(),
    "beavers": Beaver(),
    "beaver": Beaver(),
    "resigns": Resign(),
    "resign": Resign(),
    "accepts": AcceptResignation(),
    "accept": AcceptResignation(),
    "rejects": RejectResignation(),
    "reject": RejectResignation(),
    "explodes": Explode(),
    "explode": Explode(),
}
# More than two dice (``5-5-4``): notation.parse_turn reads two, so the dice
# are read here and stand in for a same-length two-dice text, which keeps the
# character offsets of move errors true to the line.


class ReplayError(EngineError):
    """A record line that cannot be read or played; carries ``turn``, ``line`` and ``text``."""


@dataclass(frozen=True, slots=True)
class ReplayResult:
    state: g.GameState
    turns: int  # turn lines played

    def to_dict(self) -> dict[str, Any]:
        result = self.state.result
        return {
            "winner": None if result is None else SIDE_NAMES[result.winner],
            "result": None if result is None else result.result_name,
            "multiplier": None if result is None else result.multiplier,
            "cube": self.state.cube if result is None else result.cube,
            "points": None if result is None else result.points,
            "end": None if result is None else result.end,
            "jacoby": False if result is None else result.jacoby,
            "turns": self.turns,
            "finished": result is not None,
            "to_act": None if self.state.to_act is None else SIDE_NAMES[self.state.to_act],
            "final": position_dict(self.state.position),
        }


def position_dict(position: Position) -> dict[str, Any]:
    """Each side's checkers in its own numbering: non-empty points, bar, off."""
    out: dict[str, Any] = {}
    for side, name in enumerate(SIDE_NAMES):
        row = position.side(side)
        out[name] = {
            "points": {str(q): row[q] for q in range(BAR - 1, 0, -1) if row[q]},
            "bar": row[BAR],
            "off": row[OFF],
        }
    if position.extra:  # variant state: the bomb's owner, pinned mothers
        out["extra"] = {key: _jsonable(value) for key, value in position.extra}
    return out


def _jsonable(value: object) -> Any:
    # Plain tuples and lists only: a value type that is a tuple underneath
    # (Soldiers' class-aware position, a named tuple) writes its own text.
    if isinstance(value, tuple | list) and type(value) in (tuple, list):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    return str(value)  # Soldiers' class-aware position: its canonical text


def format_line(side: int, dice: tuple[int, ...] | None, play: Play) -> str:
    """One turn as a record line: ``W 3-1: 8/5 6/5``."""
    return f"{'WB'[side]} {format_turn(dice, play)}"


def replay(text: str, rules: g.GameRules, *, start: Position | None = None) -> ReplayResult:
    """Play the record ``text`` under ``rules`` from the variant's start (or
    ``start``); raises ``ReplayError`` at the first bad line."""
    state = g.new_game(rules, position=start)
    turns = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            state, is_turn = _line(state, line)
        except EngineError as err:
            data = {k: v for k, v in err.data.items() if k not in ("turn", "line", "text")}
            raise ReplayError(
                err.code,
                f"line {lineno} (turn {turns + 1}): {err.reason}",
                turn=turns + 1,
                line=lineno,
                text=raw,
                **data,
            ) from err
        turns += is_turn
    return ReplayResult(state, turns)


def _line(state: g.GameState, line: str) -> tuple[g.GameState, bool]:
    m = _LINE.match(line)
    side = _SIDES.get(m["side"].casefold()) if m else None
    if m is None or side is None:
        raise EngineError(
            "bad_line",
            "a line starts with the side (W or B) followed by a turn (5-2: 13/8 6/4) or a cube action",
        )
    rest = m["rest"]
    if state.finished:
        raise EngineError("game_over", "the game is already over")
    if ":" in rest or rest[0].isdecimal() or rest[0] == "?":
        return _turn(state, side, rest), True
    return _action(state, side, rest), False


def _check_actor(state: g.GameState, side: int) -> None:
    expected = state.to_act
    if expected is not None and expected != side:
        raise EngineError(
            "wrong_mover",
            f"{SIDE_NAMES[expected]} has to act here, not {SIDE_NAMES[side]}",
            expected=SIDE_NAMES[expected],
            got=SIDE_NAMES[side],
        )


def _turn(state: g.GameState, side: int, rest: str) -> g.GameState:
    variant = state.variant
    dice, moves = parse_turn(rest, variant)
    if dice is not None and len(dice) != variant.dice:
        raise EngineError(
            "invalid_dice",
            f"{variant.name} is played with {variant.dice} dice, not {len(dice)}",
            dice=list(dice),
            expected=variant.dice,
        )
    if state.phase is not g.Phase.OPENING:
        # The first turn line's mover starts the game; every other turn line
        # is a whole turn of the side on roll.
        _check_actor(state, side)
        if state.phase is not g.Phase.ROLL:
            raise EngineError(
                "turn_not_expected",
                f"a turn cannot be played now (the game awaits {state.phase.value!r})",
                phase=state.phase.value,
            )
    return apply(state, RecordedTurn(dice, tuple(moves), side=side))


def _action(state: g.GameState, side: int, rest: str) -> g.GameState:
    word, _, arg = rest.partition(" ")
    action = _ACTIONS.get(word.casefold())
    if action is None:
        raise EngineError(
            "bad_line",
            f"{word!r} is neither a turn (5-2: 13/8 6/4) nor an action "
            "(doubles, takes, passes, beavers, explodes, resigns, accepts, rejects)",
            word=word,
        )
    if state.phase is g.Phase.OPENING:
        raise EngineError("not_started", "the record starts with the first turn, not a cube action")
    arg = arg.strip()
    if isinstance(action, Resign):
        if state.phase not in (g.Phase.ROLL, g.Phase.PLAY):
            raise EngineError(
                "wrong_phase", f"no resignation while the game awaits {state.phase.value!r}"
            )
        return apply(state, Resign(arg or "single", side=side))
    if arg:
        raise EngineError("bad_line", f"{word!r} takes nothing after it", word=word)
    _check_actor(state, side)
    return apply(state, action)
