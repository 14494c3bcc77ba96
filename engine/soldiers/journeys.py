"""Soldiers plays of a double: the checkers whose order matters walked step
by step, the others' steps added as sets.

A play of a double is four steps of one die.  Where nothing can be borne
off this turn (the mover's checkers outside its home or on the bar need
all four dice to come home: `movegen.may_bear_off`) and the mover has at
most one general, its checkers fall in two groups:

- **walked**: the general (it walks both ways, and may end further back
  than it began only after a hit of its own), the checkers on the bar
  (nothing else moves until they have entered), a druid with a blot
  within reach (the first lander on a blot pins it or hits it), the
  checkers on a point where they hold a pin and may all leave (the freed
  checker can then be hit), and every checker whose way reaches a point
  where the order of landings matters: a blot within a druid's reach (a
  pinned druid's too: a hit may free it), a lone guard (an attack needs
  its capture), a lone checker holding one of the mover's pinned (the hit
  frees it), or a held pin's point;
- **independent**: the rest.  Every landing of theirs only moves a
  checker or hits a blot (the first lander; a later one finds the point
  its own), whatever comes before it, and nothing they do changes what a
  walked checker may do.

So the walked checkers' steps are played first, in every order, on the
board itself (`_walk`: one node per board and number of steps, with its
whole-play state), and each board they leave with no checker on the bar
is completed by each set of the independent checkers' steps that uses
the dice left (`_units`: a class on a point, its checkers and the unit
its step lands in).  A set is played from the back (a unit is never
followed by one above it), which is always legal for these checkers and
meets each set once; and one set of steps of one die gives one board,
since each class's steps are fixed by where its checkers end (along
each line of points a die apart, the checkers that cross each gap are
counted by the ends).  So a board comes from one node and one set,
except where an independent checker may go on from a point where a
walked (or freed) checker of its class may stop, or a blot one node's
walk hit is hit by another node's steps: there the boards made are
kept by key.  Plays come out one per
resulting position, each with a legal path (the walked steps, then the
set from the back; the first lander on a blot hits it).

None where a bear-off may come within reach, with several generals, with
more walked checkers than `_MOST_WALKED` (the exact walk of
`engine.soldiers.doubles` is then as quick), or when no play uses all
four dice (the forced-move rules then choose); `engine.soldiers.plays`
then asks the walk.
"""

from __future__ import annotations

from typing import Final

from engine.rules.board import BAR, BLACK, WHITE
from engine.soldiers.army import CLASSES, DRUID, EVEN, GENERAL, ODD
from engine.soldiers.movegen import (
    _AT,
    _MIRRORED,
    _OP_SLOT,
    ATTACK,
    CAPTURE,
    HIT,
    PLAIN,
    SoldierPlay,
    SoldierStep,
    _landing,
    _make,
    _step,
    can_enter,
    do_step,
    general_start,
    may_bear_off,
    movable_classes,
    undo_step,
)
from engine.soldiers.state import LONE_GUARD, ONE, SoldiersPosition

_FULL: Final = 4
_BAR_SLOT: Final = _OP_SLOT[BAR]
# More walked checkers than this: their walk is most of the exact walk.
# Measured on 505 double rolls with 7 or more walked checkers (random games
# and made-up positions): with 7 the journeys took 0.65-0.85 of the walk's
# time, with 8 about as long, with 10 or more up to 7 times as long.
_MOST_WALKED: Final = 7

_Row = tuple[int, ...]
_Steps = tuple[SoldierStep, ...]
# An independent unit's step: origin, destination, the class's unit (to
# make the row), its change to the board key, the unit it lands in (see
# `_units`), whether a blot stands there, and the step landing on nothing
# and hitting.
_Unit = tuple[int, int, int, int, int, bool, SoldierStep, SoldierStep]
# A board the walked checkers leave: its steps, key, the blots they hit (bits),
# my row, and the opponent's row, my pins and its pins in the mover's
# numbering (None: the start's).
_Node = tuple[_Steps, int, int, _Row, tuple[_Row, _Row, _Row] | None]
# By the blots the journeys hit: the board key's change, the opponent's free
# row (its numbering) and both sides' pin rows (white's first).
_Theirs = tuple[int, _Row, tuple[_Row, _Row]]


