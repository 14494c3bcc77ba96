"""Soldiers behind the variant registry: the registry's types in, Soldiers' rules out.

``engine.rules.variants.SOLDIERS`` carries the flag ``checker_classes``; the
entry points that read it (``engine.movegen`` ``legal_plays``, ``find_play``,
``play_routes``; ``engine.records.notation`` ``parse_moves``; the game's
start in ``engine.rules.game``) hand over to this module, which speaks their
types (`Position`, `Play`, `Move`) and answers with this package's rules.

A Soldiers `Position` keeps its class-aware position (`SoldiersPosition`)
under ``extra["soldiers"]``; its ``sides`` are that position's plain counts
(`SoldiersPosition.to_position`: every checker where it stands, pinned ones
included), so the game's end (the last checker off) and the §6 scoring read
it like short nardy's.  Steps are `ClassStep` (class and what the landing
did), written journeys `ClassMove`.  The side to move inside the kept
position is the engine's own bookkeeping: the mover is always named by the
caller (``side``), and `position_text` writes the side the game waits for.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations
from typing import Final

from engine.errors import EngineError
from engine.rules.board import BAR, OFF, Position
from engine.rules.plays import ClassMove, ClassStep, Move, Play
from engine.rules.variants import VariantOptions
from engine.soldiers.army import GENERAL, LETTERS, PAWN, Options, parse_army, parse_placement
from engine.soldiers.movegen import (
    CAPTURE,
    HIT,
    SoldierPlay,
    SoldierStep,
    State,
    apply_step,
    generals_at,
    legal_steps,
    position_of,
    view,
)
from engine.soldiers.notation import EMPTY_PLAY, SoldierMove
from engine.soldiers.notation import find_play as _find
from engine.soldiers.notation import format_play as _format
from engine.soldiers.notation import parse_moves as _parse
from engine.soldiers.plays import legal_plays as _legal
from engine.soldiers.state import SLOTS, SoldiersPosition, classes, count, parse_position
from engine.soldiers.state import start_position as _start

KEY: Final = "soldiers"


class NotSoldiersPosition(EngineError):
    """A position without checker classes given to a Soldiers game."""


# --- positions


def soldiers_of(position: Position) -> SoldiersPosition:
    """The class-aware position a Soldiers `Position` keeps."""
    value = position.get(KEY)
    if not isinstance(value, SoldiersPosition):
        raise NotSoldiersPosition(
            "not_soldiers_position",
            "a Soldiers game is played from a position with checker classes",
        )
    return value


def wrap(position: SoldiersPosition) -> Position:
    """The registry's `Position` of a class-aware one."""
    return Position(position.to_position().sides, ((KEY, position),))


def is_soldiers(position: Position) -> bool:
    return isinstance(position.get(KEY), SoldiersPosition)


def position_text(position: Position, turn: int | None = None) -> str:
    """The canonical position text (RULES §3.1), ``turn`` to move when given."""
    kept = soldiers_of(position)
    return (kept if turn is None else kept.with_turn(turn)).text()


def position_from_text(text: str, options: VariantOptions = ()) -> Position:
    """A `Position` from a position text (any classes); with an ``army``
    option, each side's classes must be that army's."""
    given = dict(options).get("army")
    return wrap(parse_position(text, parse_army(given) if given else None))


def board_classes(position: Position) -> tuple[list[list[str]], list[dict[int, str]]]:
    """Per side, in its own numbering: the letters of its unpinned checkers on
    each slot (0 off .. 25 bar, classes in the order K G D E O P, one letter a
    checker), and the class letter of its checker pinned on each point."""
    kept = soldiers_of(position)
    free: list[list[str]] = []
    pinned: list[dict[int, str]] = []
    for side in (0, 1):
        free.append(
            ["".join(LETTERS[c] * count(v, c) for c in classes(v)) for v in kept.free[side][:SLOTS]]
        )
        pinned.append({q: LETTERS[p - 1] for q, p in enumerate(kept.pinned[side]) if p})
    return free, pinned


# --- options and the start


def game_options(values: VariantOptions) -> Options:
    """Validated options (army; placement for both sides, or White's and
    ``placement_black``); `SoldiersOptionError` with its code otherwise."""
    given = dict(values)
    army = parse_army(given.get("army") or None)
    white = given.get("placement") or None
    black = given.get("placement_black") or None
    if black is None:
        placement = parse_placement(white, army)
    else:
        default = parse_placement(None, army).text(0)
        placement = parse_placement((white or default, black), army)
    return Options(army, placement)


def start_position(values: VariantOptions) -> Position:
    """The §2 start with the class checkers where the options put them."""
    chosen = game_options(values)
    return wrap(_start(chosen.placed, chosen.army))


# --- plays


def _step(s: SoldierStep) -> ClassStep:
    return ClassStep(s.origin, s.dest, s.die, s.hit, s.cls, s.effect)


def _play(play: SoldierPlay) -> Play:
    return Play(tuple(_step(s) for s in play.steps), wrap(play.position))


def _soldier_play(play: Play) -> SoldierPlay:
    steps = tuple(
        SoldierStep(
            s.origin,
            s.dest,
            s.die,
            s.cls if isinstance(s, ClassStep) else PAWN,
            s.effect if isinstance(s, ClassStep) else "",
        )
        for s in play.steps
    )
    return SoldierPlay(steps, soldiers_of(play.position))


