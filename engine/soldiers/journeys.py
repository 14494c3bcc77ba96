"""Soldiers plays of a double as journeys, where no step can change another's.

A play of a double is four steps of one die.  Where

- nothing can be borne off this turn (four or more of the mover's checkers
  outside its home, none on the bar),
- the mover has at most one general,
- no checker of the mover can land on an opposing lone guard (an attack
  needs its capture) or on a lone checker holding one of the mover's pinned
  (hitting it frees that checker, which may then move),
- no other checker of the mover can land where its druid can pin a blot
  (the first lander there pins or hits), and it has one druid at most,
- and no point where the mover holds a pin can be left empty but by a lone
  checker other than the general, with nothing else able to land there
  (the freed checker could then be hit),

each step's landing does the same whatever came before it: onto nothing or
an own checker it only moves, onto a blot it hits (the first lander; a later
one finds the point empty) or, the druid, pins it (freed again when the
druid walks on), and a closed point stays closed.  A play is then
a set of journeys, each one checker's walk of one or more steps from where
it stood, and its position is the start plus each journey's change, less
the blots hit (the union of the journeys' hits) and the blot the druid
ends on, pinned.  The general walks both
ways, so its journeys are listed step by step (at most 30 walks of up to
four steps), each with where it ends and what it hit; it may end further
back than it began only if it hit (played first, it is the first lander on
every blot it meets).

Plays come out one per resulting position (journeys that chain through a
point of the same class give the same position in more than one way), each
with a legal path: the general's walk first, then the other journeys one
after another, from the back.  None outside the positions above, or when no
play uses all four dice (the forced-move rules then choose), so that
`engine.soldiers.plays` asks the exact walk (`engine.soldiers.doubles`).
"""

from __future__ import annotations

from typing import Final

from engine.rules.board import BAR, BLACK, WHITE
from engine.soldiers.army import CLASSES, EVEN, GENERAL, ODD
from engine.soldiers.movegen import (
    _AT,
    _BUILDERS,
    _MIRRORED,
    _OP_SLOT,
    ATTACK,
    CAPTURE,
    HIT,
    HOME,
    PIN,
    PLAIN,
    SoldierPlay,
    SoldierStep,
    _step,
)
from engine.soldiers.movegen import _landing as landing  # the one rule of a landing
from engine.soldiers.state import LONE, ONE, SoldiersPosition

_FULL: Final = 4
_BAR_SLOT: Final = _OP_SLOT[BAR]

_Steps = tuple[SoldierStep, ...]
# A journey: its change to my part of the board key, the blots it hits (bit
# per point), its steps, and its origin, end and class's unit (to make the row).
_Journey = tuple[int, int, _Steps, int, int, int]
# By the blots hit, pinned and freed: the board key's change, the
# opponent's free row and both sides' pin rows (white's first).
_Row = tuple[int, ...]
_Theirs = tuple[int, _Row, tuple[_Row, _Row]]


class _Declined(Exception):
    """A landing that could change what another step does: the walk answers."""


