"""Soldiers plays of a double without the general search, where that is exact.

`engine.soldiers.movegen.search` is written for any dice and any position:
it keeps a set of visited boards, lists a board's steps into a memo, keys
boards by three integers and replays shorter plays.  Doubles are where that
costs most (about 170 plays a position in mid-game, each found through two
to four steps).  This module walks the same tree in the same order, with
the same cuts and less bookkeeping (no visited set or step memo, one
integer key, rows built only for whole plays), for the positions where

- the mover has at most one general, on the board, on the bar or pinned
  (so the retreat rule is about one known checker: its start, where it
  stands, whether it hit), and
- no opposing lone guard has one of the mover's checkers on it (true at
  the start of every turn of a real game).

Then the whole-play conditions reduce to two counts along the path: first
attackers not yet followed by a capture (a first attacker cannot move on,
so each attack is undone only by the capture on its point), and the
general's start, place and hit.

Two walks share that: `node`/`last` where nothing can be borne off this
turn, the mover's checkers outside its home or on the bar needing all four
dice to come home (`movegen.may_bear_off`; a general's backward step only
takes it further, an entering checker lands outside), which is most of a
game and gets the written-out last die; and `bear_node` otherwise, which
plays every step on the slots with the search's bear-off rules (exact or highest-checker
bear-offs, the last checker off counting as every die) and visits each
board once per dice left and whole-play state, as the search does (a
last step that only moves or bears off a checker is recorded without
being played: its key first, its rows only for a new board).  A
checker on the bar that cannot enter passes the turn at once (`movegen.can_enter`).

What is the same as the search, so that plays, steps and order are
identical (tests/engine/soldiers/test_doubles.py compares them):

- the steps of a board in the search's order (origins from the back,
  classes in order, a general's forward step before its backward one),
  the first attacker's wait, and the commuting cut against the last step
  (none after an entry or a bear-off);
- a board's play is the first path that reaches it with all four dice;
  boards are kept in the order they were first met, and that includes the
  shorter plays the search records while no whole play has been found yet
  (a later whole play to such a board takes that place);
- the whole-play conditions (a first attacker left alone, a general behind
  its start without a hit) are checked where the search checks them.

When no play uses all four dice (the forced-move rules then choose among
shorter plays), or outside the positions above, this returns None and the
search answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain, compress
from typing import Final

from engine.rules.board import BAR, BLACK, OFF, WHITE
from engine.soldiers.army import CHECKERS, DRUID, GENERAL
from engine.soldiers.movegen import (
    _AT,
    _BY_RANK,
    _EFFECT_CODE,
    _MIRRORED,
    _MOVABLE,
    _MY_PIN_AT,
    _OP_AT,
    _OP_PIN_AT,
    _OP_SLOT,
    ATTACK,
    CAPTURE,
    HIT,
    HOME,
    PIN,
    PLAIN,
    SoldierPlay,
    SoldierStep,
    _make,
    _movable,
    _step,
    attacker_waits,
    can_enter,
    do_step,
    general_start,
    may_bear_off,
    undo_step,
)
from engine.soldiers.state import LONE, LONE_GUARD, ONE, SoldiersPosition

# One exact integer per board (`engine.soldiers.movegen`'s three keys packed
# in one, counted from the start's): my slots, the opponent's past them,
# both sides' pins past those.
_FULL: Final = 4
_NO_RANK: Final = 1 << 16  # above every rank: nothing is cut after the start or an entry
_BAR_ONLY: Final = (BAR,)


# A step's change to the board key when it only moves a checker, by die,
# class and origin: forwards (from the bar too) and a general's backwards.
_FORWARD: Final = tuple(
    tuple(
        tuple(_AT[cls][o - die] - _AT[cls][o] if o > die else 0 for o in range(BAR + 1))
        for cls in range(6)
    )
    for die in range(7)
)
_BACKWARD: Final = tuple(
    tuple(
        tuple(_AT[cls][o + die] - _AT[cls][o] if o + die <= 24 else 0 for o in range(BAR + 1))
        for cls in range(6)
    )
    for die in range(7)
)

_Row = tuple[int, ...]
_Found = tuple[tuple[SoldierStep, ...], _Row, _Row, _Row, _Row]


def doubles_plays(position: SoldiersPosition, die: int) -> list[SoldierPlay] | None:
    """The legal plays of a double of ``die`` as the search gives them, or
    None where this walk is not exact or no play uses all four dice."""
    side = position.turn
    me0 = position.free[side]
    if me0[BAR] and not can_enter(position, die):
        return [SoldierPlay((), position.with_turn(1 - side))]  # nothing moves (§2)
    pm0 = position.pinned[side]
    may_bear = may_bear_off(me0, die)
    generals = (sum(me0[1:]) & 31) + pm0.count(GENERAL + 1)
    if generals > 1:
        return None
    general = general_start(me0, pm0)
    their_free, their_pins = position.free[1 - side], position.pinned[1 - side]
    op0 = _MIRRORED(their_free)
    if attacker_waits(me0, op0):
        return None
    po0 = _MIRRORED(their_pins)
    me, op, pm, po = list(me0), list(op0), list(pm0), list(po0)
    movable_of = _MOVABLE[die & 1]
    forward, backward = _FORWARD[die], _BACKWARD[die]
    at, op_at, op_slot, my_pin_at, op_pin_at = _AT, _OP_AT, _OP_SLOT, _MY_PIN_AT, _OP_PIN_AT
    bar_slot = op_slot[BAR]
    one_of = ONE
    # key -> the play found (its steps and rows: mine, the opponent's in its
    # numbering, my pins, its pins), or the dice of a shorter one, kept only
    # for its place: dict order is the order the search first meets boards
    results: dict[int, int | _Found] = {}
    best = [0]  # the most dice of a play recorded so far (the search's `best`)
    by_rank = _BY_RANK

    def step_object(o: int, cls: int, d: int, effect: str, rank: int) -> SoldierStep:
        code = rank * 8 + _EFFECT_CODE[effect]
        found = by_rank.get(code)
        if found is None:
            found = by_rank[code] = _step(o, d, die, cls, effect)
        return found

    def node(
        left: int,
        key: int,
        path: tuple[SoldierStep, ...],
        last_rank: int,
        last_o: int,
        last_d: int,
        last_cls: int,
        last_effect: str,
        risky: bool,
        attacks: int,
        g_now: int,
        g_hit: int,
        changed: int,
    ) -> None:
        """The board after ``path`` (``left`` dice to play): record it while
        no whole play is known, then try its steps in the search's order."""
        if best[0] < _FULL:
            used = _FULL - left
            if used >= best[0] and (
                not risky or (not attacks and not (g_now > general and not g_hit))
            ):
                best[0] = used
                old = results.get(key)
                if old is None or (isinstance(old, int) and used > old):
                    results[key] = used
        if last_rank == _NO_RANK:
            top = 24
        else:
            top = (last_o if last_o > last_d else last_d) + die
            if top > 24:
                top = 24
        found: list[tuple[int, int, int, str, int]] = []
        add = found.append
        origins: Iterable[int]
        if me[BAR]:
            origins = _BAR_ONLY
        else:
            # a checker at most a die from off moves only if it is the
            # general, backwards (nothing is borne off in this walk)
            origins = compress(range(top, die, -1), me[top:die:-1])
            if 0 < g_now <= die and g_now <= top and me[g_now] & 31:
                origins = chain(origins, (g_now,))
        for o in origins:
            v = me[o]
            if op[o] == LONE_GUARD and v % 31 == 1 and o != BAR:
                continue  # the first attacker waits on the guard's point for the second
            movable = movable_of.get(v)
            if movable is None:
                movable = movable_of[v] = _movable(v, die & 1)
            d = o - die
            base = (die * 32 + o) * 8 + 7
            # what landing on d does, for a druid and for any other class
            if d < 1:
                other = druid = None  # nothing is borne off this turn
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
                    rank = (base - cls) * 2 + 1
                    if (
                        rank <= last_rank
                        or o == BAR
                        or not _cut(
                            o, cls, d, effect, last_o, last_d, last_cls, last_effect, me, po
                        )
                    ):
                        add((o, cls, d, effect, rank))
                if cls == GENERAL and o + die <= 24:
                    b = o + die
                    w = op[b]
                    if not w:
                        effect = PLAIN
                    elif w % 31 >= 2:
                        continue
                    elif w == LONE_GUARD:
                        effect = CAPTURE if me[b] else ATTACK
                    else:
                        effect = HIT
                    rank = (base - cls) * 2
                    if rank <= last_rank or not _cut(
                        o, cls, b, effect, last_o, last_d, last_cls, last_effect, me, po
                    ):
                        add((o, cls, b, effect, rank))
        child = node if left > 2 else last
        for o, cls, d, effect, rank in found:
            # step: leave o (freeing a checker pinned under my last one
            # there); written out here, the walk's hottest loop, rather than
            # calling movegen.do_step (which the rarer steps below call)
            one = one_of[cls]
            me[o] -= one
            k = key - at[cls][o] + at[cls][d]
            released = hit_value = freed = 0
            if not me[o] and po[o]:
                released = po[o]
                op[o] += one_of[released - 1]
                k += op_at[released - 1][o] - released * op_pin_at[o]
                po[o] = 0
            hit = effect is HIT or effect is CAPTURE
            if hit:
                hit_value = op[d]
                op[BAR] += hit_value
                op[d] = 0
                k += hit_value * (bar_slot - op_slot[d])
                freed = pm[d]
                if freed:  # my checker held there is free
                    me[d] += one_of[freed - 1]
                    k += at[freed - 1][d] - freed * my_pin_at[d]
                    pm[d] = 0
            elif effect is PIN:
                hit_value = op[d]
                po[d] = LONE[hit_value] + 1
                k += po[d] * op_pin_at[d] - hit_value * op_slot[d]
                op[d] = 0
            me[d] += one
            child(
                left - 1,
                k,
                (*path, step_object(o, cls, d, effect, rank)),
                _NO_RANK if o == BAR else rank,  # nothing commutes with an entry
                o,
                d,
                cls,
                effect,
                risky or effect is ATTACK or d > o,
                attacks + (effect is ATTACK) - (effect is CAPTURE),
                d if cls == GENERAL else g_now,
                1 if hit and cls == GENERAL else g_hit,
                changed + (released or effect is not PLAIN),
            )
            undo_step(me, op, pm, po, o, cls, d, effect, released, hit_value, freed)

    def last(
        left: int,
        key: int,
        path: tuple[SoldierStep, ...],
        last_rank: int,
        last_o: int,
        last_d: int,
        last_cls: int,
        last_effect: str,
        risky: bool,
        attacks: int,
        g_now: int,
        g_hit: int,
        changed: int,
    ) -> None:
        """`node` for the last die, its steps played as they are listed:
        each new valid board is a whole play.  Most steps only move a
        checker onto nothing or hit a blot: their key is found without
        stepping, and the slots are stepped only for a new board."""
        if best[0] < _FULL:
            used = _FULL - left
            if used >= best[0] and (
                not risky or (not attacks and not (g_now > general and not g_hit))
            ):
                best[0] = used
                old = results.get(key)
                if old is None or (isinstance(old, int) and used > old):
                    results[key] = used
        get = results.get
        # the rows a step that only moves a checker leaves as they are here
        rows: tuple[_Row, _Row, _Row] | None = None
        origins: Iterable[int]
        if me[BAR]:
            origins = _BAR_ONLY
        else:
            if last_rank == _NO_RANK:
                top = 24
            elif last_d < last_o:
                # After a forward step from last_o, a step from higher up
                # ranks above it and is cut unless it lands on last_o (the
                # search's top, one die above, lists them only for that):
                # so the point one die above last_o, then last_o and below.
                top = last_o
            else:
                top = last_d + die if last_d + die <= 24 else 24
            # a checker at most a die from off moves only if it is the
            # general, backwards (nothing is borne off in this walk)
            origins = compress(range(top, die, -1), me[top:die:-1])
            if last_d < last_o and last_rank != _NO_RANK:
                above = last_o + die
                if above <= 24 and me[above]:
                    origins = chain((above,), origins)
            if 0 < g_now <= die and g_now <= top and me[g_now] & 31:
                origins = chain(origins, (g_now,))
        for o in origins:
            v = me[o]
            if op[o] == LONE_GUARD and v % 31 == 1 and o != BAR:
                continue  # the first attacker waits on the guard's point for the second
            movable = movable_of.get(v)
            if movable is None:
                movable = movable_of[v] = _movable(v, die & 1)
            d = o - die
            base = (die * 32 + o) * 8 + 7
            if d < 1:
                other = druid = None  # nothing is borne off this turn
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
                if effect is not None and effect is not ATTACK:
                    rank = (base - cls) * 2 + 1
                    if (
                        rank > last_rank
                        and o != BAR
                        and _cut(o, cls, d, effect, last_o, last_d, last_cls, last_effect, me, po)
                    ):
                        pass
                    elif effect is PLAIN and not (po[o] and v == one_of[cls]):
                        # it only moves the checker: the board's key first
                        k = key + forward[cls][o]
                        old = get(k)
                        if (old is not None and old.__class__ is not int) or (
                            risky
                            and (
                                attacks
                                or ((d if cls == GENERAL else g_now) > general and not g_hit)
                            )
                        ):
                            pass
                        else:
                            best[0] = _FULL
                            me[o] = v - one_of[cls]
                            me[d] += one_of[cls]
                            mine = tuple(me)
                            me[o] = v
                            me[d] -= one_of[cls]
                            step = by_rank.get(rank << 3)
                            if step is None:
                                step = by_rank[rank << 3] = _step(o, d, die, cls, PLAIN)
                            if changed:
                                if rows is None:  # the same for every such step here
                                    rows = (_MIRRORED(op), tuple(pm), _MIRRORED(po))
                                results[k] = ((*path, step), mine, *rows)
                            else:
                                results[k] = ((*path, step), mine, their_free, pm0, their_pins)
                    elif effect is HIT and not pm[d] and not (po[o] and v == one_of[cls]):
                        # a blot hit, nothing freed or released: the opponent's
                        # row changes at d and on its bar only
                        hit_value = op[d]
                        k = key + forward[cls][o] + hit_value * (bar_slot - op_slot[d])
                        old = get(k)
                        if (old is None or old.__class__ is int) and not (
                            risky
                            and (attacks or (cls != GENERAL and g_now > general and not g_hit))
                        ):
                            best[0] = _FULL
                            if changed and rows is None:
                                rows = (_MIRRORED(op), tuple(pm), _MIRRORED(po))
                            me[o] = v - one_of[cls]
                            me[d] += one_of[cls]
                            op[d] = 0
                            op[BAR] += hit_value
                            mine = tuple(me)
                            theirs = _MIRRORED(op)
                            me[o] = v
                            me[d] -= one_of[cls]
                            op[d] = hit_value
                            op[BAR] -= hit_value
                            step = by_rank.get(rank * 8 + 1)
                            if step is None:
                                step = by_rank[rank * 8 + 1] = _step(o, d, die, cls, HIT)
                            if rows is not None:
                                results[k] = ((*path, step), mine, theirs, rows[1], rows[2])
                            else:
                                results[k] = ((*path, step), mine, theirs, pm0, their_pins)
                    else:
                        slow_leaf(o, cls, d, effect, rank, key, path, risky, attacks, g_now, g_hit)
                if cls == GENERAL and o + die <= 24:
                    b = o + die
                    w = op[b]
                    if not w:
                        effect = PLAIN
                    elif w % 31 >= 2 or (w == LONE_GUARD and not me[b]):
                        continue  # closed, or a first attack left alone
                    elif w == LONE_GUARD:
                        effect = CAPTURE
                    else:
                        effect = HIT
                    rank = (base - cls) * 2
                    if rank > last_rank and _cut(
                        o, cls, b, effect, last_o, last_d, last_cls, last_effect, me, po
                    ):
                        continue
                    if effect is not PLAIN or (po[o] and v == one_of[cls]):
                        slow_leaf(o, cls, b, effect, rank, key, path, True, attacks, g_now, g_hit)
                        continue
                    # a backward step onto nothing: valid only back to where
                    # the general began, or after it hit
                    k = key + backward[cls][o]
                    old = get(k)
                    if (
                        (old is not None and old.__class__ is not int)
                        or attacks
                        or (b > general and not g_hit)
                    ):
                        continue
                    best[0] = _FULL
                    me[o] = v - one_of[cls]
                    me[b] += one_of[cls]
                    mine = tuple(me)
                    me[o] = v
                    me[b] -= one_of[cls]
                    step = by_rank.get(rank << 3)
                    if step is None:
                        step = by_rank[rank << 3] = _step(o, b, die, cls, PLAIN)
                    if changed:
                        if rows is None:
                            rows = (_MIRRORED(op), tuple(pm), _MIRRORED(po))
                        results[k] = ((*path, step), mine, *rows)
                    else:
                        results[k] = ((*path, step), mine, their_free, pm0, their_pins)

    def slow_leaf(
        o: int,
        cls: int,
        d: int,
        effect: str,
        rank: int,
        key: int,
        path: tuple[SoldierStep, ...],
        risky: bool,
        attacks: int,
        g_now: int,
        g_hit: int,
    ) -> None:
        """A last step that may hit, pin, capture or free a checker (or a
        general's backward step): stepped on the slots, then taken back."""
        done = do_step(me, op, pm, po, o, cls, d, effect)
        k = key + done[0]
        hit = effect is HIT or effect is CAPTURE
        old = results.get(k)
        if old is None or old.__class__ is int:
            left_attacks = attacks - (effect is CAPTURE)
            now = d if cls == GENERAL else g_now
            now_hit = 1 if hit and cls == GENERAL else g_hit
            if not risky or (not left_attacks and not (now > general and not now_hit)):
                best[0] = _FULL
                code = rank * 8 + _EFFECT_CODE[effect]
                step = by_rank.get(code)
                if step is None:
                    step = by_rank[code] = _step(o, d, die, cls, effect)
                results[k] = ((*path, step), tuple(me), _MIRRORED(op), tuple(pm), _MIRRORED(po))
        # take the step back
        undo_step(me, op, pm, po, o, cls, d, effect, *done[1:])

    def bear_node(
        left: int,
        key: int,
        path: tuple[SoldierStep, ...],
        last_rank: int,
        last_o: int,
        last_d: int,
        last_cls: int,
        last_effect: str,
        risky: bool,
        attacks: int,
        g_now: int,
        g_hit: int,
    ) -> None:
        """The walk where a bear-off may come within reach this turn, with
        the search's bear-off rules: every step is played on the slots
        (but a last one that only moves or bears off a checker), and a
        board with no die left (or every checker off, which counts as
        every die) is a node like the others."""
        node_id = (key, left, g_hit, attacks, risky)
        if node_id in visited:
            return
        visited.add(node_id)
        done = me[OFF] % 31 == CHECKERS
        used = _FULL if done else _FULL - left
        if used >= best[0] and (not risky or (not attacks and not (g_now > general and not g_hit))):
            best[0] = used
            old = results.get(key)
            if used == _FULL:
                if old is None or old.__class__ is int:
                    results[key] = (path, tuple(me), _MIRRORED(op), tuple(pm), _MIRRORED(po))
            elif old is None or (isinstance(old, int) and used > old):
                results[key] = used
        if done or not left:
            return
        if last_rank == _NO_RANK:
            top = 24
        else:
            top = (last_o if last_o > last_d else last_d) + die
            top = 24 if top > 24 else HOME if top < HOME else top  # bear-offs are from home
        bear = False
        high = BAR  # the highest point holding a checker of mine (pinned ones too)
        origins: Iterable[int]
        if me[BAR]:
            origins = _BAR_ONLY
        else:
            origins = compress(range(top, 0, -1), me[top:0:-1])
            bear = not any(me[HOME + 1 :])
            if bear:
                if any(pm):  # a pinned checker counts where it stands
                    high = next(q for q in range(BAR, -1, -1) if me[q] or pm[q] or not q)
                else:  # nothing of mine is outside the home
                    high = 0
                    for q in range(HOME, 0, -1):
                        if me[q]:
                            high = q
                            break
        found: list[tuple[int, int, int, str, int]] = []
        add = found.append
        for o in origins:
            v = me[o]
            if op[o] == LONE_GUARD and v % 31 == 1 and o != BAR:
                continue  # the first attacker waits on the guard's point for the second
            movable = movable_of.get(v)
            if movable is None:
                movable = movable_of[v] = _movable(v, die & 1)
            d = o - die
            base = (die * 32 + o) * 8 + 7
            if d < 1:
                # borne off: exactly, or from the highest point
                other = druid = PLAIN if bear and (d == 0 or o == high) else None
                d = OFF
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
                    rank = (base - cls) * 2 + 1
                    if (
                        rank <= last_rank
                        or d == OFF
                        or o == BAR
                        or not _cut(
                            o, cls, d, effect, last_o, last_d, last_cls, last_effect, me, po
                        )
                    ):
                        add((o, cls, d, effect, rank))
                if cls == GENERAL and o != BAR and o + die <= 24:
                    b = o + die
                    w = op[b]
                    if not w:
                        effect = PLAIN
                    elif w % 31 >= 2:
                        continue
                    elif w == LONE_GUARD:
                        effect = CAPTURE if me[b] else ATTACK
                    else:
                        effect = HIT
                    rank = (base - cls) * 2
                    if rank <= last_rank or not _cut(
                        o, cls, b, effect, last_o, last_d, last_cls, last_effect, me, po
                    ):
                        add((o, cls, b, effect, rank))
        rows: tuple[_Row, _Row, _Row] | None = None  # the rows other than mine, here
        for o, cls, d, effect, rank in found:
            one = one_of[cls]
            if left == 1 and effect is PLAIN and not (o != BAR and po[o] and me[o] == one):
                # The last die, a step that only moves or bears off a
                # checker: the board it leaves is a whole play, recorded
                # here (its key found without stepping, its rows built only
                # if it is new) rather than as a node of its own.
                k = key + at[cls][d] - at[cls][o]
                old = results.get(k)
                if (old is not None and old.__class__ is not int) or (
                    (risky or d > o)
                    and (attacks or ((d if cls == GENERAL else g_now) > general and not g_hit))
                ):
                    continue
                best[0] = _FULL
                me[o] -= one
                me[d] += one
                mine = tuple(me)
                me[o] += one
                me[d] -= one
                if rows is None:
                    rows = (
                        (their_free, pm0, their_pins)
                        if op == start_rows[0] and pm == start_rows[1] and po == start_rows[2]
                        else (_MIRRORED(op), tuple(pm), _MIRRORED(po))
                    )
                results[k] = ((*path, step_object(o, cls, d, effect, rank)), mine, *rows)
                continue
            stepped = do_step(me, op, pm, po, o, cls, d, effect)
            k = key + stepped[0]
            hit = effect is HIT or effect is CAPTURE
            # nothing commutes with an entry or a bear-off
            plain_last = o != BAR and d != OFF
            bear_node(
                left - 1,
                k,
                (*path, step_object(o, cls, d, effect, rank)),
                rank if plain_last else _NO_RANK,
                o if plain_last else 0,
                d if plain_last else 0,
                cls if plain_last else 0,
                effect if plain_last else PLAIN,
                risky or effect is ATTACK or d > o,
                attacks + (effect is ATTACK) - (effect is CAPTURE),
                d if cls == GENERAL else g_now,
                1 if hit and cls == GENERAL else g_hit,
            )
            undo_step(me, op, pm, po, o, cls, d, effect, *stepped[1:])

    key0 = 0  # keys count from the start's (`engine.soldiers.movegen`)
    start_rows = (list(op0), list(pm0), list(po0))  # to tell the rows unchanged
    # boards met before with as many dice left (and the same whole-play
    # state) in the bear-off walk: a bear-off breaks the commuting cut, so
    # the same board is met through many orders; its plays are found once
    visited: set[tuple[int, int, int, int, bool]] = set()
    if may_bear:
        bear_node(_FULL, key0, (), _NO_RANK, 0, 0, -1, PLAIN, False, 0, general, 0)
    else:
        node(_FULL, key0, (), _NO_RANK, 0, 0, -1, PLAIN, False, 0, general, 0, 0)
    node = bear_node = None  # type: ignore[assignment]  # a closure cycle (engine/__init__.py)
    if best[0] < _FULL:
        return None
    plays: list[SoldierPlay] = []
    add = plays.append
    # plays that change no pin share the position's own pair of pin rows
    white = side == WHITE
    turn = BLACK if white else WHITE
    same_pins = (pm0, their_pins) if white else (their_pins, pm0)
    new = _make  # bound once: the loops below make every play
    for found in results.values():
        if isinstance(found, int):
            continue  # a shorter play's place, kept while no whole play was known
        steps, mine, theirs, my_pins, pins = found
        if pins is not their_pins:
            pinned = (my_pins, pins) if white else (pins, my_pins)
        else:
            pinned = same_pins
        free = (mine, theirs) if white else (theirs, mine)
        add(new(SoldierPlay, (steps, new(SoldiersPosition, (free, pinned, turn)))))
    return plays


def _cut(
    o: int,
    cls: int,
    d: int,
    effect: str,
    last_o: int,
    last_d: int,
    last_cls: int,
    last_effect: str,
    me: list[int],
    po: list[int],
) -> bool:
    """The search's commuting cut for a step ranked above the last one."""
    if o != last_o and o != last_d and d != last_o and d != last_d:
        return True
    if cls != GENERAL and last_cls != GENERAL and o != last_o and d != last_d:
        if (
            o == last_d
            and last_effect is PLAIN
            and me[o] >> 5 * cls & 31 > (cls == last_cls)
            and (not po[o] or me[o] % 31 >= 3)
        ):
            return True
        if d == last_o and effect is PLAIN:
            return True
    return False
