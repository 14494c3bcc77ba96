"""Soldiers notation (RULES.md §8 extended by §3.1): reading and writing.

A class checker's journey carries its letter before the from-point
(``G13/7``, ``K6/10`` for a general moving back, ``Kbar/22``); pawns are
written as in §8 (``13/7``; ``P13/7`` is read too).  ``*`` marks a landing
that hit, pinned (a druid's ``D8/5*``) or captured a guard (only the second
landing: ``10/6 7/6*``).  `format_play` keeps a journey's intermediate
points where something was marked and where a general turned
(``K10/7/10``); equal journeys are written once with ``(n)``.

`parse_moves` checks the text only; `find_play` replays the written
journeys on the position (any order of the journeys' steps, any dice that
carry them) and returns the legal play that reaches the same position;
a reading where exactly the starred landings hit, pinned or captured comes
first (``24/18*`` is 24/22/18*, not 24/20*/18*), then any other.  A
``*`` is not checked, and its absence is no claim that nothing was hit (as
in §8).  Errors: `NotationError` (``bad_token``, ``bad_repeat``,
``backwards``, ``point_out_of_range``), `IllegalPlay` ``illegal_play``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from engine.errors import IllegalPlay, NotationError
from engine.rules.board import BAR, OFF
from engine.soldiers.army import GENERAL, LETTERS, PAWN
from engine.soldiers.movegen import (
    ATTACK,
    PLAIN,
    SoldierPlay,
    SoldierStep,
    State,
    apply_step,
    dice_moves,
    generals_at,
    legal_steps,
    position_of,
    view,
)
from engine.soldiers.plays import legal_plays
from engine.soldiers.state import SoldiersPosition

EMPTY_PLAY: Final = "Ø"
_NO_MOVE: Final = frozenset({"Ø", "ø", "∅", "-"})
_JOURNEY: Final = re.compile(
    r"(?P<cls>[KGDEOP])?(?P<body>[0-9a-zA-Zа-яА-Я]+\*?(?:/[0-9a-zA-Zа-яА-Я]+\*?)+)"
    r"(?:\((?P<repeat>\d)\))?"
)
_WORDS: Final = {"bar": BAR, "b": BAR, "бар": BAR, "off": OFF}


@dataclass(frozen=True, slots=True)
class SoldierMove:
    """One written journey: the class, its points (25 bar, 0 off), and the
    points written with ``*``."""

    cls: int
    points: tuple[int, ...]
    marks: tuple[int, ...] = ()


def _name(q: int) -> str:
    return "bar" if q == BAR else "off" if q == OFF else str(q)


def _journeys(play: SoldierPlay) -> list[tuple[int, list[int], set[int]]]:
    """The play's steps chained into checker journeys, in play order:
    (class, points, indices of marked points)."""
    journeys: list[tuple[int, list[int], set[int]]] = []
    for s in play.steps:
        found = next((j for j in journeys if j[0] == s.cls and j[1][-1] == s.origin != OFF), None)
        if found is None:
            found = (s.cls, [s.origin], set())
            journeys.append(found)
        _, points, marks = found
        points.append(s.dest)
        if s.effect not in (PLAIN, ATTACK):
            marks.add(len(points) - 1)
    return journeys


def _render(cls: int, points: list[int], marks: set[int]) -> str:
    kept: list[str] = []
    last = len(points) - 1
    for i, q in enumerate(points):
        turning = 0 < i < last and (points[i - 1] < q) != (q < points[i + 1])
        if i in (0, last) or i in marks or turning:
            kept.append(_name(q) + ("*" if i in marks else ""))
    prefix = "" if cls == PAWN else LETTERS[cls]
    return prefix + "/".join(kept)


def format_play(play: SoldierPlay) -> str:
    """The play in notation, journeys by origin descending (then class, then
    destination descending), ``Ø`` for none."""
    if not play.steps:
        return EMPTY_PLAY
    rendered = sorted(
        ((-points[0], cls, -points[-1]), _render(cls, points, marks))
        for cls, points, marks in _journeys(play)
    )
    counts: dict[str, int] = {}
    for _, text in rendered:
        counts[text] = counts.get(text, 0) + 1
    return " ".join(f"{text}({n})" if n > 1 else text for text, n in counts.items())


def format_turn(dice: Sequence[int], play: SoldierPlay) -> str:
    return f"{'-'.join(str(d) for d in dice)}: {format_play(play)}"


def _error(code: str, reason: str, token: str) -> NotationError:
    return NotationError(code, f"{reason}: {token[:40]!r}", token=token)


def _point(word: str, token: str) -> int:
    if word.isdecimal():
        q = int(word) if len(word) <= 2 else 99
        if not 1 <= q <= 24:
            raise _error("point_out_of_range", "a point is 1..24, bar or off", token)
        return q
    found = _WORDS.get(word.casefold())
    if found is None:
        raise _error("bad_token", f"{word[:20]!r} is not a point", token)
    return found


def _journey(cls: int, body: str, token: str) -> SoldierMove:
    points: list[int] = []
    marks: list[int] = []
    for part in body.split("/"):
        starred = part.endswith("*")
        q = _point(part.rstrip("*"), token)
        if (q == OFF and not points) or (q == BAR and points):
            raise _error(
                "point_out_of_range", "a journey starts on a point or the bar, ends on off", token
            )
        if points:
            prev = points[-1]
            if prev == OFF or q == prev:
                raise _error("backwards", "a journey goes on from where it stands", token)
            if q > prev and cls != GENERAL:
                raise _error("backwards", "only a general moves to higher points", token)
        if starred:
            if q == OFF:
                raise _error("bad_token", "a checker borne off hits nothing", token)
            marks.append(q)
        points.append(q)
    return SoldierMove(cls, tuple(points), tuple(marks))


def parse_moves(text: str) -> list[SoldierMove]:
    """The journeys written in ``text`` (empty for ``Ø`` or nothing)."""
    moves: list[SoldierMove] = []
    for token in text.replace(",", " ").split():
        if token in _NO_MOVE:
            continue
        m = _JOURNEY.fullmatch(token)
        if m is None:
            raise _error("bad_token", "not a move like 13/8, G13/7 or K6/10", token)
        n = int(m["repeat"]) if m["repeat"] else 1
        if not 1 <= n <= 4:
            raise _error("bad_repeat", "a repeat is written (2), (3) or (4)", token)
        cls = LETTERS.index(m["cls"]) if m["cls"] else PAWN
        moves.extend([_journey(cls, m["body"], token)] * n)
    return moves


def find_play(
    position: SoldiersPosition, dice: Sequence[int], written: str | Sequence[SoldierMove]
) -> SoldierPlay:
    """The legal play the written journeys describe."""
    moves = parse_moves(written) if isinstance(written, str) else list(written)
    plays = legal_plays(position, dice)
    targets = {p.position: p for p in plays}
    side = position.turn
    # each journey: (class, written points, starred points); its progress in
    # ``at``: (index of the written point reached, where the checker stands)
    journeys = [(mv.cls, mv.points, mv.marks) for mv in moves]

    def walk(
        st: State, at: tuple[tuple[int, int], ...], remaining: tuple[int, ...]
    ) -> SoldierPlay | None:
        if all(idx == len(pts) - 1 for (_, pts, _), (idx, _) in zip(journeys, at, strict=True)):
            return targets.get(position_of(position, side, st))
        for j, ((cls, pts, marks), (idx, cur)) in enumerate(zip(journeys, at, strict=True)):
            if idx == len(pts) - 1:
                continue
            target = pts[idx + 1]
            last = 0
            for i, die in enumerate(remaining):
                if die == last:
                    continue
                last = die
                if target < cur:
                    dest = cur - die
                    if target == OFF and dest <= 0:
                        dest = OFF
                    elif dest < target or dest <= 0:
                        continue
                else:
                    dest = cur + die
                    if dest > target:
                        continue
                for o, c, d, effect in legal_steps(st, die):
                    if o != cur or c != cls or d != dest:
                        continue
                    # the writer keeps and stars every point where something was hit
                    if strict and (effect not in (PLAIN, ATTACK)) != (
                        dest == target and target in marks
                    ):
                        continue
                    for general in generals_at(st, o) if cls == GENERAL else [None]:
                        nxt = apply_step(st, o, c, d, effect, general)
                        moved = (idx + 1 if dest == target else idx, dest)
                        found = walk(
                            nxt,
                            (*at[:j], moved, *at[j + 1 :]),
                            remaining[:i] + remaining[i + 1 :],
                        )
                        if found is not None:
                            return found
        return None

    start = tuple((0, mv.points[0]) for mv in moves)
    # First as `format_play` writes (an unwritten intermediate point hit
    # nothing), then any reading of the journeys.
    strict = True
    found = walk(view(position, side), start, dice_moves(dice))
    if found is None:
        strict = False
        found = walk(view(position, side), start, dice_moves(dice))
    walk = None  # type: ignore[assignment]  # a closure cycle (engine/__init__.py)
    if found is None:
        raise IllegalPlay(
            "illegal_play",
            "the written play is not a legal play of this roll",
            notation=" ".join(_render(mv.cls, list(mv.points), set()) for mv in moves)
            or EMPTY_PLAY,
            dice=list(dice),
        )
    return found


__all__ = [
    "EMPTY_PLAY",
    "SoldierMove",
    "SoldierStep",
    "find_play",
    "format_play",
    "format_turn",
    "parse_moves",
]