def journey_plays(position: SoldiersPosition, die: int) -> list[SoldierPlay] | None:
    """The legal plays of a double of ``die`` (see the module), or None."""
    side = position.turn
    me0 = position.free[side]
    pm0 = position.pinned[side]
    if may_bear_off(me0, die):
        return None
    if me0[BAR] and not can_enter(position, die):
        return None  # nothing moves (§2): the walk answers at once
    if (sum(me0[1:]) & 31) + pm0.count(GENERAL + 1) > 1:  # GENERAL is class 0
        return None
    their_free, their_pins = position.free[1 - side], position.pinned[1 - side]
    op0 = _MIRRORED(their_free)
    po0 = _MIRRORED(their_pins)
    found = _walked(me0, op0, pm0, po0, die)
    if found is None:
        return None
    walked, entering = found
    units, counts, index = _units(me0, op0, walked, entering, die)
    general = general_start(me0, pm0)  # 25: on the bar; 0: none
    nodes = _walk(me0, op0, pm0, po0, die, walked, entering, general)
    if not nodes:
        return None  # no play uses all four dice: the forced-move rules choose

    plays: list[SoldierPlay] = []
    add = plays.append
    # Where two ways may reach one board, the boards made (by key): where
    # an independent checker may go on from a point where a walked checker
    # of its class (not the general, which has no independent class-mate;
    # or one of mine a hit or a capture may free) may stop, in its place;
    # or where a blot one walk hit is hit by another node's steps.
    # Otherwise a board comes from one node (the walk keeps one per board
    # and number of steps) and one set of steps: along each line of points
    # a die apart, a class's ends fix who crossed each gap, and only a
    # unit's step crosses one.
    seen: set[int] = set()
    stopping = [
        (q, cls) for q, cls in walked if cls != GENERAL and not (q == BAR and cls in entering)
    ]
    if any(pm0):
        stopping += [(q, pm0[q] - 1) for q in range(1, BAR) if pm0[q]]
    mixed = any((q - k * die, cls) in index for q, cls in stopping for k in range(_FULL))
    walk_hits = 0
    for node in nodes:
        walk_hits |= node[2]
    white = side == WHITE
    turn = BLACK if white else WHITE
    same_pins = (pm0, their_pins) if white else (their_pins, pm0)
    # by the opponent's rows a walk leaves, then by the blots hit
    by_start: dict[int, _Theirs] = {0: (0, their_free, same_pins)}
    theirs_by_rows: dict[tuple[_Row, _Row, _Row], dict[int, _Theirs]] = {}
    new = _make  # bound once: the loops below make every play
    last = len(units)
    # the board being completed: my row as the steps so far leave it, the
    # opponent's row in the mover's numbering and its `_Theirs` by blots hit
    row: list[int] = []
    op_now = op0
    by_hits = by_start

    def make(key: int, hits: int, steps: _Steps, mine: _Row) -> None:
        """The play of ``steps`` that the walk alone makes, to the board
        with my row ``mine`` (``key``: its key without the blots hit,
        ``hits``), unless made before."""
        theirs = by_hits.get(hits)
        if theirs is None:
            theirs = by_hits[hits] = _theirs(op_now, by_hits[0], hits)
        if mixed or hits & walk_hits:
            board = key + theirs[0]
            if board in seen:
                return
            seen.add(board)
        free = (mine, theirs[1]) if white else (theirs[1], mine)  # the opponent to move
        add(new(SoldierPlay, (steps, new(SoldiersPosition, (free, theirs[2], turn)))))

    def extend(first: int, need: int, key: int, hits: int, path: _Steps) -> None:
        """Each set of ``need`` independent steps from the units ``first``
        on: a unit is never followed by one above it, so each set comes
        once, in an order that plays it."""
        for i in range(first, last):
            if not counts[i]:
                continue
            o, d, one, change, after, blot, plain, hitting = units[i]
            if blot and not hits >> d & 1:
                step = hitting  # the first lander on the blot hits it
                now = hits | 1 << d
            else:
                step = plain
                now = hits
            row[o] -= one
            row[d] += one
            counts[i] -= 1
            counts[after] += 1
            if need == 2:
                finish(i, key + change, now, (*path, step))
            else:
                extend(i, need - 1, key + change, now, (*path, step))
            counts[i] += 1
            counts[after] -= 1
            row[o] += one
            row[d] -= one

    def finish(first: int, key: int, hits: int, path: _Steps) -> None:
        """`extend`'s last step of each set, its play made as `make` makes
        it (written out: this loop makes most plays)."""
        for i in range(first, last):
            if not counts[i]:
                continue
            o, d, one, change, _, blot, plain, hitting = units[i]
            if blot and not hits >> d & 1:
                step = hitting  # the first lander on the blot hits it
                now = hits | 1 << d
            else:
                step = plain
                now = hits
            theirs = by_hits.get(now)
            if theirs is None:
                theirs = by_hits[now] = _theirs(op_now, by_hits[0], now)
            if mixed or now & walk_hits:
                board = key + change + theirs[0]
                if board in seen:
                    continue
                seen.add(board)
            row[o] -= one
            row[d] += one
            mine = tuple(row)
            row[o] += one
            row[d] -= one
            free = (mine, theirs[1]) if white else (theirs[1], mine)  # the opponent to move
            add(new(SoldierPlay, ((*path, step), new(SoldiersPosition, (free, theirs[2], turn)))))

    for path, node_key, node_hits, mine_now, rows in nodes:
        # The blots the walk hit count with the steps' (a second lander
        # there hits nothing): where the walk changed the opponent's rows
        # only by them, they go to the bar with the steps' hits; else they
        # are in the rows already and hitting them again changes nothing.
        if rows is None:
            op_now = op0
            by_hits = by_start
        else:
            op_now = rows[0]
            known = theirs_by_rows.get(rows)
            if known is None:
                pins = _MIRRORED(rows[2])
                pin_rows = (rows[1], pins) if white else (pins, rows[1])
                known = theirs_by_rows[rows] = {0: (0, _MIRRORED(op_now), pin_rows)}
            by_hits = known
        need = _FULL - len(path)
        if not need:
            make(node_key, node_hits, path, mine_now)
            continue
        row = list(mine_now)
        if need == 1:
            finish(0, node_key, node_hits, path)
        else:
            extend(0, need, node_key, node_hits, path)
    extend = None  # type: ignore[assignment]  # a closure cycle (engine/__init__.py)
    return plays or None


