"""Legal plays: every distinct way to play a roll under the variant's rules.

The generator works on mutable lists of counts in the mover's numbering, with
the opponent's counts gathered into the mover's numbering once per call (so a
landing check is one list lookup), and builds `Play` objects only for the
distinct results.  Rules come from `Variant` fields (RULES.md §1, §2, §5):

- a point is closed by ``closes_at`` opposing checkers; with ``hitting`` a lone
  opposing checker is hit;
- checkers on the bar (index 25) enter first, with die ``n`` onto ``25 - n``;
- bear-off when all checkers are home (1..6), with the higher-point rule;
- ``head_rule``: one checker leaves the head (24) per turn, two on a side's
  first roll with one of ``head_exception_doubles`` when one cannot play it all;
- ``six_block_rule``: no step may complete six consecutive points along the
  opponent's path with no opposing checker ahead of them;
- forced moves: play as many dice as possible, then the most pips (so with one
  die playable out of two, the larger one; with three dice (Garanquet) the
  dice left unplayed are the smallest possible, which for every three-dice
  roll is the same as the most pips).

The short family's special rules (RULES §3, §4) go through `_special_plays`,
never through the fast generators:

- ``pinning`` (Plakoto): landing on a lone opposing checker pins it; a pinned
  checker cannot move, and its point is closed to its owner while pinned;
  pins and the mother live in ``Position.extra`` (engine/board.py);
- ``no_hit_and_hide_in_home`` (Caucasian): a checker that hit in its owner's
  home may not, that turn, land on an own checker or bear off, unless no
  other step plays that die (checked step by step);
- ``no_hit_and_run_in_home`` (Tavla): such a checker may not move again;
- ``forced_bear_off`` (Tavla): of the plays the forced-move rules allow, those
  that bear off the most checkers ("checker on 3, 5-2: bear off with the 5");
- ``optional_dice`` (Old English) and ``partial_bear_off`` (Nauka, when the
  turn starts with bear-off allowed): any non-empty part of a legal sequence
  is a legal play; the empty play only when nothing can move;
- ``max_per_point`` (Old English): no step onto a point holding that many.

Checkers are interchangeable: a step from a point is the hitter's only when
every checker of the mover on that point hit in the home this turn (else
another checker is taken to move).

`explode` is the Nuclear bomb (board change only; the game decides when).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from itertools import compress
from operator import itemgetter
from typing import Any, cast

from engine.board import BAR, OFF, POINTS, Position
from engine.errors import GameStateError, IllegalPlay
from engine.plays import Move, Play, Step
from engine.variants import Variant

__all__ = ["dice_moves", "explode", "find_play", "is_first_turn", "legal_plays"]

HOME = 6  # own points 1..6 are home in every variant (RULES §1)
_DIE_MAX = 6
_POINT_RANGE = range(1, POINTS + 1)  # with compress() over a row: occupied points
_BAR_ONLY = (BAR,)

# Steps are immutable, so each distinct one is built once and shared.
_STEPS: list[Step] = [
    Step(o, d, die, bool(hit))
    for o in range(BAR + 1)
    for d in range(BAR + 1)
    for die in range(_DIE_MAX + 1)
    for hit in (0, 1)
]


def _step(o: int, d: int, die: int, hit: int) -> Step:
    return _STEPS[((o * 26 + d) * 7 + die) * 2 + hit]


# A result: the mover's final row and the set of hit points (bit per point),
# the latter with the steps that lead there.
_Key = tuple[tuple[int, ...], int]
_Found = tuple[tuple[int, ...], int, tuple[Step, ...]]

# Exact integer encoding of a row plus hit points: 5 bits per slot (counts
# stay below 32), then one bit per hit point.
_WEIGHT = tuple(1 << (5 * q) for q in range(BAR + 1))
_HIT_WEIGHT = tuple(1 << (5 * (BAR + 1) + q) for q in range(BAR + 1))
# Per die, per origin: the on-board step (without, with a hit) and its key change.
_MOVE_STEPS: tuple[tuple[tuple[Step, ...], ...], ...] = tuple(
    tuple(
        (_step(o, o - die, die, 0), _step(o, o - die, die, 1)) if o > die else ()
        for o in range(BAR + 1)
    )
    for die in range(_DIE_MAX + 1)
)
_MOVE_DELTA = tuple(
    tuple(_WEIGHT[o - die] - _WEIGHT[o] if o > die else 0 for o in range(BAR + 1))
    for die in range(_DIE_MAX + 1)
)


def _check_plain_dataclass(cls: type, names: tuple[str, ...]) -> None:
    if tuple(f.name for f in fields(cls)) != names or hasattr(cls, "__post_init__"):
        raise RuntimeError(f"engine.movegen builds {cls.__name__} directly; update _build")


# Play and Position are frozen slotted dataclasses whose generated __init__
# only stores the fields; storing through the slot descriptors builds the
# same objects at a fraction of the cost, which matters with thousands of
# plays a second.  The check keeps that true if the classes ever change.
_check_plain_dataclass(Position, ("sides", "extra"))
_check_plain_dataclass(Play, ("steps", "position"))
_new = object.__new__
_set_sides = vars(Position)["sides"].__set__
_set_extra = vars(Position)["extra"].__set__
_set_steps = vars(Play)["steps"].__set__
_set_position = vars(Play)["position"].__set__


class _Rules:
    """Per-variant tables, computed once."""

    __slots__ = (
        "closes",
        "cross",
        "exception_dice",
        "gather",
        "head",
        "hitting",
        "mine_at",
        "ordered",
        "simple",
        "six_block",
        "special",
        "variant",
    )

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        cross = variant.geometry.cross
        self.cross = cross
        # gather[side](opponent_row)[q] = opponent's checkers on my point q (1..24);
        # slots 0 and 25 hold junk and are never read.
        self.gather: tuple[Callable[[tuple[int, ...]], Any], ...] = tuple(
            itemgetter(0, *(cross[side][q] for q in range(1, POINTS + 1)), 0) for side in (0, 1)
        )
        # mine_at[side][p] = my point number for the opponent's point p.
        mine_at: list[tuple[int, ...]] = []
        for side in (0, 1):
            inv = [0] * (POINTS + 2)
            for q in range(1, POINTS + 1):
                inv[cross[side][q]] = q
            mine_at.append(tuple(inv))
        self.mine_at = (mine_at[0], mine_at[1])
        self.hitting = variant.hitting
        self.closes = variant.closes_at
        self.head = variant.head if variant.head_rule else 0
        self.exception_dice = frozenset(variant.head_exception_doubles)
        self.six_block = variant.six_block_rule
        # Playing equal dice from the highest origin down is always at least as
        # legal as any other order, except under the six-block rule, where the
        # intermediate positions of every order matter.
        self.ordered = not variant.six_block_rule
        # Rules that need per-checker state or a choice over whole plays: the
        # short family's special variants, served by `_special_plays`.
        self.special = (
            variant.pinning
            or variant.no_hit_and_hide_in_home
            or variant.no_hit_and_run_in_home
            or variant.forced_bear_off
            or variant.optional_dice
            or variant.partial_bear_off
            or variant.max_per_point > 0
        )
        if self.special and (self.head or self.six_block):
            raise ValueError(
                f"{variant.name}: the short family's special rules exclude head and six-block rules"
            )
        # Neither head nor six-block rule nor special rules: the specialised generators apply.
        self.simple = self.ordered and not self.head and not self.special


_RULES: dict[int, _Rules] = {}


def _rules(variant: Variant) -> _Rules:
    # Keyed by identity: hashing a Variant hashes all its tables on every call.
    r = _RULES.get(id(variant))
    if r is None or r.variant is not variant:
        if len(_RULES) >= 64:  # variants built on the fly must not pile up
            _RULES.clear()
        r = _Rules(variant)
        _RULES[id(variant)] = r
    return r


def dice_moves(variant: Variant, dice: Sequence[int]) -> tuple[int, ...]:
    """The die values to play, larger first: two equal dice are played four times.

    Three dice (Garanquet, RULES §3): a pair ``p, p`` with a lower third die
    ``t`` is a doublet (``p`` four times, then ``t``); with a higher third die
    it is not (``t, p, p``); three equal dice are played six times.
    """
    if len(dice) != variant.dice or any(not 1 <= d <= _DIE_MAX for d in dice):
        raise ValueError(f"not a roll of {variant.dice} dice: {tuple(dice)!r}")
    if len(dice) == 2:
        if dice[0] == dice[1]:
            return (dice[0],) * 4
        return (dice[0], dice[1]) if dice[0] > dice[1] else (dice[1], dice[0])
    ordered = tuple(sorted(dice, reverse=True))
    if len(ordered) == 3:
        hi, mid, lo = ordered
        if hi == lo:
            return (hi,) * 6
        if hi == mid:
            return (hi, hi, hi, hi, lo)
    return ordered


def is_first_turn(variant: Variant, position: Position, side: int) -> bool:
    """A position without history is the mover's first turn when every checker
    of the mover stands on its head (long family only, RULES §5)."""
    if not variant.head_rule:
        return False
    return position.sides[side][variant.head] == variant.checkers


def _makes_block(r: _Rules, side: int, me: list[int], oppm: list[int], q: int) -> bool:
    """Whether my newly occupied point ``q`` completes six consecutive points
    along the opponent's path with no opposing checker ahead of them."""
    mine_at = r.mine_at[side]
    p = r.cross[side][q]
    lo = p
    while lo > 1 and me[mine_at[lo - 1]]:
        lo -= 1
    hi = p
    while hi < POINTS and me[mine_at[hi + 1]]:
        hi += 1
    if hi - lo < 5:
        return False
    # "Ahead" is further along the opponent's path: their points below the block.
    return not any(oppm[mine_at[a]] for a in range(1, lo))


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


