"""Soldiers plays of two different dice without the search, where that is exact.

`engine.soldiers.movegen.search` lists every board's steps and visits every
intermediate board.  For two different dice ``a > b`` most positions need
none of that: when

- at most one checker of the mover is on the bar, and at least one (two
  with none on the bar) of its free checkers stands outside its home, so
  nothing can be borne off this turn (an entered checker lands outside),
- it has at most one general, free, pinned or on the bar (so the
  whole-play condition on generals is about one known checker), and
- no opposing lone guard has one of its checkers on it (true at the start
  of every turn of a real game),

a step reads and writes only the slots of its origin and destination (the
opponent's bar only adds up; bearing off is out of reach, and the mover's
bar only decides that the first step enters).  So after a first step from
``o`` to ``d`` the second die's steps are those of the position without
the checker on the bar, except those from ``o``, ``d`` and the points one
die away from them (those that could leave or land there), which are
listed on the board after the first step.  Without a checker on the bar,
two steps on four different points make the same board in either order,
and the search reports the larger die first: so the plays are every first
``a`` step with every second ``b`` step, and the ``b``-first sequences
whose second step touches the first's points (a chain through the same
checker, a point freed or joined, a guard's capture).  With one on the bar
the first step enters, with either die, and any second step follows.
Whole-play conditions are checked per pair: a first attacker on a guard
must be followed by the second, and the general may end further back than
it began (the bar counts as furthest back) only if one of its steps hit.
Each resulting board keeps the path the search meets first (the smallest
(die order, ranks) key), and plays come out in the search's order, so
`legal_plays` gives exactly what the search gives, steps included
(tests/engine/soldiers/test_fastpath.py compares them).

When no play uses both dice (the forced-move rules need single steps or
a pass), or in the one case where the search's order of plays depends on
the single steps it kept (below), this returns None and the search answers.
"""

from __future__ import annotations

from itertools import compress
from operator import itemgetter
from typing import Final

from engine.rules.board import BAR, BLACK, WHITE
from engine.soldiers.army import DRUID, GENERAL
from engine.soldiers.movegen import (
    _AT,
    _BY_RANK,
    _EFFECT_CODE,
    _MIRRORED,
    _MOVABLE,
    _MY_PIN,
    _OP_PIN,
    _SLOT,
    ATTACK,
    CAPTURE,
    HIT,
    HOME,
    PIN,
    PLAIN,
    SoldierPlay,
    _movable,
    _new,
    _set_free,
    _set_pinned,
    _set_position,
    _set_steps,
    _set_turn,
    _Step,
    _step,
    _steps,
    undo_step,
)
from engine.soldiers.state import LONE, LONE_GUARD, ONE, SoldiersPosition

# A board's key is the sum of its steps' changes to the search's three
# integer keys (mine, the opponent's, the pins), packed in one integer:
# each part stays below 2**800 (26 slots of 30 bits, or 52 of 3), so equal
# sums are equal boards.
_OP_SHIFT: Final = 800
_PIN_SHIFT: Final = 1600
_GENERAL_SHIFT: Final = 5 * GENERAL
# the points one die away from which a step could leave or land on a point
# (highest first), by die * 26 * 26 + origin * 26 + destination
_NEAR: Final = tuple(
    tuple(sorted({q for p in (o, d) for q in (p, p + die, p - die) if 1 <= q <= 24}, reverse=True))
    for die in range(7)
    for o in range(26)
    for d in range(26)
)


_NEAR_MASK: Final = tuple(sum(1 << q for q in near) for near in _NEAR)


