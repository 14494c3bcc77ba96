"""The general generator: a depth-first search over the steps of one roll,
for the rules the fast generators do not cover (head rule, six-block rule,
three dice)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress
from typing import Any

from engine.movegen.primitives import (
    _BAR_ONLY,
    HOME,
    _Found,
    _Key,
    _makes_block,
    _Rules,
    _step,
)
from engine.rules.board import BAR, OFF, POINTS, Position
from engine.rules.plays import Step


class _Search:
    """Depth-first search over the steps of one roll; results keyed by outcome."""

    __slots__ = (
        "best_n",
        "best_pips",
        "head_limit",
        "me",
        "oppm",
        "r",
        "results",
        "side",
        "stack",
        "visited",
    )

    def __init__(
        self, r: _Rules, side: int, me: list[int], oppm: list[int], head_limit: int
    ) -> None:
        self.r = r
        self.side = side
        self.me = me
        self.oppm = oppm
        self.head_limit = head_limit
        self.results: dict[_Key, _Found] = {}
        self.best_n = 0
        self.best_pips = 0
        self.stack: list[Step] = []
        self.visited: set[tuple[Any, ...]] = set()

    def run(self, dice: tuple[int, ...]) -> None:
        me = self.me
        outside = sum(me[HOME + 1 :])
        self.node(dice, 0, BAR, outside, 0, 0, 0)

    def node(
        self,
        remaining: tuple[int, ...],
        last_die: int,
        last_origin: int,
        outside: int,
        heads: int,
        hitmask: int,
        pips: int,
    ) -> None:
        r = self.r
        me = self.me
        oppm = self.oppm
        stack = self.stack
        if not r.ordered and self.stack:
            seen = (tuple(me), remaining, heads, hitmask)
            if seen in self.visited:
                return
            self.visited.add(seen)
        closes = r.closes
        hitting = r.hitting
        head = r.head
        head_full = heads >= self.head_limit
        moved = False
        tried = 0
        for i, die in enumerate(remaining):
            if tried >> die & 1:
                continue
            tried |= 1 << die
            rest = remaining[:i] + remaining[i + 1 :]
            if me[BAR]:
                origins: Iterable[int] = _BAR_ONLY
            else:
                top = last_origin if (r.ordered and die == last_die) else POINTS
                origins = compress(range(top, 0, -1), me[top:0:-1])
            for o in origins:
                n = me[o]
                if o == head and head_full:
                    continue
                d = o - die
                hit = 0
                if d > 0:
                    c = oppm[d]
                    if c:
                        if c >= closes:
                            continue
                        if hitting:
                            hit = 1
                else:
                    if outside:
                        continue
                    if d < 0:
                        if any(me[o + 1 : HOME + 1]):
                            continue
                        d = OFF
                me[o] = n - 1
                me[d] += 1
                if hit:
                    oppm[d] = 0
                if r.six_block and d and me[d] == 1 and _makes_block(r, self.side, me, oppm, d):
                    me[o] = n
                    me[d] -= 1
                    if hit:
                        oppm[d] = 1
                    continue
                moved = True
                stack.append(_step(o, d, die, hit))
                self.node(
                    rest,
                    die,
                    o,
                    outside - 1 if (o > HOME >= d) else outside,
                    heads + 1 if o == head else heads,
                    hitmask | (hit << d),
                    pips + die,
                )
                stack.pop()
                me[o] = n
                me[d] -= 1
                if hit:
                    oppm[d] = 1
        if moved:
            return
        n_used = len(stack)
        if n_used < self.best_n or (n_used == self.best_n and pips < self.best_pips):
            return
        if n_used > self.best_n or pips > self.best_pips:
            self.results.clear()
            self.best_n = n_used
            self.best_pips = pips
        row = tuple(me)
        key = (row, hitmask)
        if key not in self.results:
            self.results[key] = (row, hitmask, tuple(stack))


def _search(
    r: _Rules,
    side: int,
    position: Position,
    dice: tuple[int, ...],
    head_limit: int,
) -> _Search:
    row = position.sides[side]
    oppm = list(r.gather[side](position.sides[1 - side]))
    s = _Search(r, side, list(row), oppm, head_limit)
    s.run(dice)
    return s


def _second_head_checker(
    r: _Rules, moves: tuple[int, ...], first_turn: bool, most_with_one: int
) -> bool:
    """RULES §5: on a side's first roll with one of the exception doublets, a
    second checker may leave the head when one head checker cannot play all
    four moves (``most_with_one``: dice playable with one); the forced-move
    rules then apply as usual."""
    return (
        first_turn
        and bool(r.head)
        and len(moves) == 4
        and moves[0] == moves[3]
        and moves[0] in r.exception_dice
        and most_with_one < len(moves)
    )
