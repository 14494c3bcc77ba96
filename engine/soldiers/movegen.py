"""Legal Soldiers plays (RULES.md §3.1 over §2).

Everything works in the mover's numbering on four rows of 26 slots and the
generals:

    me, op   packed slots (see `engine.soldiers.state`): the mover's free
             checkers, and the opponent's free checkers by the MOVER's point
             numbers (slot 25 is the opponent's bar, 0 its off);
    pm, po   1 + class of the mover's checker pinned there (under the
             opponent), and of the opponent's checker pinned under the
             mover's checkers, 0 for none;
    gens     the mover's generals as sorted (now, start, hit) triples, so each
             is held to the retreat rule on its own.

`State` holds them as tuples for the notation's replay (`apply_step`); the
search (`search`) steps one mutable copy forward and back, keys boards by
integers kept up to date step by step, computes a board's steps once per
die, and tries only one order of two adjacent steps that commute (see
`_steps`).

Every prefix of every step sequence is a candidate play; candidates that
break a whole-play condition (a lone guard left with one attacker, a general
further back than it started without having hit) are dropped, and then the
§2 forced-move rules choose among the rest: most dice used, then the largest
dice.  Bearing off the side's last checker counts as using every die.
Results are kept one per resulting position, in the search's order (larger
die first, origins from the back).  Two different dice mostly skip the
search: `engine.soldiers.twodice` makes the plays from the position's own
steps where that is exact (most positions) and gives the same plays.
Doubles with no bear-off within reach are mostly made by
`engine.soldiers.journeys` (the checkers whose order matters walked step
by step, the others' steps added as sets); the others mostly go through
`engine.soldiers.doubles`, which walks
this search's tree in its order with less bookkeeping (no visited set, no
step memo, one integer key, rows built only for whole plays); the search
keeps the rest (several generals, doubles that cannot all be played but
where a checker on the bar may enter).  tests/benchmarks/bench_soldiers_movegen.py
times `legal_plays` against short nardy's generator on random game positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Final, NamedTuple

from engine.rules.board import BAR, BLACK, OFF, WHITE
from engine.soldiers.army import CHECKERS, CLASSES, DRUID, EVEN, GENERAL, ODD
from engine.soldiers.state import LONE, LONE_GUARD, ONE, SLOTS, SoldiersPosition

HOME: Final = 6

# What a step did where it landed.
PLAIN: Final = ""
HIT: Final = "hit"  # sent a blot (or a lone pin holder) to the bar
PIN: Final = "pin"  # a druid pinned a blot
ATTACK: Final = "attack"  # first of two checkers onto a lone guard
CAPTURE: Final = "capture"  # second of two: the guard goes to the bar

_General = tuple[int, int, int]  # (now, start, hit 0/1)
State = tuple[
    tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[_General, ...]
]


@dataclass(frozen=True, slots=True)
class SoldierStep:
    """One checker moved by one die, in the mover's numbering: ``origin`` 25
    is the bar, ``dest`` 0 borne off; ``dest > origin`` is a general's
    backward step.  ``effect`` is what the landing did (`HIT`, `PIN`,
    `ATTACK`, `CAPTURE`, or `PLAIN`)."""

    origin: int
    dest: int
    die: int
    cls: int
    effect: str = PLAIN

    @property
    def hit(self) -> bool:
        return self.effect in (HIT, CAPTURE)


class SoldierPlay(NamedTuple):
    """The steps of a turn and the position after it (the opponent to move);
    a named tuple like `SoldiersPosition`, for the same reason."""

    steps: tuple[SoldierStep, ...]
    position: SoldiersPosition

    @property
    def dice_used(self) -> tuple[int, ...]:
        return tuple(s.die for s in self.steps)


def dice_moves(dice: Sequence[int]) -> tuple[int, ...]:
    """The dice to play, larger first; equal dice four times."""
    if len(dice) != 2 or not (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6):
        raise ValueError(f"not a roll of two dice: {tuple(dice)!r}")
    a, b = dice
    if a == b:
        return (a,) * 4
    return (a, b) if a > b else (b, a)


# A row in the other side's numbering: points q <-> 25 - q, off and bar kept.
_MIRRORED: Final = itemgetter(OFF, *range(24, 0, -1), BAR)

# SoldiersPosition and SoldierPlay are named tuples: ``_make(cls, fields)``
# builds one from its fields in order without the Python-level __new__
# (one C call for what is most of the work per play: thousands a second);
# the check keeps the fields' order true if the classes change.
if SoldiersPosition._fields != ("free", "pinned", "turn") or SoldierPlay._fields != (
    "steps",
    "position",
):
    raise RuntimeError("engine.soldiers.movegen builds its results directly: update it")
_make: Final = tuple.__new__

# Steps are immutable: each distinct one is built once and shared.
_STEPS: dict[tuple[int, int, int, int, str], SoldierStep] = {}


def _step(o: int, d: int, die: int, cls: int, effect: str) -> SoldierStep:
    key = (o, d, die, cls, effect)
    step = _STEPS.get(key)
    if step is None:
        step = _STEPS[key] = SoldierStep(o, d, die, cls, effect)
    return step


# The fast paths look steps up by one integer, rank * 8 + effect code (a
# step's rank in `_steps` names its die, origin, class and direction).
_EFFECT_CODE: Final = {PLAIN: 0, HIT: 1, PIN: 2, ATTACK: 3, CAPTURE: 4}
_BY_RANK: dict[int, SoldierStep] = {}


def view(position: SoldiersPosition, side: int) -> State:
    """The mover's view: the opponent's slots turned to the mover's numbers."""
    op = _MIRRORED(position.free[1 - side])
    po = _MIRRORED(position.pinned[1 - side])
    me = position.free[side]
    pm = position.pinned[side]
    # GENERAL is class 0: a slot's low five bits count its generals
    gens = [(q, q, 0) for q in range(SLOTS) if me[q] & 31 for _ in range(me[q] & 31)]
    if GENERAL + 1 in pm:
        gens += [(q, q, 0) for q in range(SLOTS) if pm[q] == GENERAL + 1]
    return (me, op, pm, po, tuple(sorted(gens)))