def _walked(
    me: _Row, op: _Row, pm: _Row, po: _Row, die: int
) -> tuple[dict[tuple[int, int], int], dict[int, int]] | None:
    """The walked checkers (see the module), by point and class, and of
    those on the bar the classes that go on as independent checkers once
    entered (with their checkers); None where there are more than
    `_MOST_WALKED` walked checkers."""
    odd = die & 1
    walked: dict[tuple[int, int], int] = {}

    def take(q: int) -> None:
        """Every class on point ``q``."""
        v = me[q]
        for cls in range(CLASSES):
            n = v >> 5 * cls & 31
            if n:
                walked[(q, cls)] = n

    take(BAR)
    for q in range(1, BAR):
        if me[q] & 31:  # the general: class 0
            walked[(q, GENERAL)] = me[q] & 31
    # the points where the order of landings matters
    sensitive = 0
    for q in range(1, BAR):
        w = op[q]
        if w == LONE_GUARD or (w % 31 == 1 and pm[q]):
            sensitive |= 1 << q  # an attack needs its capture; a hit frees my checker
        elif po[q] and me[q] % 31 <= _FULL:
            sensitive |= 1 << q  # the checkers holding a pin may all leave
            take(q)
    # the blots a druid may pin: on its way past everything but a closed
    # point (a guard captured or a pin holder hit first lets it pass), a
    # pinned druid's too (a hit may free it)
    for q in range(1, BAR + 1):
        druids = me[q] >> 5 * DRUID & 31
        if druids or pm[q] == DRUID + 1:
            x = q
            for _ in range(_FULL):
                d = x - die
                if d < 1 or op[d] % 31 >= 2:
                    break
                if op[d] and op[d] != LONE_GUARD and not pm[d]:
                    sensitive |= 1 << d
                    if druids:
                        walked[(q, DRUID)] = druids
                x = d

    def reaches(x: int, cls: int, steps: int) -> bool:
        """Whether a ``cls`` checker's way of ``steps`` from ``x`` reaches
        such a point (it stops where it may not land)."""
        for _ in range(steps):
            x -= die
            if x < 1:
                return False
            if sensitive >> x & 1:
                return True
            if _landing(me, op, pm, x, cls) is None:
                return False
        return False

    # every other checker whose way reaches such a point
    for q in range(24, die, -1) if sensitive else ():
        v = me[q]
        if not v:
            continue
        for cls in movable_classes(v, odd):
            if (q, cls) not in walked and reaches(q, cls, _FULL):
                walked[(q, cls)] = v >> 5 * cls & 31
    if sum(walked.values()) > _MOST_WALKED:
        return None
    # A checker on the bar is walked for its entry (nothing else moves
    # before it).  Where it enters onto nothing (no pin there either) and
    # its way on meets no point where the order of landings matters, it
    # goes on as an independent checker; not the general.
    entering: dict[int, int] = {}
    e = BAR - die
    if me[BAR] and not op[e] and not po[e] and not sensitive >> e & 1:
        for cls in movable_classes(me[BAR], odd):
            if cls != GENERAL and (e, cls) not in walked and not reaches(e, cls, _FULL - 1):
                entering[cls] = me[BAR] >> 5 * cls & 31
    return walked, entering