def journey_plays(position: SoldiersPosition, die: int) -> list[SoldierPlay] | None:
    """The legal plays of a double of ``die`` (see the module), or None."""
    side = position.turn
    me0 = position.free[side]
    if me0[BAR] or sum(me0[HOME + 1 :]) % 31 < _FULL:
        return None
    pm0 = position.pinned[side]
    if (sum(me0[1:]) & 31) + pm0.count(GENERAL + 1) > 1:  # GENERAL is class 0
        return None
    their_free, their_pins = position.free[1 - side], position.pinned[1 - side]
    op0 = _MIRRORED(their_free)
    po0 = _MIRRORED(their_pins)
    # points where my lone checker (not the general) holds a pin: it frees
    # the pinned one by leaving
    holds = 0
    for q in range(1, BAR):
        if po0[q] and me0[q] % 31 <= _FULL:
            if me0[q] % 31 > 1 or me0[q] & 31:
                return None  # several could leave, or the general walks away and back
            holds |= 1 << q
    try:
        general, walks, walked = _general_walks(me0, op0, pm0, die)
        units, landed, pinnable = _units(me0, op0, pm0, die, holds)
    except _Declined:
        return None
    if pinnable & (landed | walked):
        return None  # another checker may land first where the druid would pin
    if holds & (landed | walked | pinnable):
        return None  # a checker freed there could be hit or pinned again

    plays: list[SoldierPlay] = []
    add = plays.append
    seen: set[int] = set()  # boards made (journeys that chain meet one twice)
    white = side == WHITE
    turn = BLACK if white else WHITE
    same_pins = (pm0, their_pins) if white else (their_pins, pm0)
    # by the blots hit and pinned: the board key's change, the opponent's
    # row and both sides' pins
    by_hits: dict[int, _Theirs] = {0: (0, their_free, same_pins)}
    new, set_free, set_pinned, set_turn, set_steps, set_position = _BUILDERS
    row = list(me0)  # stepped forward and back as journeys are chosen
    left = [count for _, count in units]
    count = len(units)
    # the general's walk being completed: its key change and hits, and how
    # many steps the other checkers play
    walk_key = walk_hits = want = 0

    def make(key: int, hits: int, steps: _Steps, overlap: int) -> None:
        """The play of the walk and the journeys chosen (mine in ``row``),
        unless its board is known."""
        every = walk_hits | hits
        theirs = by_hits.get(every)
        if theirs is None:
            theirs = by_hits[every] = _theirs(their_free, pm0, their_pins, op0, po0, every, white)
        board = walk_key + key + theirs[0]
        if board in seen:
            return
        seen.add(board)
        if overlap or walk_hits & hits:
            steps = _first_landers(steps)
        mine = tuple(row)
        built = new(SoldiersPosition)  # the opponent to move
        set_free(built, (mine, theirs[1]) if white else (theirs[1], mine))
        set_pinned(built, theirs[2])
        set_turn(built, turn)
        play = new(SoldierPlay)
        set_steps(play, steps)
        set_position(play, built)
        add(play)

    def choose(
        unit: int, shortest: int, steps: int, key: int, hits: int, path: _Steps, overlap: int
    ) -> None:
        """The other checkers' journeys, ``want`` steps in all: in order (by
        unit, then length), so each set is met once.  A unit's journeys are
        one of each length from 1, shortest first."""
        need = want - steps  # the length of a journey that completes the play
        for i in range(unit, count):
            if not left[i]:
                continue
            journeys = units[i][0]
            first = shortest if i == unit else 0
            if need <= len(journeys) and need > first:
                # the journey that completes the play
                key_change, journey_hits, journey_steps, o, d, one = journeys[need - 1]
                row[o] -= one
                row[d] += one
                make(
                    key + key_change,
                    hits | journey_hits,
                    path + journey_steps,
                    overlap | (hits & journey_hits),
                )
                row[o] += one
                row[d] -= one
            if need > 1:
                left[i] -= 1
                # shorter ones, then another checker of the same unit (as
                # long or longer) or a later unit
                for j in range(first, min(need - 1, len(journeys))):
                    key_change, journey_hits, journey_steps, o, d, one = journeys[j]
                    row[o] -= one
                    row[d] += one
                    choose(
                        i,
                        j,
                        steps + j + 1,
                        key + key_change,
                        hits | journey_hits,
                        path + journey_steps,
                        overlap | (hits & journey_hits),
                    )
                    row[o] += one
                    row[d] -= one
                left[i] += 1

    for walk in walks:
        walk_key, walk_hits, walk_steps, end = walk  # key and hits read by make()
        want = _FULL - len(walk_steps)
        row[general] -= 1  # GENERAL is class 0 (nothing moves when there is none)
        row[end] += 1
        if want:
            choose(0, 0, 0, 0, 0, walk_steps, 0)
        else:
            make(0, 0, walk_steps, 0)
        row[general] += 1
        row[end] -= 1
    return plays or None


def _landing(
    me: tuple[int, ...], op: tuple[int, ...], pm: tuple[int, ...], d: int, cls: int
) -> str | None:
    """What landing a ``cls`` checker on my point ``d`` does at the start
    (movegen's rule; None: it may not), or `_Declined` where that would
    depend on the other steps: an attack on a lone guard (it needs its
    capture), or a hit that frees my pinned checker (which may then move)."""
    effect = landing(me, op, pm, d, cls)
    if effect is ATTACK or effect is CAPTURE or (effect is HIT and pm[d]):
        raise _Declined
    return effect