def position_of(position: SoldiersPosition, side: int, st: State) -> SoldiersPosition:
    """The position a state stands for, the opponent to move."""
    me, op, pm, po, _ = st
    of = _MIRRORED(op)
    opin = _MIRRORED(po)
    if side == WHITE:
        return SoldiersPosition((me, of), (pm, opin), BLACK)
    return SoldiersPosition((of, me), (opin, pm), WHITE)


def _landing(
    me: Sequence[int], op: Sequence[int], pm: Sequence[int], d: int, cls: int
) -> str | None:
    """What landing a ``cls`` checker on my point ``d`` does (None: illegal)."""
    v = op[d]
    if not v:
        return PLAIN
    if v % 31 >= 2:
        return None
    if v == LONE_GUARD:
        if cls == DRUID:
            return None
        return CAPTURE if me[d] else ATTACK
    if cls == DRUID:
        return None if pm[d] else PIN  # a lone pin holder is never pinned
    return HIT


def _landings(
    me: Sequence[int], op: Sequence[int], pm: Sequence[int], d: int
) -> tuple[str | None, str | None]:
    """`_landing` on my point ``d`` for every class but the druid, and for
    the druid: what a step's generators ask once per destination."""
    w = op[d]
    if not w:
        return PLAIN, PLAIN
    if w % 31 >= 2:
        return None, None
    if w == LONE_GUARD:
        return (CAPTURE if me[d] else ATTACK), None
    return HIT, (None if pm[d] else PIN)


