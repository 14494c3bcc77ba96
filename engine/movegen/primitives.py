"""Shared primitives of play generation: the step table, the exact
encoding of a result, fast `Play` construction, the per-variant rule tables,
and the small rules every generator and the matcher read."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from operator import itemgetter
from typing import Any

from engine.rules.board import BAR, POINTS, Position
from engine.rules.plays import Play, Step
from engine.rules.variants import Variant

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
        # (Never for checker classes: their plays come from engine.soldiers, so the
        # shortcuts that read plain counts, `reaching`'s, must not answer for them.)
        self.simple = (
            self.ordered and not self.head and not self.special and not variant.checker_classes
        )


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
    if len(dice) == 2 == variant.dice:  # the common roll, checked without a generator
        first, second = dice
        if 1 <= first <= _DIE_MAX and 1 <= second <= _DIE_MAX:
            if first == second:
                return (first,) * 4
            return (first, second) if first > second else (second, first)
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