def _near_steps(
    me: list[int], op: list[int], pm: list[int], die: int, near: tuple[int, ...]
) -> list[_Step]:
    """`_steps` from the points ``near`` after a first step: then no checker
    is on the bar and nothing can be borne off (see the module), so this is
    `_steps` without those cases, in the same order with the same ranks."""
    out: list[_Step] = []
    movable_of = _MOVABLE[die & 1]
    for o in near:
        v = me[o]
        if not v or (op[o] == LONE_GUARD and v % 31 == 1):
            continue  # nothing there, or a first attacker waiting for the second
        d = o - die
        movable = movable_of.get(v)
        if movable is None:
            movable = movable_of[v] = _movable(v, die & 1)
        base = (die * 32 + o) * 8 + 7
        if d < 1:
            other = druid = None
        else:
            w = op[d]
            if not w:
                other = druid = PLAIN
            elif w % 31 >= 2:
                other = druid = None
            elif w == LONE_GUARD:
                other, druid = (CAPTURE if me[d] else ATTACK), None
            else:
                other, druid = HIT, (None if pm[d] else PIN)
        for cls in movable:
            effect = druid if cls == DRUID else other
            if effect is not None:
                out.append((o, cls, d, effect, (base - cls) * 2 + 1))
            if cls == GENERAL and o + die <= 24:
                b = o + die
                w = op[b]
                if not w:
                    out.append((o, cls, b, PLAIN, (base - cls) * 2))
                elif w % 31 < 2:
                    if w == LONE_GUARD:
                        out.append((o, cls, b, CAPTURE if me[b] else ATTACK, (base - cls) * 2))
                    else:
                        out.append((o, cls, b, HIT, (base - cls) * 2))
    return out


def _near(die: int, o: int, d: int) -> tuple[int, ...]:
    return _NEAR[(die * 26 + o) * 26 + d]


def _apply(
    me: list[int], op: list[int], pm: list[int], po: list[int], s: _Step
) -> tuple[int, int, int, int]:
    """Play step ``s`` on the slots; its change to the board key, and what
    `_undo` needs (the pinned checker released, the value hit or pinned,
    my checker freed)."""
    o, cls, d, effect, _ = s
    one = ONE[cls]
    me[o] -= one
    dme = _AT[cls][d] - _AT[cls][o]
    dop = dpin = released = hv = freed = 0
    if not me[o] and po[o]:  # my last checker leaves: the one pinned under it is free
        released = po[o]
        op[o] += ONE[released - 1]
        dop += _AT[released - 1][o]
        po[o] = 0
        dpin -= released * _OP_PIN[o]
    if effect is HIT or effect is CAPTURE:
        hv = op[d]
        op[BAR] += hv
        op[d] = 0
        dop += hv * (_SLOT[BAR] - _SLOT[d])
        freed = pm[d]
        if freed:
            me[d] += ONE[freed - 1]
            dme += _AT[freed - 1][d]
            pm[d] = 0
            dpin -= freed * _MY_PIN[d]
    elif effect is PIN:
        hv = op[d]
        po[d] = LONE[hv] + 1
        dpin += po[d] * _OP_PIN[d]
        op[d] = 0
        dop -= hv * _SLOT[d]
    me[d] += one
    return dme + (dop << _OP_SHIFT) + (dpin << _PIN_SHIFT), released, hv, freed


def _undo(
    me: list[int],
    op: list[int],
    pm: list[int],
    po: list[int],
    s: _Step,
    done: tuple[int, int, int, int],
) -> None:
    o, cls, d, effect, _ = s
    _, released, hv, freed = done
    undo_step(me, op, pm, po, o, cls, d, effect, released, hv, freed)


def _key(me: list[int], op: list[int], pm: list[int], po: list[int], s: _Step) -> int:
    """Step ``s``'s change to the board key (the slots are left as they were)."""
    o, cls, d, effect, _ = s
    if effect is PLAIN and not (po[o] and me[o] == ONE[cls]):
        return _AT[cls][d] - _AT[cls][o]  # it only moves the checker
    done = _apply(me, op, pm, po, s)
    _undo(me, op, pm, po, s, done)
    return done[0]