def _movable(v: int, odd: int) -> tuple[int, ...]:
    """The classes in packed slot ``v`` that a die of parity ``odd`` moves."""
    return tuple(
        cls
        for cls in range(6)
        if v >> (5 * cls) & 31 and not (cls == EVEN and odd) and not (cls == ODD and not odd)
    )


# per parity: packed slot -> its classes that such a die moves (filled on use;
# a side has at most 6 * 16 kinds of slot that occur in play)
_MOVABLE: tuple[dict[int, tuple[int, ...]], dict[int, tuple[int, ...]]] = ({}, {})


def movable_classes(v: int, odd: int) -> tuple[int, ...]:
    """`_movable`, kept per slot value in `_MOVABLE` (the hot loops read
    `_MOVABLE` themselves)."""
    moved = _MOVABLE[odd].get(v)
    if moved is None:
        moved = _MOVABLE[odd][v] = _movable(v, odd)
    return moved


# A step as the search keeps it: (origin, cls, dest, effect, rank).
# The points from n down to 1, for each n.
_DOWN_FROM: Final = tuple(tuple(range(min(n, 24), 0, -1)) for n in range(31))
_Step = tuple[int, int, int, str, int]


def _steps(
    me: Sequence[int],
    op: Sequence[int],
    pm: Sequence[int],
    die: int,
    only: Sequence[int] = _DOWN_FROM[24],
) -> list[_Step]:
    """Every single step for one die (with no checker on the bar, only from
    the points ``only``, highest first), in the search's order, with its rank.

    The rank is the step's place in that order (larger die first, origins
    from the back, classes in order, a general's forward step first),
    counted down: a higher rank is tried earlier.  Two steps neither from
    the bar nor bearing off commute (either order is legal and ends on the
    same board, each step with the same effect) when they are on four
    different points (neither reads or writes a slot the other touches; the
    opponent's bar only adds up), and, for classes other than the general,
    when they share one point p and the step landing on p lands on nothing
    and frees no pin, the one leaving p moving a checker that stood there
    before the other landed.  Of two such adjacent steps the search takes
    only the order it tries first; any play can be reordered that way one
    swap at a time, so every board is still reached, and the first path to
    each board (the one reported) is never cut.
    """
    out: list[_Step] = []
    odd = die & 1
    if me[BAR]:
        origins: Sequence[int] = (BAR,)
        bear = False
        top = BAR
    else:
        origins = [q for q in only if me[q]]
        bear = not any(me[HOME + 1 :])
        top = 0
        if bear:
            for q in range(BAR, 0, -1):
                if me[q] or pm[q]:
                    top = q
                    break
    movable_of = _MOVABLE[odd]
    for o in origins:
        v = me[o]
        if op[o] == LONE_GUARD and v % 31 == 1 and o != BAR:
            continue  # the first attacker waits on the guard's point for the second
        d = o - die
        movable = movable_of.get(v)
        if movable is None:
            movable = movable_of[v] = _movable(v, odd)
        base = (die * 32 + o) * 8 + 7
        # what landing on d does, for any class but the druid and for the druid
        if d < 1:
            other = druid = PLAIN if bear and (d == 0 or o == top) else None
            d = OFF
        else:
            other, druid = _landings(me, op, pm, d)
        for cls in movable:
            effect = druid if cls == DRUID else other
            if effect is not None:
                out.append((o, cls, d, effect, (base - cls) * 2 + 1))
            if cls == GENERAL and o != BAR and o + die <= 24:
                effect = _landing(me, op, pm, o + die, cls)
                if effect is not None:
                    out.append((o, cls, o + die, effect, (base - cls) * 2))
    return out


def attacker_waits(me: Sequence[int], op: Sequence[int]) -> bool:
    """Whether a checker of mine stands alone on a lone guard's point: a
    first attack not yet followed by its capture (``op`` in my numbering)."""
    if LONE_GUARD not in op:
        return False
    points = op[1:BAR]  # (a lone guard off or on the bar attacks nothing)
    at = -1
    for _ in range(points.count(LONE_GUARD)):  # (the row's own count and index find them)
        at = points.index(LONE_GUARD, at + 1)
        if me[at + 1]:
            return True
    return False