def legal_plays(
    variant: Variant,
    position: Position,
    side: int,
    dice: Sequence[int],
    *,
    first_turn: bool = False,
) -> list[Play]:
    """Every legal play for ``side`` with ``dice``, one per distinct resulting
    position; ``[Play((), position)]`` when nothing can be played."""
    r = _rules(variant)
    moves = dice_moves(variant, dice)
    if r.simple:
        if len(moves) == 2:
            return _two_dice(r, side, position, moves[0], moves[1])
        elif len(moves) == 4 and moves[0] == moves[3]:
            found = _doubles_in_play(r, side, position, moves[0])
            if found is None:
                found = _doubles(r, side, position, moves[0])
            return _build(r, side, position, found.values())
    elif r.special:
        return _special_plays(r, side, position, moves)
    s = _search(r, side, position, moves, 1)
    if _second_head_checker(r, moves, first_turn, s.best_n):
        s = _search(r, side, position, moves, 2)
    return _build(r, side, position, s.results.values())


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
    return results


def _build(r: _Rules, side: int, position: Position, found: Iterable[_Found]) -> list[Play]:
    opp_row = position.sides[1 - side]
    cross = r.cross[side]
    extra = position.extra
    white = side == 0
    opponents: dict[int, tuple[int, ...]] = {}  # by hit points: plays often share them
    new, set_sides, set_extra, set_steps, set_position = (
        _new,
        _set_sides,
        _set_extra,
        _set_steps,
        _set_position,
    )
    plays: list[Play] = []
    append = plays.append
    for row, hitmask, steps in found:
        if not steps:
            return [Play((), position)]
        if hitmask:
            opp = opponents.get(hitmask)
            if opp is None:
                changed = list(opp_row)
                for s in steps:
                    if s.hit:
                        changed[cross[s.dest]] -= 1
                        changed[BAR] += 1
                opp = opponents[hitmask] = tuple(changed)
        else:
            opp = opp_row
        # inline `_play`: this loop runs for every play of every call
        pos = new(Position)
        set_sides(pos, (row, opp) if white else (opp, row))
        set_extra(pos, extra)
        play = new(Play)
        set_steps(play, steps)
        set_position(play, pos)
        append(play)
    return plays