def legal_plays(position: Position, side: int, dice: Sequence[int]) -> list[Play]:
    """Every legal play of ``dice`` for ``side``, one per resulting position
    (``[Play((), position)]`` with the turn passed when nothing can move)."""
    return [_play(p) for p in _legal(soldiers_of(position).with_turn(side), dice)]


def _written(move: Move) -> SoldierMove:
    cls = move.cls if isinstance(move, ClassMove) else PAWN
    return SoldierMove(cls, (move.origin, *move.via, move.dest), move.hits)


def find_play(position: Position, side: int, dice: Sequence[int], moves: Sequence[Move]) -> Play:
    """The legal play the written journeys describe (`IllegalPlay` otherwise)."""
    mover = soldiers_of(position).with_turn(side)
    return _play(_find(mover, dice, [_written(m) for m in moves]))


def _chains(steps: Sequence[ClassStep]) -> list[list[ClassStep]]:
    """The play's steps grouped by checker: a step of the same class going on
    from where an earlier one of that class landed."""
    chains: list[list[ClassStep]] = []
    for step in steps:
        for chain in chains:
            last = chain[-1]
            if last.cls == step.cls and last.dest == step.origin and step.origin not in (BAR, OFF):
                chain.append(step)
                break
        else:
            chains.append([step])
    return chains


def _reordered(chain: list[ClassStep], dice: tuple[int, ...]) -> list[ClassStep] | None:
    """The chain's steps with its dice in another order, each step keeping its
    direction (a general's backward step stays backward); None when a landing
    leaves the board or the chain no longer ends where it did."""
    at = chain[0].origin
    steps: list[ClassStep] = []
    for step, die in zip(chain, dice, strict=True):
        forward = step.dest < step.origin
        dest = at - die if forward else at + die
        if forward and dest <= 0:
            dest = OFF
        if not OFF <= dest <= 24 or (dest == OFF and len(steps) < len(chain) - 1):
            return None
        steps.append(ClassStep(at, dest, die, False, step.cls))
        at = dest
    return steps if at == chain[-1].dest else None


def _walk(
    mover: SoldiersPosition, side: int, target: SoldiersPosition, steps: list[ClassStep]
) -> tuple[ClassStep, ...] | None:
    """``steps`` played one by one, each a legal step where it is played (its
    effect taken from the rules), when they reach ``target``; else None."""

    def walk(st: State, i: int, done: tuple[ClassStep, ...]) -> tuple[ClassStep, ...] | None:
        if i == len(steps):
            return done if position_of(mover, side, st) == target else None
        s = steps[i]
        for o, c, d, effect in legal_steps(st, s.die):
            if (o, c, d) != (s.origin, s.cls, s.dest):
                continue
            for general in generals_at(st, o) if c == GENERAL else [None]:
                played = ClassStep(o, d, s.die, effect in (HIT, CAPTURE), c, effect)
                found = walk(apply_step(st, o, c, d, effect, general), i + 1, (*done, played))
                if found is not None:
                    return found
        return None

    found = walk(view(mover, side), 0, ())
    walk = None  # type: ignore[assignment]  # a closure cycle (engine/__init__.py)
    return found


def play_routes(position: Position, side: int, dice: Sequence[int], play: Play) -> list[Play]:
    """``play`` and the same play by its other routes: one checker's dice taken
    in another order where every step of that order is legal (as
    ``engine.movegen.play_routes`` does for the other variants), the other
    checkers as played, in the play's order of steps."""
    steps = [s for s in play.steps if isinstance(s, ClassStep)]
    if len(steps) != len(play.steps):
        return [play]
    mover = soldiers_of(position).with_turn(side)
    target = soldiers_of(play.position)
    found = [play]
    seen = {play.steps}
    for chain in _chains(steps):
        played = tuple(s.die for s in chain)
        if len(chain) < 2 or len(set(played)) < 2:
            continue
        for order in sorted(set(permutations(played))):
            new = _reordered(chain, order) if order != played else None
            if new is None:
                continue
            replaced = iter(new)
            route = [next(replaced) if any(s is c for c in chain) else s for s in steps]
            walked = _walk(mover, side, target, route)
            if walked is not None and walked not in seen:
                seen.add(walked)
                found.append(Play(walked, play.position))
    return found


# --- notation


def parse_moves(text: str) -> list[Move]:
    """The journeys written in ``text``, class letters read (``G13/7 K6/10``)."""
    return [
        ClassMove(m.points[0], m.points[-1], m.points[1:-1], m.marks, cls=m.cls)
        for m in _parse(text)
    ]


def format_play(play: Play) -> str:
    """The play in Soldiers notation (§3.1: class letters, ``*`` for hits,
    pins and the capturing landing)."""
    return _format(_soldier_play(play))


def _name(q: int) -> str:
    return "bar" if q == BAR else "off" if q == OFF else str(q)


def format_moves(moves: Sequence[Move]) -> str:
    """Written journeys in canonical form: origin descending (ties as given),
    the class letter before a class checker's, equal journeys as ``(n)``."""
    if not moves:
        return EMPTY_PLAY
    counts: dict[str, int] = {}
    for move in sorted(moves, key=lambda mv: -mv.origin):
        cls = move.cls if isinstance(move, ClassMove) else PAWN
        points = (move.origin, *move.via, move.dest)
        text = "/".join(
            _name(q) + ("*" if i and q in move.hits else "") for i, q in enumerate(points)
        )
        key = ("" if cls == PAWN else LETTERS[cls]) + text
        counts[key] = counts.get(key, 0) + 1
    return " ".join(f"{text}({n})" if n > 1 else text for text, n in counts.items())