def general_start(me: Sequence[int], pm: Sequence[int]) -> int:
    """Where the mover's only general begins the turn: 25 on the bar, 0 if
    it has none (``me``, ``pm``: its free and pinned rows)."""
    for q in range(BAR, 0, -1):
        if me[q] & 31:  # GENERAL is class 0: a slot's low five bits
            return q  # free
    return pm.index(GENERAL + 1) if GENERAL + 1 in pm else 0  # pinned, or none


def may_bear_off(me: Sequence[int], die: int) -> bool:
    """Whether a double of ``die`` may bear a checker off this turn: the
    mover's free checkers outside its home (the bar's too) need at most
    three steps between them to come home, leaving a die to bear off with
    (pinned checkers never block bearing off).  Four or more outside need
    four steps at least."""
    if sum(me[HOME + 1 :]) % 31 >= 4:  # a slot's value mod 31 is its count
        return False
    steps = 0
    for q in range(HOME + 1, BAR + 1):
        n = me[q] % 31
        if n:
            steps += n * ((q - HOME + die - 1) // die)  # each step moves ``die`` pips
            if steps >= 4:
                return False
    return True


def can_enter(position: SoldiersPosition, die: int) -> bool:
    """Whether a checker of the mover's on the bar may enter with a double
    of ``die``: a class that die moves, onto a point it may land on; a
    first attack on a lone guard counts only where something could capture
    it after: a second checker on the bar, or a general on the board that
    the three dice left can walk back onto the entry point (one, two or
    three steps back net: a step forward costs one back)."""
    side = position.turn
    me = position.free[side]
    waiting = me[BAR]
    d = BAR - die
    op = _MIRRORED(position.free[1 - side])
    for cls in _movable(waiting, die & 1):
        effect = _landing(me, op, position.pinned[side], d, cls)
        if effect is not None and (
            effect is not ATTACK
            or waiting % 31 > 1
            # GENERAL is class 0: a slot's low five bits count its generals
            or any(me[d - k * die] & 31 for k in (1, 2, 3) if d - k * die >= 1)
            or GENERAL + 1 in position.pinned[side]  # freed by a hit, it may walk back
        ):
            return True
    return False


def legal_steps(st: State, die: int) -> list[tuple[int, int, int, str]]:
    """Every single step ``(origin, cls, dest, effect)`` for one die."""
    return [(o, cls, d, effect) for o, cls, d, effect, _ in _steps(st[0], st[1], st[2], die)]


def apply_step(
    st: State, o: int, cls: int, d: int, effect: str, general: _General | None = None
) -> State:
    """The state after a legal step; ``general`` names which general moves
    when ``cls`` is the general (default: the first one on ``o``)."""
    me_t, op_t, pm_t, po_t, gens = st
    me = list(me_t)
    me[o] -= ONE[cls]
    op = op_t
    pm = pm_t
    po = po_t
    if o != BAR and not me[o] and po_t[o]:
        # my last checker leaves: the checker pinned under it is free, where it stands
        opl = list(op_t)
        opl[o] += ONE[po_t[o] - 1]
        op = tuple(opl)
        pol = list(po_t)
        pol[o] = 0
        po = tuple(pol)
    if effect in (HIT, CAPTURE):
        opl = list(op)
        opl[BAR] += opl[d]
        opl[d] = 0
        op = tuple(opl)
        if pm[d]:
            me[d] += ONE[pm[d] - 1]  # my checker held there is free
            pml = list(pm)
            pml[d] = 0
            pm = tuple(pml)
    elif effect == PIN:
        pol = list(po)
        pol[d] = LONE[op[d]] + 1
        po = tuple(pol)
        opl = list(op)
        opl[d] = 0
        op = tuple(opl)
    me[d] += ONE[cls]
    if cls == GENERAL:
        if general is None:
            general = next(g for g in gens if g[0] == o)
        moved = (d, general[1], general[2] | int(effect in (HIT, CAPTURE)))
        gl = list(gens)
        gl.remove(general)
        gl.append(moved)
        gens = tuple(sorted(gl))
    return (tuple(me), op, pm, po, gens)


def generals_at(st: State, o: int) -> list[_General]:
    """The distinct generals on my point ``o`` (they differ by start or hit)."""
    return sorted({g for g in st[4] if g[0] == o})


# The search's board key: three integers that pack my slots, the opponent's
# slots (30 bits a slot, enough for 15 checkers of every class) and both
# sides' pins (3 bits a slot); equal keys are equal boards.
_Key = tuple[int, int, int]
_AT: Final = tuple(tuple(ONE[c] << (30 * q) for q in range(SLOTS)) for c in range(CLASSES))
_SLOT: Final = tuple(1 << (30 * q) for q in range(SLOTS))
_MY_PIN: Final = tuple(1 << (3 * q) for q in range(SLOTS))
_OP_PIN: Final = tuple(1 << (3 * (SLOTS + q)) for q in range(SLOTS))
# The fast generators pack those three integers into one: each stays below
# 2**800 (26 slots of 30 bits, or 52 pins of 3), so the opponent's part is
# shifted past mine and the pins past both, and equal sums are equal boards.
# They count it from the turn's start (the start is 0, a board its sum less
# the start's): equal differences are equal boards too, the sum is never
# built, and a board a few checkers from the start has a short key.
_OP_SHIFT: Final = 800
_PIN_SHIFT: Final = 1600
_OP_AT: Final = tuple(tuple(v << _OP_SHIFT for v in row) for row in _AT)
_OP_SLOT: Final = tuple(v << _OP_SHIFT for v in _SLOT)
_MY_PIN_AT: Final = tuple(v << _PIN_SHIFT for v in _MY_PIN)
_OP_PIN_AT: Final = tuple(v << _PIN_SHIFT for v in _OP_PIN)
_NO_LAST: Final = (1 << 16, 0, 0, 0, PLAIN)  # above every rank: nothing is cut after it
_Rows = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]
_Found = tuple[int, int, tuple[SoldierStep, ...], _Rows | None]