# --- Special rules of the short family ---------------------------------------
#
# Pins (Plakoto), checkers that hit in the home (Caucasian, Tavla), a cap on
# checkers per point (Old English) and choices over whole plays (optional
# dice, forced bear-off) need state the fast generators do not keep.  These
# variants share one step-by-step search over immutable states; the classic
# games never come here.

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


# --- Checking a written play -------------------------------------------------


def _token(o: int, d: int, hit: bool = False) -> str:
    origin = "bar" if o == BAR else str(o)
    dest = "off" if d == OFF else str(d)
    return f"{origin}/{dest}{'*' if hit else ''}"


def _format_play(play: Play) -> str:
    """Steps as plain ``origin/dest`` tokens (``bar``, ``off``, ``*`` for a hit)."""
    if not play.steps:
        return "Ø"
    return " ".join(_token(s.origin, s.dest, s.hit) for s in play.steps)


def _move_text(move: Move) -> str:
    points = [move.origin, *move.via, move.dest]
    parts = []
    for i, q in enumerate(points):
        text = (
            "bar"
            if (i == 0 and q == BAR)
            else ("off" if (i == len(points) - 1 and q == OFF) else str(q))
        )
        if i and q in move.hits:
            text += "*"
        parts.append(text)
    return "/".join(parts)


