"""The fast generators: two different dice and doublets written out for
variants with neither head nor six-block nor special rules (`_Rules.simple`),
where playing equal dice from the highest origin down loses no play."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress

from engine.movegen.primitives import (
    _BAR_ONLY,
    _HIT_WEIGHT,
    _MOVE_DELTA,
    _MOVE_STEPS,
    _POINT_RANGE,
    _STEPS,
    _WEIGHT,
    HOME,
    _build,
    _Found,
    _Rules,
)
from engine.rules.board import BAR, OFF, POINTS, Position
from engine.rules.plays import Play, Step


def _two_dice(r: _Rules, side: int, position: Position, a: int, b: int) -> list[Play]:
    """Two different dice (``a > b``) without head or six-block rules.

    When no bear-off can happen this turn the two steps are independent except
    through one checker: every play is a pair (an ``a`` step, a ``b`` step) of
    checkers that stood on their points before the turn, or one checker using
    both dice.  Distinct pairs give distinct positions except two chains
    through points of my own (x -> x-a, x-a -> z and x-b -> z, x -> x-b), so
    with one of those skipped the plays come out without deduplication.
    """
    row = position.sides[side]
    bar = row[BAR]
    if bar == 0 and sum(row[HOME + 1 :]) < 2:
        return _build(r, side, position, _two_dice_general(r, side, position, a, b))
    oppm = r.gather[side](position.sides[1 - side])
    closes = r.closes
    hitting = r.hitting
    steps_a = _MOVE_STEPS[a]
    steps_b = _MOVE_STEPS[b]
    found: list[_Found] = []
    add = found.append

    def one(o: int, die: int) -> _Found:
        d = o - die
        h = 1 if hitting and oppm[d] == 1 else 0
        new = list(row)
        new[o] -= 1
        new[d] += 1
        return (tuple(new), h << d, (_MOVE_STEPS[die][o][h],))

    def two(o1: int, d1: int, h1: int, s1: Step, o2: int, d2: int, h2: int, s2: Step) -> None:
        new = list(row)
        new[o1] -= 1
        new[d1] += 1
        new[o2] -= 1
        new[d2] += 1
        add((tuple(new), (h1 << d1) | (h2 << d2), (s1, s2)))

    ea = eb = False
    if bar:
        ea = oppm[BAR - a] < closes
        eb = oppm[BAR - b] < closes
    if bar >= 2:
        # Both dice must enter; nothing else may move while a checker waits.
        if ea and eb:
            da, db = BAR - a, BAR - b
            ha = 1 if hitting and oppm[da] == 1 else 0
            hb = 1 if hitting and oppm[db] == 1 else 0
            two(BAR, da, ha, steps_a[BAR][ha], BAR, db, hb, steps_b[BAR][hb])
        elif ea:
            add(one(BAR, a))
        elif eb:
            add(one(BAR, b))
        return _build(r, side, position, found) if found else [Play((), position)]

    occupied = list(compress(_POINT_RANGE, row[1:BAR]))
    if bar:
        # One checker on the bar: it enters with one die, the other die is then
        # free; pairs must include the entering step, played first.
        if ea:
            da = BAR - a
            ha = 1 if hitting and oppm[da] == 1 else 0
            sa = steps_a[BAR][ha]
            for y in occupied:
                yb = y - b
                if yb > 0 and oppm[yb] < closes:
                    hb = 1 if hitting and oppm[yb] == 1 and yb != da else 0
                    two(BAR, da, ha, sa, y, yb, hb, steps_b[y][hb])
        if eb:
            db = BAR - b
            hb = 1 if hitting and oppm[db] == 1 else 0
            sb = steps_b[BAR][hb]
            for x in occupied:
                xa = x - a
                if x == db and ea and row[BAR - a]:
                    continue  # the same as entering with a, then moving on from there
                if xa > 0 and oppm[xa] < closes:
                    ha = 1 if hitting and oppm[xa] == 1 and xa != db else 0
                    two(BAR, db, hb, sb, x, xa, ha, steps_a[x][ha])
        origins: list[int] = [BAR]
    else:
        a_from = [x for x in occupied if x > a and oppm[x - a] < closes]
        b_to = [
            (y, y - b, 1 if hitting and oppm[y - b] == 1 else 0)
            for y in occupied
            if y > b and oppm[y - b] < closes
        ]
        base = list(row)
        for x in a_from:
            xa = x - a
            ha = 1 if hitting and oppm[xa] == 1 else 0
            sa = steps_a[x][ha]
            mask_a = ha << xa
            # y == x needs a second checker there; y == x + b with a checker of
            # mine on y - a is the chain the pair (y, y - a) already gives.
            skip_same = x if row[x] == 1 else 0
            skip_chain = x + b if x + b <= POINTS and row[x + b - a] else 0
            base[x] -= 1
            base[xa] += 1
            for y, yb, hb in b_to:
                if y in (skip_same, skip_chain):
                    continue
                base[y] -= 1
                base[yb] += 1
                if hb and not (ha and yb == xa):
                    add((tuple(base), mask_a | (1 << yb), (sa, steps_b[y][1])))
                else:
                    add((tuple(base), mask_a, (sa, steps_b[y][0])))
                base[y] += 1
                base[yb] -= 1
            base[x] += 1
            base[xa] -= 1
        origins = occupied
    # One checker using both dice, unless a pair above already gave that
    # position (an intermediate point of my own) or the other order did.
    for x in origins:
        z = x - a - b
        if z <= 0 or oppm[z] >= closes:
            continue
        xa, xb = x - a, x - b
        hz = 1 if hitting and oppm[z] == 1 else 0
        via_a = oppm[xa] < closes
        via_b = oppm[xb] < closes
        plain_done = (via_a and row[xa] > 0) or (via_b and row[xb] > 0)
        if via_a and not row[xa]:
            ha = 1 if hitting and oppm[xa] == 1 else 0
            if ha or not plain_done:
                two(x, xa, ha, steps_a[x][ha], xa, z, hz, steps_b[xa][hz])
                plain_done = plain_done or not ha
        if via_b and not row[xb]:
            hb = 1 if hitting and oppm[xb] == 1 else 0
            if hb or not plain_done:
                two(x, xb, hb, steps_b[x][hb], xb, z, hz, steps_a[xb][hz])
    if not found:
        # No play uses both dice: the larger one if it can be played, else the smaller.
        if bar:
            if ea:
                add(one(BAR, a))
            elif eb:
                add(one(BAR, b))
        else:
            for die in (a, b):
                found = [one(x, die) for x in occupied if x > die and oppm[x - die] < closes]
                if found:
                    break
        if not found:
            return [Play((), position)]
    return _build(r, side, position, found)


def _two_dice_general(r: _Rules, side: int, position: Position, a: int, b: int) -> list[_Found]:
    """Two different dice in any position of the short family (used where a
    bear-off may happen, which makes the order of the steps matter): both
    orders, deduplicated; the empty play when nothing moves."""
    me = list(position.sides[side])
    oppm = list(r.gather[side](position.sides[1 - side]))
    closes = r.closes
    hitting = r.hitting
    steps = _STEPS
    weight = _WEIGHT
    hit_weight = _HIT_WEIGHT
    outside0 = sum(me[HOME + 1 :])
    twos: dict[int, _Found] = {}
    ones: dict[int, list[_Found]] = {a: [], b: []}
    for first, second in ((a, b), (b, a)):
        for o1 in _BAR_ONLY if me[BAR] else compress(range(POINTS, 0, -1), me[POINTS:0:-1]):
            d1 = o1 - first
            h1 = 0
            if d1 > 0:
                c = oppm[d1]
                if c >= closes:
                    continue
                if hitting and c == 1:
                    h1 = 1
            else:
                if outside0 or (d1 < 0 and any(me[o1 + 1 : HOME + 1])):
                    continue
                d1 = OFF
            me[o1] -= 1
            me[d1] += 1
            oppm[d1] -= h1
            outside = outside0 - 1 if o1 > HOME >= d1 else outside0
            s1 = steps[((o1 * 26 + d1) * 7 + first) * 2 + h1]
            k1 = weight[d1] - weight[o1] + (hit_weight[d1] if h1 else 0)
            played = False
            for o2 in _BAR_ONLY if me[BAR] else compress(range(POINTS, 0, -1), me[POINTS:0:-1]):
                d2 = o2 - second
                h2 = 0
                if d2 > 0:
                    c = oppm[d2]
                    if c >= closes:
                        continue
                    if hitting and c == 1:
                        h2 = 1
                else:
                    if outside or (d2 < 0 and any(me[o2 + 1 : HOME + 1])):
                        continue
                    d2 = OFF
                played = True
                key = k1 + weight[d2] - weight[o2] + (hit_weight[d2] if h2 else 0)
                if key in twos:
                    continue
                me[o2] -= 1
                me[d2] += 1
                twos[key] = (
                    tuple(me),
                    (h1 << d1) | (h2 << d2),
                    (s1, steps[((o2 * 26 + d2) * 7 + second) * 2 + h2]),
                )
                me[o2] += 1
                me[d2] -= 1
            if not played and not twos:
                ones[first].append((tuple(me), h1 << d1, (s1,)))
            me[o1] += 1
            me[d1] -= 1
            oppm[d1] += h1
    if twos:
        return list(twos.values())
    # No play uses both dice: the larger one if it can be played, else the smaller.
    return ones[a] or ones[b] or [(position.sides[side], 0, ())]


def _doubles_in_play(
    r: _Rules, side: int, position: Position, die: int
) -> dict[int, _Found] | None:
    """The common case of `_doubles` written out as four nested loops: nothing
    on the bar, no bear-off possible this turn (four or more checkers outside
    home), and all four dice playable.  None when that does not hold.

    No point closes during the turn (a hit only opens one), so whether a
    checker may step from ``o`` is fixed per call; whether the step hits is
    read from the opponent's counts as they change.
    """
    row = position.sides[side]
    if row[BAR] or sum(row[HOME + 1 :]) < 4:
        return None
    me = list(row)
    oppm = list(r.gather[side](position.sides[1 - side]))
    closes = r.closes
    hitting = r.hitting
    moves = _MOVE_STEPS[die]
    delta = _MOVE_DELTA[die]
    hit_weight = _HIT_WEIGHT
    can = [o > die and oppm[o - die] < closes for o in range(BAR)]
    results: dict[int, _Found] = {}
    for o1 in compress(range(POINTS, 0, -1), me[POINTS:0:-1]):
        if not can[o1]:
            continue
        d1 = o1 - die
        h1 = 1 if hitting and oppm[d1] == 1 else 0
        me[o1] -= 1
        me[d1] += 1
        oppm[d1] -= h1
        k1 = delta[o1] + (hit_weight[d1] if h1 else 0)
        m1 = h1 << d1
        s1 = moves[o1][h1]
        for o2 in compress(range(o1, 0, -1), me[o1:0:-1]):
            if not can[o2]:
                continue
            d2 = o2 - die
            h2 = 1 if hitting and oppm[d2] == 1 else 0
            me[o2] -= 1
            me[d2] += 1
            oppm[d2] -= h2
            k2 = k1 + delta[o2] + (hit_weight[d2] if h2 else 0)
            m2 = m1 | (h2 << d2)
            s2 = moves[o2][h2]
            for o3 in compress(range(o2, 0, -1), me[o2:0:-1]):
                if not can[o3]:
                    continue
                d3 = o3 - die
                h3 = 1 if hitting and oppm[d3] == 1 else 0
                me[o3] -= 1
                me[d3] += 1
                oppm[d3] -= h3
                k3 = k2 + delta[o3] + (hit_weight[d3] if h3 else 0)
                m3 = m2 | (h3 << d3)
                s3 = moves[o3][h3]
                for o4 in compress(range(o3, 0, -1), me[o3:0:-1]):
                    if not can[o4]:
                        continue
                    d4 = o4 - die
                    if hitting and oppm[d4] == 1:
                        key = k3 + delta[o4] + hit_weight[d4]
                        if key in results:
                            continue
                        me[o4] -= 1
                        me[d4] += 1
                        results[key] = (tuple(me), m3 | (1 << d4), (s1, s2, s3, moves[o4][1]))
                    else:
                        key = k3 + delta[o4]
                        if key in results:
                            continue
                        me[o4] -= 1
                        me[d4] += 1
                        results[key] = (tuple(me), m3, (s1, s2, s3, moves[o4][0]))
                    me[o4] += 1
                    me[d4] -= 1
                me[o3] += 1
                me[d3] -= 1
                oppm[d3] += h3
            me[o2] += 1
            me[d2] -= 1
            oppm[d2] += h2
        me[o1] += 1
        me[d1] -= 1
        oppm[d1] += h1
    return results or None


def _doubles(r: _Rules, side: int, position: Position, die: int) -> dict[int, _Found]:
    """Four equal steps, each from an origin no higher than the previous one
    (every legal play has such an order in the short family).  Results are
    keyed by an integer that encodes the mover's row and the hit points
    exactly, kept up to date step by step."""
    me = list(position.sides[side])
    oppm = list(r.gather[side](position.sides[1 - side]))
    closes = r.closes
    hitting = r.hitting
    steps = _STEPS
    weight = _WEIGHT
    results: dict[int, _Found] = {}
    stack: list[Step] = []
    best = [0]

    def node(k: int, top: int, outside: int, hitmask: int, key: int) -> None:
        # k: dice left to play after this step
        moved = False
        origins: Iterable[int] = _BAR_ONLY if me[BAR] else compress(range(top, 0, -1), me[top:0:-1])
        for o in origins:
            n = me[o]
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
            moved = True
            step = steps[((o * 26 + d) * 7 + die) * 2 + hit]
            next_key = key + weight[d] - weight[o]
            if hit:
                next_key += _HIT_WEIGHT[d]
            if k:
                me[o] = n - 1
                me[d] += 1
                if hit:
                    oppm[d] = 0
                stack.append(step)
                node(
                    k - 1,
                    o,
                    outside - 1 if (o > HOME >= d) else outside,
                    hitmask | (hit << d),
                    next_key,
                )
                stack.pop()
                if hit:
                    oppm[d] = 1
                me[o] = n
                me[d] -= 1
            elif next_key not in results:
                if best[0] < 4:
                    results.clear()
                    best[0] = 4
                me[o] = n - 1
                me[d] += 1
                results[next_key] = (tuple(me), hitmask | (hit << d), (*stack, step))
                me[o] = n
                me[d] -= 1
        if not moved:
            used = len(stack)
            if used < best[0]:
                return
            if used > best[0]:
                results.clear()
                best[0] = used
            if key not in results:
                results[key] = (tuple(me), hitmask, tuple(stack))

    node(3, BAR, sum(me[HOME + 1 :]), 0, 0)
    node = None  # type: ignore[assignment]  # a closure cycle (engine/__init__.py)
    return results