def search(position: SoldiersPosition, side: int, moves: tuple[int, ...]) -> dict[_Key, _Found]:
    """The valid plays by resulting board: (dice used, their sum, steps,
    rows after them: mine, the opponent's free checkers in its numbering,
    my pins, its pins).  Every play the forced-move rules keep is there; plays found
    after a longer (or larger) one are skipped, as those rules drop them.

    One set of mutable slots is stepped and stepped back (no copies); the
    board is keyed by integers kept up to date step by step, and the steps
    of a board are computed once per die."""
    me0, op0, pm0, po0, gens0 = view(position, side)
    me, op, pm, po = list(me0), list(op0), list(pm0), list(po0)
    everything = (len(moves), sum(moves))
    doubles = len(moves) > 2
    results: dict[_Key, _Found] = {}
    visited: set[
        tuple[int, int, int, tuple[_General, ...], tuple[int, ...], tuple[int, int, int, int, str]]
    ]
    visited = set()
    known_steps: dict[tuple[int, int, int, int, int], list[_Step]] = {}
    stack: list[SoldierStep] = []
    best = [(0, 0)]
    at, slot, my_pin, op_pin = _AT, _SLOT, _MY_PIN, _OP_PIN
    kme0 = sum(v * slot[q] for q, v in enumerate(me) if v)
    kop0 = sum(v * slot[q] for q, v in enumerate(op) if v)
    kpin0 = sum(pm[q] * my_pin[q] + po[q] * op_pin[q] for q in range(SLOTS) if pm[q] or po[q])
    their_free, their_pins0 = position.free[1 - side], position.pinned[1 - side]

    def valid(gens: tuple[_General, ...]) -> bool:
        """The whole-play conditions on the slots being stepped."""
        if attacker_waits(me, op):
            return False
        for now, begun, hit in gens:  # noqa: SIM110 - a plain loop: this runs for every result
            if now > begun and not hit:
                return False
        return True

    def keep(key: _Key, used: int, pips: int, steps: tuple[SoldierStep, ...]) -> None:
        old = results.get(key)
        if old is not None and (used, pips) <= (old[0], old[1]):
            return
        # the rows after the play (the opponent's in its own numbering);
        # rows nothing changed are the position's own
        theirs = their_free if key[1] == kop0 else _MIRRORED(op)
        if key[2] == kpin0:
            results[key] = (used, pips, steps, (tuple(me), theirs, pm0, their_pins0))
        else:
            results[key] = (used, pips, steps, (tuple(me), theirs, tuple(pm), _MIRRORED(po)))

    def node(
        remaining: tuple[int, ...],
        used: int,
        pips: int,
        last: tuple[int, int, int, int, str],
        kme: int,
        kop: int,
        kpin: int,
        gens: tuple[_General, ...],
        risky: bool,
    ) -> None:
        # ``last``: (rank, origin, dest, class, effect) of the step that led
        # here; `_NO_LAST` when it commutes with nothing (an entry, a
        # bear-off, the start).
        if doubles:  # with two dice no board is reached twice before the last die
            seen = (kme, kop, kpin, gens, remaining, last)
            if seen in visited:
                return
            visited.add(seen)
        done = me[OFF] % 31 == CHECKERS
        if done:
            used, pips = everything
        if (used, pips) >= best[0] and (not risky or valid(gens)):
            best[0] = (used, pips)
            if done:
                keep((kme, kop, kpin), used, pips, tuple(stack))
            else:
                # Most turns use every die: the rows of a shorter play are
                # made (by replaying it) only if it is kept.
                key = (kme, kop, kpin)
                old = results.get(key)
                if old is None or (used, pips) > (old[0], old[1]):
                    results[key] = (used, pips, tuple(stack), None)
        if done:
            return
        last_rank, last_o, last_d, last_cls, last_effect = last
        prev = 0
        for i, die in enumerate(remaining):
            if die == prev:
                continue
            prev = die
            rest = remaining[:i] + remaining[i + 1 :]
            # A step from higher than one die above both points of the last
            # step, with a die no smaller than the last one, commutes with it
            # and comes first in the search's order: it is cut below, so it
            # is not even listed (bear-offs are from the home).
            top = max(last_o, last_d) + die if die >= last_rank >> 9 else 24
            if top < HOME:
                top = HOME
            memo = (kme, kop, kpin, die, top)
            steps = known_steps.get(memo)
            if steps is None:
                steps = known_steps[memo] = _steps(me, op, pm, die, _DOWN_FROM[top])
            for o, cls, d, effect, rank in steps:
                if rank > last_rank and d != OFF and o != BAR:
                    if o != last_o and o != last_d and d != last_o and d != last_d:
                        continue  # commutes with the step before (see `_steps`)
                    if cls != GENERAL and last_cls != GENERAL and o != last_o and d != last_d:
                        if (
                            o == last_d
                            and last_effect is PLAIN
                            and me[o] >> 5 * cls & 31 > (cls == last_cls)
                            and (not po[o] or me[o] % 31 >= 3)
                        ):
                            continue  # leaves where the last step landed, from before it
                        if d == last_o and effect is PLAIN:
                            continue  # lands, on nothing, where the last step left
                one = ONE[cls]
                if not rest and effect is not ATTACK:
                    # The last die: the board's key first, and the slots are
                    # stepped only for a board not found yet with every die
                    # (one found stays, whether or not this path is valid).
                    k_me = kme - at[cls][o] + at[cls][d]
                    k_op = kop
                    k_pin = kpin
                    if o != BAR and me[o] == one and po[o]:
                        k_op += at[po[o] - 1][o]
                        k_pin -= po[o] * op_pin[o]
                    if effect is HIT or effect is CAPTURE:
                        k_op += op[d] * (slot[BAR] - slot[d])
                        if pm[d]:
                            k_me += at[pm[d] - 1][d]
                            k_pin -= pm[d] * my_pin[d]
                    elif effect is PIN:
                        k_pin += (LONE[op[d]] + 1) * op_pin[d]
                        k_op -= op[d] * slot[d]
                    old = results.get((k_me, k_op, k_pin))
                    if old is not None and (old[0], old[1]) >= everything:
                        continue
                    if not risky and cls != GENERAL:  # a valid path: every die is used
                        best[0] = everything
                # step: leave o (freeing a checker pinned under my last one there)
                me[o] -= one
                k_me = kme - at[cls][o]
                k_op = kop
                k_pin = kpin
                released = 0
                if o != BAR and not me[o] and po[o]:
                    released = po[o]
                    op[o] += ONE[released - 1]
                    k_op += at[released - 1][o]
                    po[o] = 0
                    k_pin -= released * op_pin[o]
                hit_value = freed = 0
                if effect is HIT or effect is CAPTURE:
                    hit_value = op[d]
                    op[BAR] += hit_value
                    op[d] = 0
                    k_op += hit_value * (slot[BAR] - slot[d])
                    freed = pm[d]
                    if freed:  # my checker held there is free
                        me[d] += ONE[freed - 1]
                        k_me += at[freed - 1][d]
                        pm[d] = 0
                        k_pin -= freed * my_pin[d]
                elif effect is PIN:
                    hit_value = op[d]
                    po[d] = LONE[hit_value] + 1
                    k_pin += po[d] * op_pin[d]
                    op[d] = 0
                    k_op -= hit_value * slot[d]
                me[d] += one
                k_me += at[cls][d]
                step = _step(o, d, die, cls, effect)
                after = (rank, o, d, cls, effect) if o != BAR and d != OFF else _NO_LAST
                # only a first attacker or a general's backward step can
                # break a whole-play condition
                risk = risky or effect is ATTACK or d > o
                if cls == GENERAL:
                    hit = int(effect is HIT or effect is CAPTURE)
                    choices: list[tuple[_General, ...]]
                    if len(gens) == 1:  # the usual army: one general, no choice
                        choices = [((d, gens[0][1], gens[0][2] | hit),)]
                    else:
                        choices = []
                        for general in sorted({g for g in gens if g[0] == o}):
                            moved = list(gens)
                            moved.remove(general)
                            moved.append((d, general[1], general[2] | hit))
                            choices.append(tuple(sorted(moved)))
                    for now in choices:
                        if rest:
                            stack.append(step)
                            node(rest, used + 1, pips + die, after, k_me, k_op, k_pin, now, risk)
                            stack.pop()
                        elif not risk or valid(now):
                            best[0] = everything
                            keep((k_me, k_op, k_pin), *everything, (*stack, step))
                elif rest:
                    stack.append(step)
                    node(rest, used + 1, pips + die, after, k_me, k_op, k_pin, gens, risk)
                    stack.pop()
                elif not risk or valid(gens):
                    # The last die: every die is used, the best score there
                    # is, so the first path to a board stands.
                    best[0] = everything
                    key = (k_me, k_op, k_pin)
                    if key not in results or results[key][:2] < everything:
                        keep(key, *everything, (*stack, step))
                undo_step(me, op, pm, po, o, cls, d, effect, released, hit_value, freed)

    node(moves, 0, 0, _NO_LAST, kme0, kop0, kpin0, gens0, not valid(gens0))
    node = None  # type: ignore[assignment]  # a closure cycle (engine/__init__.py)
    return results