def _routes(move: Move, dice: list[int]) -> list[tuple[int, ...]]:
    """Die sequences (from the multiset ``dice``) that take one checker along
    ``move``: every landing but a bear-off's last is on the board, and the
    written intermediate points are among the landings, in order."""
    found: set[tuple[int, ...]] = set()
    target = move.dest

    def extend(at: int, left: list[int], used: tuple[int, ...], landings: tuple[int, ...]) -> None:
        for i, die in enumerate(left):
            if die in left[:i]:
                continue
            nxt = at - die
            route = (*used, die)
            if target == OFF and nxt <= 0:
                if _has_subsequence(landings, move.via):
                    found.add(route)
                continue
            if nxt == target and target != OFF:
                if _has_subsequence(landings, move.via):
                    found.add(route)
                continue
            if nxt > max(target, 0):
                extend(nxt, left[:i] + left[i + 1 :], route, (*landings, nxt))

    extend(move.origin, dice, (), ())
    return sorted(found, key=lambda r: (len(r), [-d for d in r]))


def _has_subsequence(seq: tuple[int, ...], sub: tuple[int, ...]) -> bool:
    it = iter(seq)
    return all(any(x == q for x in it) for q in sub)


class _Failure:
    __slots__ = ("code", "data", "progress", "reason")

    def __init__(self, progress: int, code: str, reason: str, **data: Any) -> None:
        self.progress = progress
        self.code = code
        self.reason = reason
        self.data = data