def _valid(first: _Step, second: _Step, general: int) -> bool:
    """The whole-play conditions for two steps (``general``: where the only
    general began the turn)."""
    if first[3] is ATTACK:
        if second[3] is not CAPTURE or second[2] != first[2]:
            return False  # the first attacker is left alone on the guard
    elif second[3] is ATTACK:
        return False
    if second[1] == GENERAL:
        return (
            second[2] <= general
            or second[3] in (HIT, CAPTURE)
            or (first[1] == GENERAL and first[3] in (HIT, CAPTURE))
        )
    if first[1] == GENERAL:
        return first[2] <= general or first[3] in (HIT, CAPTURE)
    return True


def _valid_alone(step: _Step, general: int) -> bool:
    """Whether one step alone meets the whole-play conditions."""
    if step[3] is ATTACK:
        return False
    return step[1] != GENERAL or step[2] <= general or step[3] in (HIT, CAPTURE)


def two_dice_plays(position: SoldiersPosition, a: int, b: int) -> list[SoldierPlay] | None:
    """The legal plays of dice ``a > b`` as `engine.soldiers.movegen`'s search
    gives them, or None where this shortcut is not exact (see the module)."""
    side = position.turn
    me0 = position.free[side]
    bar = me0[BAR]
    # a slot's value mod 31 is its count; nothing may be borne off this
    # turn, nor look as if it could on the board without the bar's checker
    outside = sum(me0[HOME + 1 : BAR]) % 31
    if outside < (1 if bar else 2) or bar % 31 > 1:
        return None
    pm0 = position.pinned[side]
    generals = (sum(me0[1:]) >> _GENERAL_SHIFT & 31) + pm0.count(GENERAL + 1)
    general = 0
    if generals > 1:
        return None
    if generals:  # the only one: free (on the bar, 25, it may end anywhere), else pinned
        general = next(
            (q for q in compress(range(1, BAR + 1), me0[1:]) if me0[q] >> _GENERAL_SHIFT & 31), 0
        )
        if not general:
            general = pm0.index(GENERAL + 1)
    their_free, their_pins = position.free[1 - side], position.pinned[1 - side]
    op0 = _MIRRORED(their_free)
    if LONE_GUARD in op0 and any(op0[q] == LONE_GUARD and me0[q] for q in range(1, BAR)):
        return None
    po0 = _MIRRORED(their_pins)
    me, op, pm, po = list(me0), list(op0), list(pm0), list(po0)

    # The second steps as the board without the checker on the bar has them
    # (with one on the bar the first step enters it; the entered checker
    # then stands outside the home, so nothing is borne off this turn).
    me[BAR] = 0
    seconds_a = _steps(me, op, pm, a)
    seconds_b = _steps(me, op, pm, b)
    keys_a = [_key(me, op, pm, po, s) for s in seconds_a] if bar else []
    keys_b = [
        _AT[cls][d] - _AT[cls][o]  # it only moves the checker
        if effect is PLAIN and not (po[o] and me[o] == ONE[cls])
        else _key(me, op, pm, po, (o, cls, d, effect, rank))
        for o, cls, d, effect, rank in seconds_b
    ]
    me[BAR] = bar
    firsts_a = _steps(me, op, pm, a) if bar else seconds_a
    firsts_b = _steps(me, op, pm, b) if bar else seconds_b
    # board key -> (order, first step, second step); the search meets the
    # board first on the path with the smallest order
    best: dict[int, tuple[int, _Step, _Step]] = {}
    get = best.get
    # the second steps that may commute with a first one: (step, its key,
    # its origin's bit, whether it may break a whole-play condition, the
    # low part of an order)
    later_b = [
        (sb, kb, 1 << sb[0], sb[1] == GENERAL or sb[3] is ATTACK, 0xFFFF - sb[4])
        for sb, kb in zip(seconds_b, keys_b, strict=True)
    ]
    later_a = list(zip(seconds_a, keys_a, strict=True)) if bar else []
    for sa in firsts_a:
        oa, _, da, _, ra = sa
        risky = sa[1] == GENERAL or sa[3] is ATTACK
        near = _near(b, oa, da)
        mask = _NEAR_MASK[(b * 26 + oa) * 26 + da]
        base = (0xFFFF - ra) << 16
        ca = sa[1]
        # a first step that only moves a checker is played on `me` alone
        plain_a = sa[3] is PLAIN and not (po[oa] and me[oa] == ONE[ca])
        if plain_a:
            me[oa] -= ONE[ca]
            me[da] += ONE[ca]
            key_a = _AT[ca][da] - _AT[ca][oa]
        else:
            done_a = _apply(me, op, pm, po, sa)
            key_a = done_a[0]
        # The second steps the first leaves as they were, in order: every
        # board found earlier had a smaller order.
        for sb, kb, bit, special, low in later_b:
            if bit & mask or ((risky or special) and not _valid(sa, sb, general)):
                continue
            key = key_a + kb
            if key not in best:
                best[key] = (base + low, sa, sb)
        for sb in _near_steps(me, op, pm, b, near):
            o, cls, d, effect, rank = sb
            if (risky or cls == GENERAL or effect is ATTACK) and not _valid(sa, sb, general):
                continue
            if effect is PLAIN and not (po[o] and me[o] == ONE[cls]):
                key = key_a + _AT[cls][d] - _AT[cls][o]  # it only moves the checker
            else:
                key = key_a + _key(me, op, pm, po, sb)
            order = base + 0xFFFF - rank
            old = get(key)
            if old is None or order < old[0]:
                best[key] = (order, sa, sb)
        if plain_a:
            me[oa] += ONE[ca]
            me[da] -= ONE[ca]
        else:
            _undo(me, op, pm, po, sa, done_a)
    if not best and generals and a == 2 * b and not any(_valid_alone(s, general) for s in firsts_a):
        # No valid step of the larger die, nor a play starting with it.  The
        # search then keeps the smaller die's single steps until a whole play
        # turns up; a whole play can end where one of them does only with
        # a general's two steps (b back then a forward ends a forward step
        # of b = a - b), and it then takes that place in the order: the
        # search answers.
        return None
    # b first.  From the bar: every second step (entering with a is another
    # play).  Otherwise only second steps that touch the first one's points
    # can give a board not found above (the others commute).
    for sb in firsts_b:
        ob, _, db, _, rb = sb
        near = _near(a, ob, db)
        base = (1 << 32) + ((0xFFFF - rb) << 16)
        cb = sb[1]
        plain_b = sb[3] is PLAIN and not (po[ob] and me[ob] == ONE[cb])
        if plain_b:
            me[ob] -= ONE[cb]
            me[db] += ONE[cb]
            key_b = _AT[cb][db] - _AT[cb][ob]
        else:
            done_b = _apply(me, op, pm, po, sb)
            key_b = done_b[0]
        risky = sb[1] == GENERAL or sb[3] is ATTACK
        for sa in _near_steps(me, op, pm, a, near):
            o, cls, d, effect, rank = sa
            if (risky or cls == GENERAL or effect is ATTACK) and not _valid(sb, sa, general):
                continue
            if effect is PLAIN and not (po[o] and me[o] == ONE[cls]):
                key = key_b + _AT[cls][d] - _AT[cls][o]  # it only moves the checker
            else:
                key = key_b + _key(me, op, pm, po, sa)
            order = base + 0xFFFF - rank
            old = get(key)
            if old is None or order < old[0]:
                best[key] = (order, sb, sa)
        if plain_b:
            me[ob] += ONE[cb]
            me[db] -= ONE[cb]
        else:
            _undo(me, op, pm, po, sb, done_b)
        for sa, key_a in later_a:  # empty without a checker on the bar
            if sa[0] in near or not _valid(sb, sa, general):
                continue
            key = key_b + key_a
            order = base + 0xFFFF - sa[4]
            old = get(key)
            if old is None or order < old[0]:
                best[key] = (order, sb, sa)

    if not best:
        return None  # no play uses both dice: the forced-move rules choose
    plays: list[SoldierPlay] = []
    # plays that change no pin share the position's own pair of pin rows
    same_pins = (pm0, their_pins) if side == WHITE else (their_pins, pm0)
    by_rank, effect_code = _BY_RANK, _EFFECT_CODE
    hit_rows: dict[int, tuple[int, ...]] = {}  # the opponent's row by the points hit
    for _, s1, s2 in sorted(best.values(), key=_FIRST):
        o1, c1, d1, e1, r1 = s1
        o2, c2, d2, e2, r2 = s2
        if e1 is PLAIN and e2 is PLAIN and not po0[o1] and not po0[o2]:
            # two checkers moved, nothing else (no pin under either origin)
            me[o1] -= ONE[c1]
            me[d1] += ONE[c1]
            me[o2] -= ONE[c2]
            me[d2] += ONE[c2]
            mine = tuple(me)
            me[o1] += ONE[c1]
            me[d1] -= ONE[c1]
            me[o2] += ONE[c2]
            me[d2] -= ONE[c2]
            theirs, my_pins, pins = their_free, pm0, their_pins
        elif (
            (e1 is PLAIN or (e1 is HIT and not pm0[d1]))
            and (e2 is PLAIN or (e2 is HIT and not pm0[d2]))
            and not po0[o1]
            and not po0[o2]
        ):
            # two checkers moved and blots hit, no pin made, freed or released:
            # the opponent's row is its own less the blots (on different
            # points: a blot hit by the first step is gone for the second)
            me[o1] -= ONE[c1]
            me[d1] += ONE[c1]
            me[o2] -= ONE[c2]
            me[d2] += ONE[c2]
            mine = tuple(me)
            me[o1] += ONE[c1]
            me[d1] -= ONE[c1]
            me[o2] += ONE[c2]
            me[d2] -= ONE[c2]
            mask = (e1 is HIT) << d1 | (e2 is HIT) << d2
            cached = hit_rows.get(mask)
            if cached is None:
                row = list(their_free)
                for q in (d1, d2):  # the points hit
                    if mask >> q & 1:
                        row[BAR] += row[25 - q]
                        row[25 - q] = 0
                cached = hit_rows[mask] = tuple(row)
            theirs, my_pins, pins = cached, pm0, their_pins
        else:
            done1 = _apply(me, op, pm, po, s1)
            done2 = _apply(me, op, pm, po, s2)
            mine = tuple(me)
            theirs, my_pins, pins = _MIRRORED(op), tuple(pm), _MIRRORED(po)
            _undo(me, op, pm, po, s2, done2)
            _undo(me, op, pm, po, s1, done1)
        built = _new(SoldiersPosition)  # the opponent to move
        if side == WHITE:
            _set_free(built, (mine, theirs))
            _set_pinned(built, same_pins if pins is their_pins else (my_pins, pins))
            _set_turn(built, BLACK)
        else:
            _set_free(built, (theirs, mine))
            _set_pinned(built, same_pins if pins is their_pins else (pins, my_pins))
            _set_turn(built, WHITE)
        play = _new(SoldierPlay)
        # a step's rank names its die, origin, class and direction (see `_steps`):
        # with the effect it names the step object
        step1 = by_rank.get(r1 * 8 + effect_code[e1])
        if step1 is None:
            step1 = by_rank[r1 * 8 + effect_code[e1]] = _step(o1, d1, r1 >> 9, c1, e1)
        step2 = by_rank.get(r2 * 8 + effect_code[e2])
        if step2 is None:
            step2 = by_rank[r2 * 8 + effect_code[e2]] = _step(o2, d2, r2 >> 9, c2, e2)
        _set_steps(play, (step1, step2))
        _set_position(play, built)
        plays.append(play)
    return plays


# a found play's order (its first item)
_FIRST: Final = itemgetter(0)