def searched_plays(position: SoldiersPosition, dice: Sequence[int]) -> list[SoldierPlay]:
    """Every legal play by the search alone (any position): what
    `engine.soldiers.plays.legal_plays` gives, which asks the fast path first."""
    side = position.turn
    found = search(position, side, dice_moves(dice)).values()
    most = max((f[0], f[1]) for f in found)
    # in the search's order: larger die first, origins from the back
    plays: list[SoldierPlay] = []
    for used, pips, steps, rows in found:
        if (used, pips) != most:
            continue
        if rows is None:
            st = view(position, side)
            for step in steps:
                st = apply_step(st, step.origin, step.cls, step.dest, step.effect)
            rows = (st[0], _MIRRORED(st[1]), st[2], _MIRRORED(st[3]))
        mine, theirs, my_pins, their_pins = rows
        if side == WHITE:  # the opponent to move
            after = SoldiersPosition((mine, theirs), (my_pins, their_pins), BLACK)
        else:
            after = SoldiersPosition((theirs, mine), (their_pins, my_pins), WHITE)
        plays.append(SoldierPlay(steps, after))
    return plays


def winner(position: SoldiersPosition) -> int | None:
    """The side that has borne off all its checkers, if any."""
    for side in (WHITE, BLACK):
        if position.off(side) == CHECKERS:
            return side
    return None