class _Trial:
    """One assignment of dice to the written journeys, simulated step by step
    under every rule, in every order that keeps each checker's steps in turn."""

    def __init__(
        self,
        r: _Rules,
        side: int,
        position: Position,
        moves: Sequence[Move],
        routes: Sequence[tuple[int, ...]],
        head_limit: int,
    ) -> None:
        self.r = r
        self.side = side
        self.moves = moves
        self.head_limit = head_limit
        self.chains: list[list[tuple[int, int, int]]] = []
        for move, route in zip(moves, routes, strict=True):
            chain = []
            at = move.origin
            for die in route:
                chain.append((at, max(at - die, OFF), die))
                at -= die
            self.chains.append(chain)
        self.total = sum(len(c) for c in self.chains)
        self.me = list(position.sides[side])
        self.oppm = list(r.gather[side](position.sides[1 - side]))
        self.best: _Failure | None = None
        self.steps: tuple[Step, ...] | None = None

    def run(self) -> tuple[Step, ...] | None:
        self._order([0] * len(self.chains), [], 0)
        return self.steps

    def _fail(self, failure: _Failure) -> None:
        if self.best is None or failure.progress > self.best.progress:
            self.best = failure

    def _order(self, next_step: list[int], done: list[Step], heads: int) -> None:
        if self.steps is not None:
            return
        if len(done) == self.total:
            self.steps = tuple(done)
            return
        for i, chain in enumerate(self.chains):
            k = next_step[i]
            if k == len(chain):
                continue
            o, d, die = chain[k]
            failure = self._check(i, k, o, d, die, heads, len(done))
            if failure is not None:
                self._fail(failure)
                continue
            me, oppm = self.me, self.oppm
            hit = 1 if d and self.r.hitting and oppm[d] == 1 else 0
            me[o] -= 1
            me[d] += 1
            if hit:
                oppm[d] = 0
            if (
                self.r.six_block
                and d
                and me[d] == 1
                and _makes_block(self.r, self.side, me, oppm, d)
            ):
                self._fail(
                    _Failure(
                        len(done),
                        "six_block",
                        f"{_move_text(self.moves[i])}: landing on {d} makes a block of six "
                        "points with no opposing checker ahead of it",
                        move=_move_text(self.moves[i]),
                        point=d,
                    )
                )
            else:
                next_step[i] += 1
                done.append(_step(o, d, die, hit))
                self._order(next_step, done, heads + (1 if o == self.r.head else 0))
                done.pop()
                next_step[i] -= 1
            me[o] += 1
            me[d] -= 1
            if hit:
                oppm[d] = 1
            if self.steps is not None:
                return

    def _check(
        self, i: int, k: int, o: int, d: int, die: int, heads: int, progress: int
    ) -> _Failure | None:
        me, oppm, r = self.me, self.oppm, self.r
        move = _move_text(self.moves[i])
        if not me[o]:
            where = "on the bar" if o == BAR else f"on {o}"
            return _Failure(
                progress, "no_checker", f"{move}: you have no checker {where}", move=move, point=o
            )
        if me[BAR] and o != BAR:
            return _Failure(
                progress,
                "bar_first",
                f"{move}: checkers on the bar must enter before any other checker moves",
                move=move,
            )
        if o == r.head and heads >= self.head_limit:
            return _Failure(
                progress,
                "head_rule",
                f"{move}: only {'one checker' if self.head_limit == 1 else 'two checkers'} "
                f"may leave the head ({r.head}) this turn",
                move=move,
                point=o,
            )
        if d > 0:
            if oppm[d] >= r.closes:
                via = f" (on the way, with the {die})" if k + 1 < len(self.chains[i]) else ""
                return _Failure(
                    progress,
                    "point_closed",
                    f"{move}: point {d} is closed{via}: the opponent holds it",
                    move=move,
                    point=d,
                )
            return None
        outside = sum(me[HOME + 1 :])
        if outside:
            return _Failure(
                progress,
                "bear_off_not_home",
                f"{move}: bearing off needs all checkers home; {outside} still outside",
                move=move,
                outside=outside,
            )
        if o - die < 0:
            higher = [q for q in range(o + 1, HOME + 1) if me[q]]
            if higher:
                return _Failure(
                    progress,
                    "bear_off_higher_checker",
                    f"{move}: the {die} cannot bear off from {o} while a checker stands "
                    f"on {higher[-1]}",
                    move=move,
                    point=o,
                    higher=higher[-1],
                )
        return None


def _head_limit(
    r: _Rules, side: int, position: Position, moves: tuple[int, ...], first_turn: bool
) -> int:
    if not r.head:
        return POINTS  # no head rule: any number of checkers may leave point 24
    if _second_head_checker(r, moves, first_turn, _search(r, side, position, moves, 1).best_n):
        return 2
    return 1