def _units(
    me: _Row, op: _Row, walked: dict[tuple[int, int], int], entering: dict[int, int], die: int
) -> tuple[list[_Unit], list[int], dict[tuple[int, int], int]]:
    """The independent checkers' steps, by unit (a class on a point), from
    the back and in class order: each unit whose checkers this die moves
    (a unit some independent checker may reach, with the checkers that
    stand there at the start and are not walked), with its step; and the
    units' checkers at the start (the last entry, beyond the units, counts
    the checkers that reach a unit that cannot move on), and each unit's
    place in the list by its point and class.  Their landings only move a
    checker or hit a blot (see `_walked`)."""
    odd = die & 1
    reached: dict[tuple[int, int], int] = {}  # (point, class) -> checkers at the start

    def reach(o: int, cls: int, count: int, steps: int) -> None:
        """``count`` checkers of ``cls`` on ``o`` with ``steps`` dice at most."""
        reached[(o, cls)] = reached.get((o, cls), 0) + count
        x = o - die
        # the points its journey passes, while it may go on
        for _ in range(steps - 1):
            if x - die < 1 or op[x] % 31 >= 2 or op[x - die] % 31 >= 2:
                break
            reached.setdefault((x, cls), 0)
            x -= die

    for cls, count in entering.items():  # from the point they enter, after the entries
        reach(BAR - die, cls, count, _FULL - (me[BAR] % 31))
    for o in range(24, die, -1):
        v = me[o]
        if not v:
            continue
        for cls in movable_classes(v, odd):
            if (o, cls) not in walked:
                reach(o, cls, v >> 5 * cls & 31, _FULL)
    order = sorted(
        (key for key in reached if op[key[0] - die] % 31 < 2), key=lambda k: (-k[0], k[1])
    )
    index = {key: i for i, key in enumerate(order)}
    units: list[_Unit] = []
    for o, cls in order:
        d = o - die
        plain = _step(o, d, die, cls, PLAIN)
        units.append(
            (
                o,
                d,
                ONE[cls],
                _AT[cls][d] - _AT[cls][o],
                index.get((d, cls), len(order)),
                op[d] != 0,
                plain,
                _step(o, d, die, cls, HIT) if op[d] else plain,  # (no blot: never hits)
            )
        )
    return units, [reached[key] for key in order] + [0], index