# At the end: the fast generators build on this module's step lists and keys.
_BAR_SLOT: Final = _OP_SLOT[BAR]


def do_step(
    me: list[int],
    op: list[int],
    pm: list[int],
    po: list[int],
    o: int,
    cls: int,
    d: int,
    effect: str,
) -> tuple[int, int, int, int]:
    """Play a legal step on the slot lists: its change to the packed board
    key (`_OP_AT` and the rest), and what `undo_step` needs (the pin
    released, the value hit or pinned, my checker freed)."""
    one = ONE[cls]
    me[o] -= one
    k = _AT[cls][d] - _AT[cls][o]
    released = hit_value = freed = 0
    if o != BAR and not me[o] and po[o]:  # my last checker leaves: the pinned one is free
        released = po[o]
        op[o] += ONE[released - 1]
        k += _OP_AT[released - 1][o] - released * _OP_PIN_AT[o]
        po[o] = 0
    if effect is HIT or effect is CAPTURE:
        hit_value = op[d]
        op[BAR] += hit_value
        op[d] = 0
        k += hit_value * (_BAR_SLOT - _OP_SLOT[d])
        freed = pm[d]
        if freed:  # my checker held there is free
            me[d] += ONE[freed - 1]
            k += _AT[freed - 1][d] - freed * _MY_PIN_AT[d]
            pm[d] = 0
    elif effect is PIN:
        hit_value = op[d]
        po[d] = LONE[hit_value] + 1
        k += po[d] * _OP_PIN_AT[d] - hit_value * _OP_SLOT[d]
        op[d] = 0
    me[d] += one
    return k, released, hit_value, freed


def undo_step(
    me: list[int],
    op: list[int],
    pm: list[int],
    po: list[int],
    origin: int,
    cls: int,
    dest: int,
    effect: str,
    released: int,
    hit_value: int,
    freed: int,
) -> None:
    """Take back one step on the slot lists (the search and the fast path both step
    forward and back on one copy): the checker of class ``cls`` returns from ``dest`` to
    ``origin``; what it hit or pinned (``hit_value``) goes back, the checker it freed
    (``freed``, class + 1) is pinned again, and the pin it released (``released``)
    holds again."""
    me[dest] -= ONE[cls]
    if effect is HIT or effect is CAPTURE:
        op[dest] = hit_value
        op[BAR] -= hit_value
        if freed:
            me[dest] -= ONE[freed - 1]
            pm[dest] = freed
    elif effect is PIN:
        op[dest] = hit_value
        po[dest] = 0
    if released:
        op[origin] -= ONE[released - 1]
        po[origin] = released
    me[origin] += ONE[cls]