def find_play(
    variant: Variant,
    position: Position,
    side: int,
    dice: Sequence[int],
    moves: Sequence[Move],
    *,
    first_turn: bool = False,
) -> Play:
    """The legal play written as ``moves`` (checker journeys, repeats expanded;
    empty for "no play").  Its steps are the written journeys' steps, in an
    order the rules allow; its position is the one `legal_plays` gives.

    Equivalent writings (13/5, 13/8 8/5, 13/10/5) all match.  A journey
    through a blot may hit it or pass another way: marks (``hits``) must be
    real hits and choose; unmarked, the play with fewest hits is taken.

    Raises `IllegalPlay` with the rule the written play breaks: the journeys
    are simulated step by step in every order and dice assignment, and the
    failure reported is the one reached latest; a play whose steps are all
    legal but which uses too few dice or the smaller die gets the forced-move
    code, with a legal example.
    """
    rolled = dice_moves(variant, dice)
    legal = legal_plays(variant, position, side, dice, first_turn=first_turn)
    by_position = {p.position: p for p in legal}
    data: dict[str, Any] = {"dice": tuple(dice)}
    roll = "-".join(str(d) for d in dice)
    if not moves:
        if not legal[0].steps:
            return legal[0]
        example = _format_play(legal[0])
        raise IllegalPlay(
            "must_play",
            f"{roll}: a play is possible, e.g. {example}",
            example=example,
            **data,
        )
    for move in moves:
        if not (OFF < move.origin <= BAR and OFF <= move.dest < BAR):
            raise IllegalPlay(
                "not_legal",
                f"{move.origin}/{move.dest} is not a journey on the board",
                move=f"{move.origin}/{move.dest}",
                **data,
            )
        if move.dest != OFF and move.origin <= move.dest:
            text = _move_text(move)
            raise IllegalPlay(
                "wrong_direction",
                f"{text}: checkers move from higher to lower point numbers",
                move=text,
                **data,
            )
    r = _rules(variant)
    options = [_routes(m, list(rolled)) for m in moves]
    for move, routes in zip(moves, options, strict=True):
        if not routes:
            text = _move_text(move)
            raise IllegalPlay(
                "dice_mismatch",
                f"{text} is not a move of {roll}",
                move=text,
                **data,
            )
    assignments = _assignments(options, rolled)
    if not assignments:
        raise IllegalPlay(
            "dice_mismatch",
            f"these moves use more than the dice give ({roll})",
            **data,
        )
    if r.special:
        return _find_special(r, side, position, moves, assignments, rolled, legal, roll, data)
    head_limit = _head_limit(r, side, position, rolled, first_turn)
    candidates: list[tuple[tuple[Step, ...], Play]] = []
    played: list[tuple[Step, ...]] = []
    failures: list[_Failure] = []
    for assignment in assignments:
        trial = _Trial(r, side, position, moves, assignment, head_limit)
        steps = trial.run()
        if steps is None:
            if trial.best is not None:
                failures.append(trial.best)
            continue
        result = _result(r, side, position, steps)
        match = by_position.get(result)
        if match is not None:
            candidates.append((steps, match))
        else:
            played.append(steps)
    if candidates:
        marked = {q for m in moves for q in m.hits}
        good = [c for c in candidates if marked <= {s.dest for s in c[0] if s.hit}]
        if not good:
            text = " ".join(_move_text(m) for m in moves)
            raise IllegalPlay(
                "false_hit",
                f"{text}: there is no opposing blot to hit where marked",
                points=sorted(marked),
                **data,
            )
        steps, match = min(good, key=lambda c: sum(1 for s in c[0] if s.hit))
        return Play(steps, match.position)
    if played:
        raise _forced_move_error(rolled, legal, played, roll, data)
    if failures:
        raise _worst_failure(failures, data)
    raise IllegalPlay("not_legal", f"{roll}: not a legal play", **data)


_SPECIAL_REASONS = {
    "no_checker": "{move}: you have no checker {where}",
    "bar_first": "{move}: checkers on the bar must enter before any other checker moves",
    "pinned_checker": "{move}: your checker on {point} is pinned and cannot move",
    "hit_and_run": "{move}: the checker that hit on {point} in your home may not move again "
    "this turn",
    "hit_and_hide": "{move}: the checker that hit on {point} in your home may not go on to a "
    "point of your own while the {die} can be played another way",
    "hit_and_bear_off": "{move}: the checker that hit on {point} in your home may not be borne "
    "off while the {die} can be played another way",
    "point_closed": "{move}: point {point} is closed: the opponent holds it",
    "too_many_on_point": "{move}: point {point} already holds {limit} of your checkers, the most "
    "allowed",
    "bear_off_not_home": "{move}: bearing off needs all checkers home; {point} still outside",
    "bear_off_higher_checker": "{move}: the {die} cannot bear off from {origin} while a checker "
    "stands on {point}",
}