def _walk(
    me0: _Row,
    op0: _Row,
    pm0: _Row,
    po0: _Row,
    die: int,
    walked: dict[tuple[int, int], int],
    entering: dict[int, int],
    general: int,
) -> list[_Node]:
    """The walked checkers' steps in every order, on the board: each board
    they leave once per number of steps (with the general's hit, which
    decides whether it may end further back than it began), kept where
    no checker is on the bar, no first attacker waits for its capture and
    the general is not behind its start without a hit of its own.
    ``entering``: the classes on the bar that only enter here (they go on
    as independent checkers); ``general``: where the general began (25
    the bar, 0 none)."""
    if walked == {(general, GENERAL): 1} and general != BAR and not po0[general]:
        alone = _general_alone(me0, op0, pm0, die, general)
        if alone is not None:
            return alone
    me, op, pm, po = list(me0), list(op0), list(pm0), list(po0)
    tokens = dict(walked)
    still = ODD if die % 2 == 0 else EVEN  # the wounded class this die cannot move
    met: set[int] = set()
    kept: set[int] = set()
    nodes: list[_Node] = []

    def visit(
        steps: int,
        key: int,
        path: _Steps,
        hits: int,
        g_now: int,
        g_hit: bool,
        attacks: int,
        changed: bool,
        hit_key: int,
    ) -> None:
        """The board after ``path``: kept if it may be completed, then its
        walked checkers' steps.  ``attacks``: first attackers waiting for
        their capture; ``changed``: whether the opponent's checkers or the
        pins changed other than by blots hit (``hits``, whose change to the
        key is ``hit_key``)."""
        seen = key << 4 | steps << 1 | g_hit
        if seen in met:
            return
        met.add(seen)
        if (
            not me[BAR]
            and not attacks
            and (g_now <= general or g_hit)
            and key << 3 | steps not in kept  # one node per board and length
        ):
            kept.add(key << 3 | steps)
            if changed:
                nodes.append((path, key, hits, tuple(me), (tuple(op), tuple(pm), tuple(po))))
            else:  # only blots hit: the key without them (make adds them with the journeys')
                nodes.append((path, key - hit_key, hits, tuple(me), None))
        if steps == _FULL:
            return
        for (o, cls), n in list(tokens.items()):
            if not n or (me[BAR] and o != BAR) or cls == still:
                continue
            if o != BAR and op[o] == LONE_GUARD and me[o] % 31 == 1:
                continue  # a first attacker waits on the guard's point for the second
            one = ONE[cls]
            for d in (o - die, o + die) if cls == GENERAL and o != BAR else (o - die,):
                if not 1 <= d <= 24:
                    continue
                effect = _landing(me, op, pm, d, cls) if op[d] else PLAIN
                if effect is None:
                    continue
                if effect is PLAIN and (o == BAR or me[o] != one or not po[o]):
                    # it only moves the checker (nothing released): stepped in place
                    now = key + _AT[cls][d] - _AT[cls][o]
                    if steps == _FULL - 1:
                        # the last step: its board is kept as `visit` would
                        # keep it, without the visit (most boards are these)
                        if (
                            attacks
                            or (me[BAR] and me[BAR] != one)
                            or ((d if cls == GENERAL else g_now) > general and not g_hit)
                            or now << 3 | _FULL in kept
                        ):
                            continue
                        kept.add(now << 3 | _FULL)
                        step = _step(o, d, die, cls, effect)
                        me[o] -= one
                        me[d] += one
                        if changed:
                            rows = (tuple(op), tuple(pm), tuple(po))
                            nodes.append(((*path, step), now, hits, tuple(me), rows))
                        else:
                            nodes.append(((*path, step), now - hit_key, hits, tuple(me), None))
                        me[o] += one
                        me[d] -= one
                        continue
                    if now << 4 | (steps + 1) << 1 | g_hit in met:
                        continue  # a board walked before: `visit` would return at once
                    me[o] -= one
                    me[d] += one
                    tokens[(o, cls)] = n - 1
                    goes_on = o != BAR or cls not in entering
                    if goes_on:
                        tokens[(d, cls)] = tokens.get((d, cls), 0) + 1
                    visit(
                        steps + 1,
                        now,
                        (*path, _step(o, d, die, cls, effect)),
                        hits,
                        d if cls == GENERAL else g_now,
                        g_hit,
                        attacks,
                        changed,
                        hit_key,
                    )
                    if goes_on:
                        tokens[(d, cls)] -= 1
                    tokens[(o, cls)] = n
                    me[o] += one
                    me[d] -= one
                    continue
                step = _step(o, d, die, cls, effect)
                done = do_step(me, op, pm, po, o, cls, d, effect)
                tokens[(o, cls)] = n - 1
                goes_on = o != BAR or cls not in entering
                if goes_on:
                    tokens[(d, cls)] = tokens.get((d, cls), 0) + 1
                freed = done[3]  # my checker freed there is walked on
                if freed:
                    tokens[(d, freed - 1)] = tokens.get((d, freed - 1), 0) + 1
                hit = effect is HIT or effect is CAPTURE
                blot = effect is HIT and not done[1] and not freed  # a blot hit, nothing else
                visit(
                    steps + 1,
                    key + done[0],
                    (*path, step),
                    hits | (1 << d if effect is HIT else 0),
                    d if cls == GENERAL else g_now,
                    g_hit or (hit and cls == GENERAL),
                    attacks + (effect is ATTACK) - (effect is CAPTURE),
                    changed or not blot,
                    hit_key + done[2] * (_BAR_SLOT - _OP_SLOT[d]) if blot else hit_key,
                )
                if freed:
                    tokens[(d, freed - 1)] -= 1
                if goes_on:
                    tokens[(d, cls)] -= 1
                tokens[(o, cls)] = n
                undo_step(me, op, pm, po, o, cls, d, effect, *done[1:])

    visit(0, 0, (), 0, general, False, 0, False, 0)  # keys count from the start's
    visit = None  # type: ignore[assignment]  # a closure cycle (engine/__init__.py)
    return nodes