def _units(
    me: tuple[int, ...], op: tuple[int, ...], pm: tuple[int, ...], die: int, holds: int
) -> tuple[list[tuple[list[_Journey], int]], int, int]:
    """Each class on each point other than the general that this die moves,
    with its journeys (shortest first) and how many checkers it has; the
    points those other than the druid may land on, and the blots the druid
    may pin (bits by point).  A journey's hits carry, besides the blots it
    hits (bit by point), the blot the druid ends on, pinned (bit 32 + the
    point), and the point where its checker alone held a pin (``holds``),
    freed as it leaves (bit 64 + the point); see `_theirs`."""
    odd = die & 1
    units: list[tuple[list[_Journey], int]] = []
    landed = pinnable = 0
    for o in range(24, die, -1):
        v = me[o]
        if not v:
            continue
        for cls in range(1, CLASSES):
            count = v >> 5 * cls & 31
            if not count or (cls == EVEN and odd) or (cls == ODD and not odd):
                continue
            journeys: list[_Journey] = []
            steps: tuple[SoldierStep, ...] = ()
            hits = 1 << 64 + o if holds >> o & 1 else 0
            x = o
            while len(steps) < _FULL and x - die >= 1:
                d = x - die
                effect = _landing(me, op, pm, d, cls)
                if effect is None:
                    break
                if effect is HIT:
                    hits |= 1 << d
                steps += (_step(x, d, die, cls, effect),)
                if effect is PIN:
                    if count > 1 or pinnable >> d & 1:
                        raise _Declined  # two druids: which one pins
                    pinnable |= 1 << d
                    ends = hits | 1 << 32 + d
                else:
                    landed |= 1 << d
                    ends = hits
                journeys.append((_AT[cls][d] - _AT[cls][o], ends, steps, o, d, 1 << 5 * cls))
                x = d
            if journeys:
                units.append((journeys, count))
    return units, landed, pinnable


def _general_walks(
    me: tuple[int, ...], op: tuple[int, ...], pm: tuple[int, ...], die: int
) -> tuple[int, list[tuple[int, int, tuple[SoldierStep, ...], int]], int]:
    """Where the free general stands (0: none free), its walks of 0..4
    steps that may end a play: (key change, hits, steps, end), one per end,
    hits and length, and the points it may land on (bits by point)."""
    general = next((q for q in range(1, 25) if me[q] & 31), 0)
    walks: dict[tuple[int, int, int], tuple[int, int, tuple[SoldierStep, ...], int]] = {}
    walks[(general, 0, 0)] = (0, 0, (), general)
    if not general:
        return 0, list(walks.values()), 0
    at = _AT[GENERAL]
    landed = [0]

    def walk(x: int, hits: int, steps: tuple[SoldierStep, ...]) -> None:
        for d in (x - die, x + die):
            if not 1 <= d <= 24:
                continue
            effect = _landing(me, op, pm, d, GENERAL)
            if effect is None:
                continue
            landed[0] |= 1 << d
            if effect is HIT and hits >> d & 1:
                effect = PLAIN  # hit on the way here: the point is empty now
            now_hits = hits | (1 << d) if effect is HIT else hits
            now = (*steps, _step(x, d, die, GENERAL, effect))
            # further back than it began only after a hit of its own
            if (d <= general or now_hits) and (d, now_hits, len(now)) not in walks:
                walks[(d, now_hits, len(now))] = (at[d] - at[general], now_hits, now, d)
            if len(now) < _FULL:
                walk(d, now_hits, now)

    walk(general, 0, ())
    return general, list(walks.values()), landed[0]


def _first_landers(steps: tuple[SoldierStep, ...]) -> tuple[SoldierStep, ...]:
    """The path (the general's walk, then the other journeys' steps) with a
    hit only where a point's blot is first landed on."""
    out: tuple[SoldierStep, ...] = ()
    hit = 0
    for step in steps:
        if step.effect is HIT:
            if hit >> step.dest & 1:
                step = _step(step.origin, step.dest, step.die, step.cls, PLAIN)
            hit |= 1 << step.dest
        out += (step,)
    return out


def _theirs(
    their_free: tuple[int, ...],
    pm: tuple[int, ...],
    their_pins: tuple[int, ...],
    op: tuple[int, ...],
    po: tuple[int, ...],
    hits: int,
    white: bool,
) -> _Theirs:
    """When the blots on my points ``hits`` go to the bar, the one at bit
    32 + its point is pinned (off the free rows) and the one pinned at bit
    64 + its point is freed: the board key's change, the opponent's free row
    (its numbering), and the pin rows in white's-first order."""
    key = 0
    changed = list(their_free)
    pinned = list(their_pins)
    for q in range(1, BAR):
        if hits >> q & 1:
            key += op[q] * (_BAR_SLOT - _OP_SLOT[q])
            changed[BAR] += changed[25 - q]
            changed[25 - q] = 0
        elif hits >> 32 + q & 1:
            key -= op[q] * _OP_SLOT[q]
            changed[25 - q] = 0
            pinned[25 - q] = LONE[op[q]] + 1
        elif hits >> 64 + q & 1:
            key += ONE[po[q] - 1] * _OP_SLOT[q]
            changed[25 - q] += ONE[pinned[25 - q] - 1]
            pinned[25 - q] = 0
    pins = their_pins if tuple(pinned) == their_pins else tuple(pinned)
    return key, tuple(changed), ((pm, pins) if white else (pins, pm))