class _SpecialTrial:
    """`_Trial` for the special rules: the written journeys simulated in every
    order on `_Turn` states."""

    def __init__(
        self, turn: _Turn, limit: int, moves: Sequence[Move], routes: Sequence[tuple[int, ...]]
    ) -> None:
        self.turn = turn
        self.limit = limit
        self.moves = moves
        self.chains: list[list[tuple[int, int]]] = []
        for move, route in zip(moves, routes, strict=True):
            chain = []
            at = move.origin
            for die in route:
                chain.append((at, die))
                at -= die
            self.chains.append(chain)
        self.total = sum(len(c) for c in self.chains)
        self.best: _Failure | None = None
        self.found: tuple[tuple[Step, ...], frozenset[int], _SState] | None = None

    def run(self) -> tuple[tuple[Step, ...], frozenset[int], _SState] | None:
        self._order(self.turn.start, [0] * len(self.chains), [], frozenset())
        return self.found

    def _order(
        self, st: _SState, next_step: list[int], done: list[Step], marks: frozenset[int]
    ) -> None:
        if len(done) == self.total:
            self.found = (tuple(done), marks, st)
            return
        for i, chain in enumerate(self.chains):
            first = next_step[i]
            if first == len(chain):
                continue
            # A later step of a journey may go first, moved by a checker that
            # already stands on its origin: the written journey names the net
            # move only, and checkers are interchangeable (with a cap per
            # point, 2/off then 3/2 is legal where 3/2/off is not).
            for k in range(first, len(chain)):
                if chain[k] == (-1, -1):
                    continue
                o, die = chain[k]
                failure = self.turn.failure(st, o, die)
                if failure is not None:
                    if k == first:
                        self._note(failure, i, k, o, die, len(done))
                    continue
                nxt, step, pin = self.turn.apply(st, o, die)
                chain[k] = (-1, -1)
                advanced = next_step[i]
                while next_step[i] < len(chain) and chain[next_step[i]] == (-1, -1):
                    next_step[i] += 1
                done.append(step)
                self._order(
                    nxt, next_step, done, marks | {step.dest} if (step.hit or pin) else marks
                )
                done.pop()
                next_step[i] = advanced
                chain[k] = (o, die)
                if self.found is not None:
                    return

    def _note(
        self, failure: tuple[str, int], i: int, k: int, o: int, die: int, progress: int
    ) -> None:
        code, point = failure
        move = _move_text(self.moves[i])
        where = "on the bar" if point == BAR else f"on {point}"
        reason = _SPECIAL_REASONS[code].format(
            move=move, point=point, die=die, origin=o, limit=self.limit, where=where
        )
        if code == "point_closed" and k + 1 < len(self.chains[i]):
            reason += f" (on the way, with the {die})"
        if self.best is None or progress > self.best.progress:
            self.best = _Failure(progress, code, reason, move=move, point=point)


def _find_special(
    r: _Rules,
    side: int,
    position: Position,
    moves: Sequence[Move],
    assignments: list[tuple[tuple[int, ...], ...]],
    rolled: tuple[int, ...],
    legal: list[Play],
    roll: str,
    data: dict[str, Any],
) -> Play:
    """`find_play` for the special rules; a pin counts as a hit for ``*`` marks."""
    turn = _Turn(r, side, position)
    by_position = {p.position: p for p in legal}
    candidates: list[tuple[tuple[Step, ...], frozenset[int], Play]] = []
    played: list[tuple[tuple[Step, ...], _SState]] = []
    failures: list[_Failure] = []
    for assignment in assignments:
        trial = _SpecialTrial(turn, r.variant.max_per_point, moves, assignment)
        found = trial.run()
        if found is None:
            if trial.best is not None:
                failures.append(trial.best)
            continue
        steps, marks, st = found
        match = by_position.get(turn.result(st))
        if match is not None:
            candidates.append((steps, marks, match))
        else:
            played.append((steps, st))
    if candidates:
        marked = {q for m in moves for q in m.hits}
        good = [c for c in candidates if marked <= c[1]]
        if not good:
            text = " ".join(_move_text(m) for m in moves)
            raise IllegalPlay(
                "false_hit",
                f"{text}: there is no opposing blot to hit where marked",
                points=sorted(marked),
                **data,
            )
        steps, _, match = min(good, key=lambda c: len(c[1]))
        return Play(steps, match.position)
    if played:
        if r.variant.forced_bear_off and legal[0].steps:
            off = legal[0].position.sides[side][OFF]
            most = max(len(p.steps) for p in legal)
            short = [p for p in played if len(p[0]) == most and p[1][0][OFF] < off]
            if short:
                example = _format_play(legal[0])
                raise IllegalPlay(
                    "must_bear_off",
                    f"{roll}: the dice can bear off {off - position.sides[side][OFF]} "
                    f"checker(s), and a die that can bear one off must: {example} is legal",
                    example=example,
                    **data,
                )
        raise _forced_move_error(rolled, legal, [p[0] for p in played], roll, data)
    if failures:
        raise _worst_failure(failures, data)
    raise IllegalPlay("not_legal", f"{roll}: not a legal play", **data)


