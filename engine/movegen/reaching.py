"""`plays_reaching`: the legal plays that leave the mover's checkers on a
given row, found without generating every legal play where that is exact.

A written play is matched by its net movement (`written_play` in
engine/records/match_builder.py): of the legal plays, those whose mover's row
is the written one.  In the simple variants (`_Rules.simple`) those plays come
from the fast generators (`fast`); the walks here are the same walks, cut
down to the steps that can still end on the target row, so each play found
is the very play (same steps, same hits) the generator makes for that row,
and none is missed:

- two different dice: a pair of steps, the larger die from ``x`` and the
  smaller from ``y``, changes the row only at ``x``, ``y`` and where they
  land, and a step from a point the target does not change there must be
  undone by the other step landing on it.  So ``x`` and ``y`` are the two
  points the target takes a checker from, or, when it moves one checker by
  both dice, a chain over a checker already there (``y = x - larger`` or
  ``x = y - smaller``), or that checker alone; with a checker on the bar, or
  in a bear-off (where the order of the steps matters), the generator's
  loops run over those few origins only;
- a doublet: the generators play its steps from the highest origin down, so
  the points above a step's origin are final once it is played, and the only
  walk to a row takes each step from the highest point that still differs.

These walks decide only when a play reaching the target uses every die:
then the generator's result holds exactly the plays found here.  Otherwise
(no such play, a die that cannot be played, two or more checkers on the bar,
the other variants) `plays_reaching` answers None and the caller generates
every legal play.  tests/engine/test_movegen_reaching.py compares both ways.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.movegen.primitives import (
    _HIT_WEIGHT,
    _MOVE_STEPS,
    _STEPS,
    _WEIGHT,
    HOME,
    _build,
    _Found,
    _Rules,
    _rules,
    dice_moves,
)
from engine.rules.board import BAR, OFF, POINTS, Position
from engine.rules.plays import Move, Play, Step
from engine.rules.variants import Variant


def plays_reaching(
    variant: Variant,
    position: Position,
    side: int,
    dice: Sequence[int],
    journeys: Sequence[Move],
) -> list[Play] | None:
    """The legal plays for ``side`` with ``dice`` that move the mover's
    checkers as ``journeys`` do in net (the same resulting row), exactly as
    `legal_plays` builds them, when such a play uses every die; None when
    that is not decided here (the caller then generates every play)."""
    r = _rules(variant)
    moves = dice_moves(variant, dice)  # the same refusal of a bad roll as legal_plays
    if not r.simple:
        return None
    row = position.sides[side]
    goal = list(row)
    touched: list[int] = []
    for journey in journeys:
        origin = journey.origin
        dest = journey.dest
        if not (0 <= dest < origin <= BAR):
            return None
        goal[origin] -= 1
        goal[dest] += 1
        touched += (origin, dest)
    delta: dict[int, int] = {}  # the goal's changes to the row, without zeros
    for q in touched:
        count = goal[q]
        if count != row[q]:
            if count < 0:  # a journey from a point without checkers: no play
                return None
            delta[q] = count - row[q]
    if len(moves) == 2:
        found = _two_dice_reaching(r, side, position, moves[0], moves[1], goal, delta)
    elif len(moves) == 4 and moves[0] == moves[3]:
        if row[BAR] == 0 and sum(row[HOME + 1 :]) >= 4:
            found = _doubles_in_play_reaching(r, side, position, moves[0], goal)
        elif r.closes <= 2 or not r.hitting:
            found = _doubles_reaching(r, side, position, moves[0], goal)
        else:
            return None
    else:
        return None
    if not found:
        return None
    return _build(r, side, position, found)


def nothing_enters(variant: Variant, position: Position, side: int, dice: Sequence[int]) -> bool:
    """True when a checker of ``side`` waits on the bar and no die of the
    roll enters (in the simple variants): the only legal play is then the
    empty one, ``Play((), position)``, found here without generating it."""
    r = _rules(variant)
    moves = dice_moves(variant, dice)  # the same refusal of a bad roll as legal_plays
    if not r.simple or len(moves) not in (2, 4) or not position.sides[side][BAR]:
        return False
    opp = position.sides[1 - side]
    cross = r.cross[side]
    return all(opp[cross[BAR - die]] >= r.closes for die in moves)


def _two_dice_reaching(
    r: _Rules,
    side: int,
    position: Position,
    a: int,
    b: int,
    goal: list[int],
    delta: dict[int, int],
) -> list[_Found]:
    """`fast._two_dice` (``a > b``) with only the results on ``goal`` (the
    row changed by ``delta``, without zeros); empty unless one of them plays
    both dice (and then the generator's result holds both-dice plays only)."""
    row = position.sides[side]
    bar = row[BAR]
    if bar >= 2:
        return []
    if bar == 0 and sum(row[HOME + 1 :]) < 2:
        return _two_dice_general_reaching(r, side, position, a, b, goal, delta)
    if OFF in delta:  # no bear-off this turn
        return []
    opp = position.sides[1 - side]
    cross = r.cross[side]  # opp[cross[q]]: the opponent's checkers on my point q
    closes = r.closes
    hitting = r.hitting
    steps_a = _MOVE_STEPS[a]
    steps_b = _MOVE_STEPS[b]
    found: list[_Found] = []
    losers: list[int] = []  # the points the goal takes checkers from, one per checker
    gainers: list[int] = []
    for q, n in delta.items():
        if n == -1:
            losers.append(q)
        elif n == 1:
            gainers.append(q)
        elif n < 0:
            losers += [q] * -n
        else:
            gainers += [q] * n
    if bar:
        oppm = r.gather[side](opp)
        _entering_reaching(row, oppm, closes, hitting, a, b, goal, delta, found.append)
    else:
        # The pairs of steps (``a`` from x, ``b`` from y) whose changes are the
        # goal's: x and y are the two checkers the goal takes away, landing
        # where it adds them, or, when it moves one checker by both dice, a
        # chain over a checker of mine (y = x - a or x = y - b).
        pairs: list[tuple[int, int]] = []
        if len(losers) == 2 and len(gainers) == 2:
            x, y = sorted(losers)
            gained = sorted(gainers)
            pairs = [
                (p, q)
                for p, q in ([(x, y)] if x == y else [(x, y), (y, x)])
                if sorted((p - a, q - b)) == gained
            ]
        elif len(losers) == 1 and len(gainers) == 1 and losers[0] - gainers[0] == a + b:
            (y,) = losers
            pairs = [(y - b, y), (y, y - a)]
        for x, y in pairs:
            xa, yb = x - a, y - b
            if not (0 < yb < y < BAR and 0 < xa < x < BAR and row[x] and row[y]):
                continue
            # The generator's pair (x, y) as it makes it, when it makes it.
            oxa, oyb = opp[cross[xa]], opp[cross[yb]]
            if oxa >= closes or oyb >= closes:
                continue
            if (x == y and row[x] == 1) or (y == x + b and y <= POINTS and row[y - a]):
                continue
            ha = 1 if hitting and oxa == 1 else 0
            if hitting and oyb == 1 and not (ha and yb == xa):
                steps = (steps_a[x][ha], steps_b[y][1])
                found.append((tuple(goal), (ha << xa) | (1 << yb), steps))
            else:
                found.append((tuple(goal), ha << xa, (steps_a[x][ha], steps_b[y][0])))
    if len(losers) != 1 or len(gainers) != 1:
        return found
    # One checker moved by both dice: from x (the bar when a checker is
    # there, else an occupied point) to z, its only changes.
    (x,), (z,) = losers, gainers
    if x - z != a + b or not (x == BAR if bar else row[x]):
        return found
    oz = opp[cross[z]]
    if oz >= closes:
        return found
    xa, xb = x - a, x - b
    oxa, oxb = opp[cross[xa]], opp[cross[xb]]
    hz = 1 if hitting and oz == 1 else 0
    via_a = oxa < closes
    via_b = oxb < closes
    plain_done = (via_a and row[xa] > 0) or (via_b and row[xb] > 0)
    if via_a and not row[xa]:
        ha = 1 if hitting and oxa == 1 else 0
        if ha or not plain_done:
            found.append((tuple(goal), (ha << xa) | (hz << z), (steps_a[x][ha], steps_b[xa][hz])))
            plain_done = plain_done or not ha
    if via_b and not row[xb]:
        hb = 1 if hitting and oxb == 1 else 0
        if hb or not plain_done:
            found.append((tuple(goal), (hb << xb) | (hz << z), (steps_b[x][hb], steps_a[xb][hz])))
    return found


def _entering_reaching(
    row: tuple[int, ...],
    oppm: Sequence[int],
    closes: int,
    hitting: bool,
    a: int,
    b: int,
    goal: list[int],
    delta: dict[int, int],
    add: Callable[[_Found], None],
) -> None:
    """`fast._two_dice`'s pairs with one checker on the bar (it enters with
    one die, another checker moves with the other) that end on ``goal``: the
    other checker starts on a changed point or where the entering one landed."""
    steps_a = _MOVE_STEPS[a]
    steps_b = _MOVE_STEPS[b]

    def two(o1: int, d1: int, h1: int, s1: Step, o2: int, d2: int, h2: int, s2: Step) -> None:
        new = list(row)
        new[o1] -= 1
        new[d1] += 1
        new[o2] -= 1
        new[d2] += 1
        if new == goal:
            add((tuple(new), (h1 << d1) | (h2 << d2), (s1, s2)))

    def origins(landed: int) -> list[int]:
        return sorted(q for q in {*delta, landed} if 0 < q < BAR and row[q])

    ea = oppm[BAR - a] < closes
    eb = oppm[BAR - b] < closes
    if ea:
        da = BAR - a
        ha = 1 if hitting and oppm[da] == 1 else 0
        sa = steps_a[BAR][ha]
        for y in origins(da):
            yb = y - b
            if yb > 0 and oppm[yb] < closes:
                hb = 1 if hitting and oppm[yb] == 1 and yb != da else 0
                two(BAR, da, ha, sa, y, yb, hb, steps_b[y][hb])
    if eb:
        db = BAR - b
        hb = 1 if hitting and oppm[db] == 1 else 0
        sb = steps_b[BAR][hb]
        for x in origins(db):
            xa = x - a
            if x == db and ea and row[BAR - a]:
                continue
            if xa > 0 and oppm[xa] < closes:
                ha = 1 if hitting and oppm[xa] == 1 and xa != db else 0
                two(BAR, db, hb, sb, x, xa, ha, steps_a[x][ha])


def _two_dice_general_reaching(
    r: _Rules,
    side: int,
    position: Position,
    a: int,
    b: int,
    goal: list[int],
    changed: dict[int, int],
) -> list[_Found]:
    """`fast._two_dice_general` (nothing on the bar) with only the plays of
    both dice that end on ``goal``: a first step from ``o1`` needs ``o1`` or
    ``o1 + second`` to lose checkers in ``changed``, a second from ``o2``
    needs ``o2`` to lose some or to be where the first landed."""
    me = list(position.sides[side])
    oppm = list(r.gather[side](position.sides[1 - side]))
    closes = r.closes
    hitting = r.hitting
    steps = _STEPS
    weight = _WEIGHT
    hit_weight = _HIT_WEIGHT
    outside0 = sum(me[HOME + 1 :])
    twos: dict[int, _Found] = {}
    points = [q for q, n in changed.items() if n < 0 and q]  # the points that lose checkers
    for first, second in ((a, b), (b, a)):
        # The generator's origins (occupied points, highest first) cut down.
        firsts = {*points, *[q - second for q in points if q - second > 0]}
        for o1 in sorted(firsts, reverse=True):
            if not me[o1]:
                continue
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
            for o2 in sorted({*points, d1} if d1 else points, reverse=True):
                if not me[o2]:
                    continue
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
                key = k1 + weight[d2] - weight[o2] + (hit_weight[d2] if h2 else 0)
                if key in twos:
                    continue
                me[o2] -= 1
                me[d2] += 1
                if me == goal:
                    twos[key] = (
                        tuple(me),
                        (h1 << d1) | (h2 << d2),
                        (s1, steps[((o2 * 26 + d2) * 7 + second) * 2 + h2]),
                    )
                me[o2] += 1
                me[d2] -= 1
            me[o1] += 1
            me[d1] -= 1
            oppm[d1] += h1
    return list(twos.values())


def _highest_difference(me: list[int], goal: list[int], top: int) -> int:
    """The highest index from ``top`` down to 1 where ``me`` and ``goal`` differ (0: none)."""
    q = top
    while q and me[q] == goal[q]:
        q -= 1
    return q


def _doubles_in_play_reaching(
    r: _Rules, side: int, position: Position, die: int, goal: list[int]
) -> list[_Found]:
    """`fast._doubles_in_play`'s walk to ``goal`` (nothing on the bar, four or
    more checkers outside home): its one play there, or empty."""
    me = list(position.sides[side])
    initial = r.gather[side](position.sides[1 - side])
    oppm = list(initial)
    closes = r.closes
    hitting = r.hitting
    moves = _MOVE_STEPS[die]
    if goal[BAR] or goal[OFF] != me[OFF]:
        return []
    top = POINTS
    mask = 0
    played: list[Step] = []
    for _ in range(4):
        o = _highest_difference(me, goal, top)
        # The step leaves o: it must hold more checkers than the goal there.
        if o <= die or me[o] <= goal[o] or initial[o - die] >= closes:
            return []
        d = o - die
        h = 1 if hitting and oppm[d] == 1 else 0
        me[o] -= 1
        me[d] += 1
        oppm[d] -= h
        mask |= h << d
        played.append(moves[o][h])
        top = o
    if me != goal:
        return []
    return [(tuple(me), mask, tuple(played))]


def _doubles_reaching(
    r: _Rules, side: int, position: Position, die: int, goal: list[int]
) -> list[_Found]:
    """`fast._doubles`'s walk to ``goal`` when it plays all four steps: its
    one play there, or empty (fewer steps: the caller generates them all)."""
    me = list(position.sides[side])
    oppm = list(r.gather[side](position.sides[1 - side]))
    closes = r.closes
    hitting = r.hitting
    steps = _STEPS
    outside = sum(me[HOME + 1 :])
    top = BAR
    mask = 0
    played: list[Step] = []
    for _ in range(4):
        if me[BAR]:
            o = BAR if me[BAR] > goal[BAR] else 0
        else:
            o = _highest_difference(me, goal, BAR)
            if o > top:
                return []
        if not o or me[o] <= goal[o]:
            return []
        d = o - die
        hit = 0
        if d > 0:
            c = oppm[d]
            if c:
                if c >= closes:
                    return []
                if hitting:
                    hit = 1
        else:
            if outside:
                return []
            if d < 0:
                if any(me[o + 1 : HOME + 1]):
                    return []
                d = OFF
        me[o] -= 1
        me[d] += 1
        if hit:
            oppm[d] = 0
        if o > HOME >= d:
            outside -= 1
        mask |= hit << d
        played.append(steps[((o * 26 + d) * 7 + die) * 2 + hit])
        top = o
    if me != goal:
        return []
    return [(tuple(me), mask, tuple(played))]
