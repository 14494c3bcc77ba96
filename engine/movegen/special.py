"""Special rules of the short family, served step by step.

Pins (Plakoto), checkers that hit in the home (Caucasian, Tavla), a cap on
checkers per point (Old English) and choices over whole plays (optional
dice, forced bear-off) need state the fast generators do not keep.  These
variants share one step-by-step search over immutable states; the classic
games never come here.

`explode` is the Nuclear bomb (board change only; the game decides when).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress
from typing import Any, cast

from engine.errors import GameStateError
from engine.movegen.primitives import _BAR_ONLY, _POINT_RANGE, HOME, _Rules, _step
from engine.rules.board import BAR, OFF, POINTS, Position
from engine.rules.plays import Play, Step
from engine.rules.variants import Variant

# (mover's row, opponent's counts on my points, hit points as bits, my points
# where an opposing checker is pinned under mine as bits, hitters per home
# point 0..6 (empty unless tracked))
_SState = tuple[tuple[int, ...], tuple[int, ...], int, int, tuple[int, ...]]


def _bits(mask: int) -> Iterable[int]:
    q = 0
    while mask:
        if mask & 1:
            yield q
        mask >>= 1
        q += 1


class _Turn:
    """One side's turn under the special rules: flags read once, the start
    state, the legality of a step, its effect, and the resulting position."""

    __slots__ = (
        "caucasian",
        "closes",
        "cross",
        "hitting",
        "max_per_point",
        "my_pins",
        "pinning",
        "position",
        "side",
        "start",
        "tavla",
        "track",
    )

    def __init__(self, r: _Rules, side: int, position: Position) -> None:
        v = r.variant
        self.side = side
        self.position = position
        self.cross = r.cross[side]
        self.closes = v.closes_at
        self.hitting = v.hitting
        self.pinning = v.pinning
        self.max_per_point = v.max_per_point
        self.caucasian = v.no_hit_and_hide_in_home
        self.tavla = v.no_hit_and_run_in_home
        self.track = self.caucasian or self.tavla
        my_pins = opp_pins = 0
        if self.pinning:
            pinned = _pinned(position)
            for q in pinned[side]:
                my_pins |= 1 << q
            mine_at = r.mine_at[side]
            for p in pinned[1 - side]:
                opp_pins |= 1 << mine_at[p]
        # My own pinned checkers cannot move and their points are closed to me
        # for the whole turn: only the opponent can release them.
        self.my_pins = my_pins
        oppm = tuple(r.gather[side](position.sides[1 - side]))
        hitters = (0,) * (HOME + 1) if self.track else ()
        self.start: _SState = (position.sides[side], oppm, 0, opp_pins, hitters)

    def origins(self, st: _SState) -> Iterable[int]:
        me = st[0]
        if me[BAR]:
            return _BAR_ONLY
        return compress(range(POINTS, 0, -1), me[POINTS:0:-1])

    def _by_hitter(self, st: _SState, o: int) -> bool:
        # Checkers are interchangeable: a step is the hitter's only when every
        # checker on its point hit in the home this turn.
        hitters = st[4]
        return o <= HOME and hitters[o] > 0 and hitters[o] == st[0][o]

    def basic(self, st: _SState, o: int, die: int) -> tuple[str, int] | None:
        """The rule a step breaks, with the point concerned (None: legal),
        apart from Caucasian hit-and-hide, which depends on the other steps."""
        me, oppm = st[0], st[1]
        if not me[o]:
            return ("no_checker", o)
        if me[BAR] and o != BAR:
            return ("bar_first", o)
        if self.my_pins >> o & 1:
            return ("pinned_checker", o)
        if self.tavla and self._by_hitter(st, o):
            return ("hit_and_run", o)
        d = o - die
        if d > 0:
            if oppm[d] >= self.closes or self.my_pins >> d & 1:
                return ("point_closed", d)
            if self.max_per_point and me[d] >= self.max_per_point:
                return ("too_many_on_point", d)
            return None
        outside = sum(me[HOME + 1 :])
        if outside:
            return ("bear_off_not_home", outside)
        if d < 0:
            for q in range(HOME, o, -1):
                if me[q]:
                    return ("bear_off_higher_checker", q)
        return None

    def _hides(self, st: _SState, o: int, die: int) -> bool:
        if not self._by_hitter(st, o):
            return False
        d = o - die
        return d <= 0 or st[0][d] > 0

    def failure(self, st: _SState, o: int, die: int) -> tuple[str, int] | None:
        """The rule a step breaks, or None.  Caucasian: the hitter may hide or
        bear off only when no other step plays this die (RULES §3)."""
        found = self.basic(st, o, die)
        if found is None and self.caucasian and self._hides(st, o, die):
            for o2 in self.origins(st):
                if o2 != o and self.basic(st, o2, die) is None and not self._hides(st, o2, die):
                    return ("hit_and_bear_off" if o - die <= 0 else "hit_and_hide", o)
        return found

    def apply(self, st: _SState, o: int, die: int) -> tuple[_SState, Step, bool]:
        """The state after a legal step, the step, and whether it pinned."""
        me_t, oppm, hitmask, opp_pins, hitters = st
        by_hitter = self.track and self._by_hitter(st, o)
        d = o - die
        if d < 0:
            d = OFF
        me = list(me_t)
        me[o] -= 1
        me[d] += 1
        hit = pin = False
        if d and oppm[d] == 1:
            if self.hitting:
                hit = True
                changed = list(oppm)
                changed[d] = 0
                oppm = tuple(changed)
                hitmask |= 1 << d
            elif self.pinning and not opp_pins >> d & 1:
                pin = True
                opp_pins |= 1 << d
        if self.pinning and not me[o] and opp_pins >> o & 1:
            opp_pins &= ~(1 << o)  # my last checker leaves: the pinned one is free
        if self.track and (by_hitter or (hit and d <= HOME)):
            h = list(hitters)
            if by_hitter:
                h[o] -= 1
            if d:
                h[d] += 1
            hitters = tuple(h)
        return (tuple(me), oppm, hitmask, opp_pins, hitters), _step(o, d, die, hit), pin

    def result(self, st: _SState) -> Position:
        me, _, hitmask, opp_pins, _ = st
        side = self.side
        position = self.position
        opp = list(position.sides[1 - side])
        for d in _bits(hitmask):
            opp[self.cross[d]] -= 1
            opp[BAR] += 1
        sides = (me, tuple(opp)) if side == 0 else (tuple(opp), me)
        if not self.pinning:
            return Position(sides, position.extra)
        mine = tuple(_bits(self.my_pins))
        theirs = tuple(sorted(self.cross[q] for q in _bits(opp_pins)))
        pinned = (mine, theirs) if side == 0 else (theirs, mine)
        mother = (POINTS in pinned[0], POINTS in pinned[1])
        extra = dict(position.extra)
        extra["pinned"] = pinned
        extra["mother_pinned"] = mother
        return Position(sides, tuple(sorted(extra.items())))


def _pinned(position: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    value = position.get("pinned")
    if value is None:
        return ((), ())
    return cast(tuple[tuple[int, ...], tuple[int, ...]], value)


def _special_plays(r: _Rules, side: int, position: Position, moves: tuple[int, ...]) -> list[Play]:
    """Every legal play under the short family's special rules.

    Forced moves: as many dice as possible, then the most pips (for three
    dice: the dice left unplayed are the smallest possible).  Old English
    (``optional_dice``), and Nauka (``partial_bear_off``) when the turn starts
    with bear-off allowed, accept any non-empty part of a legal sequence
    instead.  Tavla (``forced_bear_off``): of those, only the plays that bear
    off the most checkers.
    """
    v = r.variant
    turn = _Turn(r, side, position)
    start = turn.start
    optional = v.optional_dice or (v.partial_bear_off and not any(start[0][HOME + 1 :]))
    # result key (row, hits, pins) -> (dice used, pips, steps, state)
    results: dict[tuple[Any, ...], tuple[int, int, tuple[Step, ...], _SState]] = {}
    visited: set[tuple[Any, ...]] = set()
    stack: list[Step] = []

    def record(st: _SState, pips: int) -> None:
        key = (st[0], st[2], st[3])
        if key not in results:
            results[key] = (len(stack), pips, tuple(stack), st)

    def node(st: _SState, remaining: tuple[int, ...], pips: int) -> None:
        seen = (st, remaining)
        if seen in visited:
            return
        visited.add(seen)
        moved = False
        last = 0
        for i, die in enumerate(remaining):
            if die == last:
                continue
            last = die
            rest = remaining[:i] + remaining[i + 1 :]
            for o in turn.origins(st):
                if turn.failure(st, o, die) is not None:
                    continue
                moved = True
                nxt, step, _ = turn.apply(st, o, die)
                stack.append(step)
                if optional:
                    record(nxt, pips + die)
                node(nxt, rest, pips + die)
                stack.pop()
        if not moved and not optional:
            record(st, pips)

    node(start, moves, 0)
    node = None  # type: ignore[assignment]  # a closure cycle (engine/__init__.py)
    found = list(results.values())
    if not optional:
        most = max(f[0] for f in found)
        found = [f for f in found if f[0] == most]
        top = max(f[1] for f in found)
        found = [f for f in found if f[1] == top]
    if v.forced_bear_off:
        off = max(f[3][0][OFF] for f in found)
        found = [f for f in found if f[3][0][OFF] == off]
    if not found or not found[0][2]:
        return [Play((), position)]
    return [Play(f[2], turn.result(f[3])) for f in found]


def explode(variant: Variant, position: Position, side: int) -> Position:
    """Nuclear (RULES §3): ``side`` explodes the bomb.

    Every blot on the board (a point 1..24 holding exactly one checker) of
    either side goes to its owner's bar, and the bomb passes to the opponent
    (``extra["bomb"] = 1 - side``), who alone may explode it next.  Allowed
    when the bomb is nobody's yet (None, or the key absent) or ``side``'s.
    Pure: whether it is ``side``'s moment (before rolling, on turn) is the
    game's to check.  Raises `GameStateError` ``no_bomb`` (the variant has no
    bomb) or ``bomb_not_yours``.
    """
    if not variant.nuclear:
        raise GameStateError(
            "no_bomb", f"{variant.name} is played without the bomb", variant=variant.name
        )
    owner = position.get("bomb")
    if owner is not None and owner != side:
        raise GameStateError(
            "bomb_not_yours",
            "the bomb belongs to the opponent: only its owner may explode it",
            owner=owner,
            side=side,
        )
    rows: list[tuple[int, ...]] = []
    for row_t in position.sides:
        row = list(row_t)
        for q in _POINT_RANGE:
            if row[q] == 1:
                row[q] = 0
                row[BAR] += 1
        rows.append(tuple(row))
    return Position((rows[0], rows[1]), position.extra).with_extra("bomb", 1 - side)