def _worst_failure(failures: list[_Failure], data: dict[str, Any]) -> IllegalPlay:
    """The failure reached latest; closed points on other routes of the same
    journey at that stage are named with it."""
    latest = max(f.progress for f in failures)
    worst = next(f for f in failures if f.progress == latest)
    if worst.code == "point_closed":
        points = sorted(
            {
                f.data["point"]
                for f in failures
                if f.progress == latest
                and f.code == "point_closed"
                and f.data["move"] == worst.data["move"]
            }
        )
        if len(points) > 1:
            names = ", ".join(str(q) for q in points[:-1]) + f" and {points[-1]}"
            return IllegalPlay(
                "point_closed",
                f"{worst.data['move']}: points {names} are closed on every route: "
                "the opponent holds them",
                move=worst.data["move"],
                point=worst.data["point"],
                points=points,
                **data,
            )
    return IllegalPlay(worst.code, worst.reason, **worst.data, **data)


def _assignments(
    options: Sequence[Sequence[tuple[int, ...]]], rolled: tuple[int, ...]
) -> list[tuple[tuple[int, ...], ...]]:
    """One route per journey such that together they use dice of the roll."""
    out: list[tuple[tuple[int, ...], ...]] = []

    def pick(i: int, left: list[int], chosen: tuple[tuple[int, ...], ...]) -> None:
        if i == len(options):
            out.append(chosen)
            return
        for route in options[i]:
            rest = list(left)
            try:
                for die in route:
                    rest.remove(die)
            except ValueError:
                continue
            pick(i + 1, rest, (*chosen, route))

    pick(0, list(rolled), ())
    return out


def _result(r: _Rules, side: int, position: Position, steps: tuple[Step, ...]) -> Position:
    me = list(position.sides[side])
    opp = list(position.sides[1 - side])
    cross = r.cross[side]
    for s in steps:
        me[s.origin] -= 1
        me[s.dest] += 1
        if s.hit:
            opp[cross[s.dest]] -= 1
            opp[BAR] += 1
    mine, theirs = tuple(me), tuple(opp)
    return Position((mine, theirs) if side == 0 else (theirs, mine), position.extra)


def _forced_move_error(
    rolled: tuple[int, ...],
    legal: list[Play],
    played: list[tuple[Step, ...]],
    roll: str,
    data: dict[str, Any],
) -> IllegalPlay:
    """A play whose every step is legal but which the forced-move rules reject."""
    most = max(len(p.steps) for p in legal)
    used = max(len(p) for p in played)
    example = _format_play(_example(legal, played))
    if used < most:
        if len(rolled) == 2 and most == 2:
            return IllegalPlay(
                "must_play_both",
                f"both dice must be played when possible: {example} is legal",
                example=example,
                played=used,
                playable=most,
                **data,
            )
        return IllegalPlay(
            "must_play_more",
            f"{most} of the dice can be played, not just {used}: {example} is legal",
            example=example,
            played=used,
            playable=most,
            **data,
        )
    larger = max(s.die for s in legal[0].steps)
    if most == 1 and all(s.die < larger for p in played for s in p):
        return IllegalPlay(
            "must_play_larger",
            f"the {larger} must be played (only one die can be played, so the larger): "
            f"{example} is legal",
            example=example,
            die=larger,
            **data,
        )
    top = sum(s.die for s in legal[0].steps)
    if most > 1 and all(sum(s.die for s in p) < top for p in played):
        # Three dice (Garanquet): the dice left unplayed must be the smallest.
        return IllegalPlay(
            "must_play_larger",
            f"the larger dice must be played (not all {len(rolled)} can be): {example} is legal",
            example=example,
            die=larger,
            **data,
        )
    return IllegalPlay(
        "not_legal", f"{roll}: not a legal play; {example} is", example=example, **data
    )


def _example(legal: list[Play], played: list[tuple[Step, ...]]) -> Play:
    """A legal play that continues what was written, when there is one."""
    for steps in played:
        wanted = sorted((s.origin, s.dest) for s in steps)
        for play in legal:
            have = sorted((s.origin, s.dest) for s in play.steps)
            if all(have.count(w) >= wanted.count(w) for w in wanted):
                return play
    return legal[0]