def _general_alone(me: _Row, op: _Row, pm: _Row, die: int, general: int) -> list[_Node] | None:
    """`_walk` where the general, on my point ``general`` and holding no
    pin there, is the only walked checker: its walks of 0 to 4 steps each
    way, every landing read from the start (a blot it hit before is gone),
    one per end, hits and length; None where it could hit a checker
    holding one of mine pinned (the freed checker is walked too)."""
    at = _AT[GENERAL]
    nodes: list[_Node] = []
    met: set[tuple[int, int, int]] = set()
    row = list(me)
    row[general] -= 1  # GENERAL is class 0: one checker is 1

    def walk(x: int, hits: int, steps: _Steps) -> bool:
        if (x <= general or hits) and (x, hits, len(steps)) not in met:
            met.add((x, hits, len(steps)))
            row[x] += 1
            nodes.append((steps, at[x] - at[general], hits, tuple(row), None))
            row[x] -= 1
        if len(steps) == _FULL:
            return True
        for d in (x - die, x + die):
            if not 1 <= d <= 24:
                continue
            effect = PLAIN if hits >> d & 1 else _landing(me, op, pm, d, GENERAL)
            # (a blot hit on the way here is gone: the point is empty now)
            if effect is None or effect is ATTACK:
                continue  # closed, or an attack nothing could follow
            if effect is HIT and pm[d]:
                return False
            now = hits | 1 << d if effect is HIT else hits
            if not walk(d, now, (*steps, _step(x, d, die, GENERAL, effect))):
                return False
        return True

    exact = walk(general, 0, ())
    walk = None  # type: ignore[assignment]  # a closure cycle (engine/__init__.py)
    return nodes if exact else None


def _theirs(op: _Row, start: _Theirs, hits: int) -> _Theirs:
    """When the blots on my points ``hits`` go to the bar (the board ``op``
    and ``start`` stand for, in the mover's numbering and as `_Theirs`):
    the board key's change, the opponent's free row and the pin rows."""
    key = 0
    changed = list(start[1])
    while hits:
        q = (hits & -hits).bit_length() - 1  # the lowest point hit
        hits &= hits - 1
        if op[q]:  # the walk may have hit it first
            key += op[q] * (_BAR_SLOT - _OP_SLOT[q])
            changed[BAR] += changed[25 - q]
            changed[25 - q] = 0
    return key, tuple(changed), start[2]
