"""Soldiers plays of two different dice without the search, where that is exact.

Where

- at most one checker of the mover is on the bar (with more, each die
  enters one: `_entering`), and nothing can be borne off this turn: one is
  on the bar (it enters and stays outside the home), or two or more free
  checkers stand outside the home, or one further than the larger die from
  it (pinned checkers never block bearing off),
- it has at most one general (the retreat rule is about one checker), and
- no opposing lone guard has one of its checkers on it (every first attack
  is made this turn),

a step reads and writes only the slots of its origin and destination (the
opponent's bar only adds up, and no rule reads it).  A play is a first step
(an entry when a checker is on the bar) and a second one, and it falls in
one of two groups:

- **apart**: the second step's points are not the first's.  The second step
  is then a step of the start position (tabled once per die), played in
  either order with the same effects; and
  the board tells the two steps apart, since the mover's checkers differ
  from the start on exactly four slots (two classes moved between four
  different slots).  So these plays are made straight from the pairs, one
  per pair, larger die first, and never twice.
- **together**: the second step leaves or lands on a point of the first (a
  checker moving on, a point joined or freed, a guard's capture).  The
  mover's checkers then differ from the start on at most three slots, so
  no such board is an apart one.  Where every step of the start only
  moves a checker, hits a blot, pins one or attacks a lone guard, and every
  checker's move on with the other die only moves it or hits a blot
  (`_chains`: most positions), they too are made from the start's steps:
  the pairs that share a point (of two onto one blot the first hits or
  pins it; of two onto a lone guard the second captures) and each
  checker's two steps, kept once where a chain through a point of its
  own class meets a pair.  Elsewhere they are found by playing each first
  step of either die and listing the other die's steps at its points, and
  kept one per board (the larger die's order first).

Whole-play conditions are checked per play: a first attacker on a guard
must be followed by the capture, and the general may end further back than
it began (the bar counts as furthest back) only if one of its steps hit.

Where a bear-off may come within reach (and the other conditions hold),
`_bearing_off` plays each first step of either die and reads the whole
board afresh for the second (the search's own step lists), keeping one
play per board; and where the checker on the bar cannot enter with either
die, nothing moves.

Where no play uses both dice, the forced-move rules of §2 keep the single
steps of the larger die that may end a play, else the smaller's, else
nothing moves (`_one_die`).  None outside the positions above (several
generals, a first attacker waiting on a lone guard); `engine.soldiers.plays`
then asks the search.  Plays come out one per resulting position, each with a
legal path; which path stands for a play with two orders is the larger
die's first where both reach it.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress
from operator import itemgetter
from typing import Final

from engine.rules.board import BAR, BLACK, WHITE
from engine.soldiers.army import CHECKERS, DRUID, EVEN, GENERAL, ODD
from engine.soldiers.movegen import (
    _AT,
    _MIRRORED,
    _MOVABLE,
    ATTACK,
    CAPTURE,
    HIT,
    HOME,
    PIN,
    PLAIN,
    SoldierPlay,
    SoldierStep,
    _landing,
    _landings,
    _make,
    _movable,
    _step,
    _steps,
    attacker_waits,
    do_step,
    general_start,
    undo_step,
)
from engine.soldiers.state import LONE, LONE_GUARD, ONE, SoldiersPosition

_Row = tuple[int, ...]
# How a step changes the board, for making the rows of an apart play:
_MOVES_ONLY: Final = 0  # it moves a checker, nothing else
_HITS_BLOT: Final = 1  # and sends a blot to the bar (freeing nothing)
_OTHER: Final = 2  # captures, frees or releases a checker, or hits a blot that frees one
_ATTACKS: Final = 3  # lands first on a lone guard (it never ends a play)
_PINS: Final = 4  # a druid onto a blot, which it pins
# A tabled step: origin, class, destination, effect, its points as bits,
# its kind (above), whether it may end a play (no first attack, no retreat
# of the general without a hit), and the step object.
_Entry = tuple[int, int, int, str, int, int, bool, SoldierStep]
_KIND: Final = itemgetter(5)


def _undo(
    me: list[int],
    op: list[int],
    pm: list[int],
    po: list[int],
    o: int,
    cls: int,
    d: int,
    effect: str,
    done: tuple[int, int, int, int],
) -> None:
    """Take back a step `do_step` played (``done``: what it returned)."""
    undo_step(me, op, pm, po, o, cls, d, effect, done[1], done[2], done[3])


_POINTS: Final = list(range(24, 0, -1))
_BAR_ONLY: Final = (BAR,)


def _table(
    me: list[int],
    op: list[int],
    pm: list[int],
    po: list[int],
    die: int,
    origins: Iterable[int],
) -> list[_Entry]:
    """The steps of ``die`` from ``origins`` on the board as it stands (the
    bar among them enters; nothing is borne off this turn), tabled with each
    step's points, kind, whether it may end a play, and object; at the
    start, the mover's only general begins where its step starts (the bar
    is furthest back).  An entry depends only on its step, whether leaving
    empties a point holding a pin, and whether a hit frees a checker of
    mine: each is built once and shared (`_ENTRIES`).  The search's
    `_steps` lists the same steps, but reads the whole board for bear-offs
    and ranks each step: on the hot path of `follow` (a few origins after
    every first step) `legal_plays` measured 5-10% slower with it."""
    out: list[_Entry] = []
    movable_of = _MOVABLE[die & 1]
    entries = _ENTRIES[die]
    for o in origins:
        v = me[o]
        if not v or (o != BAR and op[o] == LONE_GUARD and v % 31 == 1):
            continue  # nothing there, or a first attacker waiting for the second
        movable = movable_of.get(v)
        if movable is None:
            movable = movable_of[v] = _movable(v, die & 1)
        # leaving the point empty frees the checker pinned under it
        releases = o != BAR and po[o] != 0 and v % 31 == 1
        d = o - die
        if d < 1:
            other = druid = None
            frees = False
        elif not op[d]:  # (the usual case, without the call)
            other = druid = PLAIN
            frees = False
        else:
            other, druid = _landings(me, op, pm, d)
            frees = pm[d] != 0  # a hit there frees my checker
        for cls in movable:
            effect = druid if cls == DRUID else other
            if effect is not None:
                key = (o, d, cls, effect, releases, frees)
                entry = entries.get(key)
                if entry is None:
                    entry = entries[key] = _entry(o, cls, d, effect, die, releases, frees)
                out.append(entry)
            if cls == GENERAL and o != BAR and o + die <= 24:
                back = o + die
                effect = _landing(me, op, pm, back, cls)
                if effect is not None:
                    key = (o, back, cls, effect, releases, pm[back] != 0)
                    entry = entries.get(key)
                    if entry is None:
                        entry = entries[key] = _entry(
                            o, cls, back, effect, die, releases, pm[back] != 0
                        )
                    out.append(entry)
    return out


# Tabled steps by die, then by (origin, destination, class, effect, whether
# leaving frees a pinned checker, whether a hit frees one of mine).
_ENTRIES: Final[tuple[dict[tuple[int, int, int, str, bool, bool], _Entry], ...]] = tuple(
    {} for _ in range(7)
)


def _entry(o: int, cls: int, d: int, effect: str, die: int, releases: bool, frees: bool) -> _Entry:
    """A step tabled: its points as bits, its kind (the board change it
    makes), whether it may end a play, and the step object."""
    if releases:
        kind = _OTHER  # leaving o empty frees the checker pinned under it
    elif effect is PLAIN:
        kind = _MOVES_ONLY
    elif effect is HIT and not frees:
        kind = _HITS_BLOT
    elif effect is ATTACK:
        kind = _ATTACKS
    elif effect is PIN:
        kind = _PINS
    else:
        kind = _OTHER
    ends = effect is not ATTACK and (cls != GENERAL or d < o or effect is HIT or effect is CAPTURE)
    return (o, cls, d, effect, 1 << o | 1 << d, kind, ends, _step(o, d, die, cls, effect))


def two_dice_plays(position: SoldiersPosition, a: int, b: int) -> list[SoldierPlay] | None:
    """The legal plays of dice ``a > b`` (see the module), or None."""
    side = position.turn
    me0 = position.free[side]
    bar = me0[BAR]
    # a slot's value mod 31 is its count; nothing may be borne off this turn
    outside = sum(me0[HOME + 1 : BAR]) % 31
    if not _exact(position):
        return None
    if bar % 31 > 1:
        return _entering(position, a, b)
    if not bar and (not outside or (outside == 1 and _comes_home(me0, a))):
        return _bearing_off(position, a, b)
    pm0 = position.pinned[side]
    their_free, their_pins = position.free[1 - side], position.pinned[1 - side]
    me, op = list(me0), list(_MIRRORED(their_free))
    pm, po = list(pm0), list(_MIRRORED(their_pins))

    # The second steps of an apart play: the start's steps without the bar's
    # checker (with one there, the first step enters it).
    if bar:
        firsts_a = _table(me, op, pm, po, a, _BAR_ONLY)
        firsts_b = _table(me, op, pm, po, b, _BAR_ONLY)
        if not firsts_a and not firsts_b:
            # the checker on the bar cannot enter, so nothing moves (§2)
            return [SoldierPlay((), position.with_turn(1 - side))]
        # a die's steps are second steps only after the other die's entry
        seconds_a = _table(me, op, pm, po, a, compress(_POINTS, me0[24:0:-1])) if firsts_b else []
        seconds_b = _table(me, op, pm, po, b, compress(_POINTS, me0[24:0:-1])) if firsts_a else []
    else:
        seconds_a = _table(me, op, pm, po, a, compress(_POINTS, me0[24:0:-1]))
        seconds_b = _table(me, op, pm, po, b, compress(_POINTS, me0[24:0:-1]))
        firsts_a, firsts_b = seconds_a, seconds_b

    plays: list[SoldierPlay] = []
    add = plays.append
    white = side == WHITE
    turn = BLACK if white else WHITE
    same_pins = (pm0, their_pins) if white else (their_pins, pm0)
    row = list(me0)
    hit_rows: dict[int, _Row] = {}  # the opponent's row by the points hit (blots only)
    new = _make  # bound once: the loops below make every play

    def apart(firsts: list[_Entry], seconds: list[_Entry], overlapping: bool) -> None:
        for first in firsts:
            o1, c1, d1, _, mask1, kind1, ends1, step1 = first
            if not ends1:
                continue  # a first attack, or a retreat without a hit: not apart
            one1 = ONE[c1]
            row[o1] -= one1
            row[d1] += one1
            for second in seconds:
                o2, c2, d2, _, mask2, kind2, ends2, step2 = second
                if mask2 & mask1:
                    if overlapping and ends2:
                        overlap(first, second)
                    continue
                if not ends2:
                    continue
                if kind1 > _HITS_BLOT or kind2 > _HITS_BLOT:
                    # a step that pins, captures, frees or releases: stepped on the slots
                    add(_play(position, me, op, pm, po, (first, second)))
                    continue
                one2 = ONE[c2]
                row[o2] -= one2
                row[d2] += one2
                mine = tuple(row)
                row[o2] += one2
                row[d2] -= one2
                if kind1 or kind2:  # blots hit: the opponent's row less them
                    hits = (kind1 << d1) | (kind2 << d2)
                    theirs = hit_rows.get(hits)
                    if theirs is None:
                        theirs = hit_rows[hits] = _less_hits(their_free, hits)
                else:
                    theirs = their_free
                free = (mine, theirs) if white else (theirs, mine)  # the opponent to move
                built = new(SoldiersPosition, (free, same_pins, turn))
                add(new(SoldierPlay, ((step1, step2), built)))
            row[o1] += one1
            row[d1] -= one1

    # Where every step only moves a checker, hits or pins a blot or attacks
    # a lone guard (and every checker's move on with the other die only
    # moves it or hits a blot), the plays whose steps share a point are
    # made straight from the start's steps too (`_chains`).
    chains = None if bar else _chains(me, op, pm, po, seconds_a, seconds_b, b, a)
    seen: set[int] = set()  # the keys of plays that more than one pair gives

    def made(
        key: int | None,
        steps: tuple[SoldierStep, SoldierStep],
        hits: int,
        pins: int = 0,
        released: int = 0,
    ) -> None:
        """A play whose rows stand in ``row`` (mine), ``hits`` (the blots
        hit, by point), ``pins`` (the blots a druid pinned) and ``released``
        (the points where my checkers holding a pin all left), unless its
        ``key`` was made before (None: no other pair or chain can make it)."""
        if key is not None:
            if key in seen:
                return
            seen.add(key)
        pinned = same_pins
        if pins or released:
            theirs, pinned = _pinned_rows(their_free, their_pins, pm0, white, hits, pins, released)
        else:
            known = hit_rows.get(hits) if hits else their_free
            if known is None:
                known = hit_rows[hits] = _less_hits(their_free, hits)
            theirs = known
        mine = tuple(row)
        free = (mine, theirs) if white else (theirs, mine)  # the opponent to move
        add(new(SoldierPlay, (steps, new(SoldiersPosition, (free, pinned, turn)))))

    def overlap(first: _Entry, second: _Entry) -> None:
        """A pair of the start's steps that share a point, the first one
        played on ``row``: two checkers from one point, two onto one point
        (the first lander hits or pins a blot there), or one leaving or
        landing on where the other landed or left."""
        o1, c1, d1, e1, _, _, _, step1 = first
        o2, c2, d2, e2, _, _, _, step2 = second
        pins = (e1 is PIN) << d1 | (e2 is PIN) << d2
        released = 0
        if o1 == o2:
            if c1 == c2 and me0[o1] >> 5 * c1 & 31 < 2:
                return  # one checker: a chain
            hits = (e1 is HIT) << d1 | (e2 is HIT) << d2
            steps = (step1, step2)
            if po[o1] and me0[o1] % 31 == 2:
                released = 1 << o1  # the two holding a pin both leave: it is free
        elif d1 == d2 and pins:
            # a druid and another checker onto one blot: the first lander
            # pins it (a druid) or hits it, and the second lands on my point
            one2 = ONE[c2]
            row[o2] -= one2
            row[d2] += one2
            if e1 is PIN and e2 is PIN:  # two druids: pinned whichever comes first
                made(None, (step1, _step(o2, d2, b, c2, PLAIN)), 0, pins)
            else:
                pinning, hitting = (first, second) if e1 is PIN else (second, first)
                o_p, c_p, _, _, _, _, _, pin_step = pinning
                o_h, c_h, _, _, _, _, _, hit_step = hitting
                die_p, die_h = (a, b) if e1 is PIN else (b, a)
                if not (c_h == GENERAL and d1 > o_h):  # (a general's step back must hit)
                    made(None, (pin_step, _step(o_h, d1, die_h, c_h, PLAIN)), 0, pins)
                made(None, (hit_step, _step(o_p, d1, die_p, c_p, PLAIN)), 1 << d1)
            row[o2] += one2
            row[d2] -= one2
            return
        elif d1 == d2:
            hits = (e1 is HIT) << d1
            if e1 is HIT:  # the first lander hits: the general if it is one of them
                if c2 == GENERAL:
                    steps = (step2, _step(o1, d1, a, c1, PLAIN))
                else:
                    steps = (step1, _step(o2, d2, b, c2, PLAIN))
            else:
                steps = (step1, step2)
        else:  # one from where the other landed, or onto where it left (own points)
            hits = (e1 is HIT) << d1 | (e2 is HIT) << d2
            steps = (step1, step2)
        one2 = ONE[c2]
        row[o2] -= one2
        row[d2] += one2
        if c1 == c2 and (o2 == d1 or d2 == o1) and not pins:  # a chain's position: kept once
            made((_AT[c1][d1] - _AT[c1][o1] + _AT[c2][d2] - _AT[c2][o2]) << 25 | hits, steps, hits)
        else:
            made(None, steps, hits, pins, released)
        row[o2] += one2
        row[d2] -= one2

    apart(firsts_a, seconds_b, chains is not None)
    if bar:
        apart(firsts_b, seconds_a, False)

    # Together: the second step leaves or lands on a point of the first.
    # Board key -> steps and rows (mine, the opponent's in its numbering,
    # the pin rows in white's-first order).
    together: dict[int, tuple[tuple[SoldierStep, SoldierStep], _Row, _Row, tuple[_Row, _Row]]] = {}
    at = _AT

    def follow(firsts: list[_Entry], die: int, second_pass: bool) -> None:
        for first in firsts:
            o1, c1, d1, e1, _, kind1, _, step1 = first
            if kind1 is _MOVES_ONLY:  # what do_step would do, without the call
                one1 = ONE[c1]
                me[o1] -= one1
                me[d1] += one1
                key1 = at[c1][d1] - at[c1][o1]
                released = 0
            else:
                done1 = do_step(me, op, pm, po, o1, c1, d1, e1)
                key1, released = done1[0], done1[1]
            # the rows other than mine when the second step only moves a checker
            rows: tuple[_Row, tuple[_Row, _Row]] | None = (
                (their_free, same_pins) if kind1 is _MOVES_ONLY else None
            )
            # From the first step's points, onto its landing from a die
            # above, or the general's backward step onto one of them.  A
            # step onto the point the first one left is the other order of
            # a chain through that point (the other pass plays it), unless
            # the first step freed a checker there; and in the second pass
            # a step from the first one's origin is the first pass's pair.
            near = [d1] if second_pass and not bar else [o1, d1]
            if d1 + die <= 24:
                near.append(d1 + die)
            if released and o1 + die <= 24:
                near.append(o1 + die)
            for q in (o1 - die, d1 - die):
                if 0 < q <= 24 and me[q] & 31:  # GENERAL is class 0
                    near.append(q)
            attacked = e1 is ATTACK
            general1 = c1 == GENERAL
            # (the only general begins where its first step of the turn starts)
            back1 = general1 and d1 > o1 and not (e1 is HIT or e1 is CAPTURE)
            for o2, c2, d2, e2, _, _, _, _ in _table(me, op, pm, po, die, near):
                if o2 != o1 and o2 != d1 and d2 != o1 and d2 != d1:
                    continue  # apart: made above
                if (attacked and (e2 is not CAPTURE or d2 != d1)) or e2 is ATTACK:
                    continue  # a first attacker left alone
                if c2 == GENERAL:
                    if d2 > (o1 if general1 else o2) and not (
                        e2 is HIT or e2 is CAPTURE or (general1 and (e1 is HIT or e1 is CAPTURE))
                    ):
                        continue  # the general behind its start without a hit
                elif back1:
                    continue
                one2 = ONE[c2]
                if e2 is PLAIN and not (po[o2] and me[o2] == one2):
                    # it only moves a checker: the key first, the rows if new
                    key = key1 + at[c2][d2] - at[c2][o2]
                    if key in together:
                        continue
                    me[o2] -= one2
                    me[d2] += one2
                    mine = tuple(me)
                    me[o2] += one2
                    me[d2] -= one2
                    if rows is None:
                        my_pins, pins = tuple(pm), _MIRRORED(po)
                        rows = (
                            _MIRRORED(op),
                            (my_pins, pins) if white else (pins, my_pins),
                        )
                    together[key] = ((step1, _step(o2, d2, die, c2, e2)), mine, *rows)
                    continue
                done2 = do_step(me, op, pm, po, o2, c2, d2, e2)
                key = key1 + done2[0]
                if key not in together:
                    my_pins, pins = tuple(pm), _MIRRORED(po)
                    together[key] = (
                        (step1, _step(o2, d2, die, c2, e2)),
                        tuple(me),
                        _MIRRORED(op),
                        (my_pins, pins) if white else (pins, my_pins),
                    )
                _undo(me, op, pm, po, o2, c2, d2, e2, done2)
            if kind1 is _MOVES_ONLY:
                me[o1] += one1
                me[d1] -= one1
            else:
                _undo(me, op, pm, po, o1, c1, d1, e1, done1)

    if chains is not None:
        # each checker's two steps: `made` written out (most plays of a
        # chain are new), kept once where a pair through a point of the
        # checker's class made the board (`overlap` keys it alike)
        for board, hits, steps, o, one, d in chains[0]:
            if board in seen:
                continue
            seen.add(board)
            row[o] -= one
            row[d] += one
            mine = tuple(row)
            row[o] += one
            row[d] -= one
            theirs = hit_rows.get(hits) if hits else their_free
            if theirs is None:
                theirs = hit_rows[hits] = _less_hits(their_free, hits)
            free = (mine, theirs) if white else (theirs, mine)  # the opponent to move
            add(new(SoldierPlay, (steps, new(SoldiersPosition, (free, same_pins, turn)))))
        for o1, c1, o2, c2, guard, steps in chains[1]:
            # two checkers onto a lone guard: no other pair or chain lands
            # both there (an attacker alone ends no play and goes no further)
            row[o1] -= ONE[c1]
            row[o2] -= ONE[c2]
            row[guard] += ONE[c1] + ONE[c2]
            made(None, steps, 1 << guard)
            row[o1] += ONE[c1]
            row[o2] += ONE[c2]
            row[guard] -= ONE[c1] + ONE[c2]
    else:
        follow(firsts_a, b, False)
        follow(firsts_b, a, True)
    for steps, mine, theirs, pinned in together.values():
        free = (mine, theirs) if white else (theirs, mine)  # the opponent to move
        pinned = same_pins if pinned == same_pins else pinned
        add(new(SoldierPlay, (steps, new(SoldiersPosition, (free, pinned, turn)))))
    if not plays:  # no play uses both dice: the forced-move rules choose
        return _one_die(position, me, op, pm, po, (firsts_a, firsts_b))
    return plays


# A checker using both dice: its board's key among the plays made from the
# start's steps (its change to my part of the board key, shifted past the
# blots it hits, as `overlap` keys a pair), the blots it hits (bit by
# point), its two steps, its origin, its class's unit and its end.
_Chain = tuple[int, int, tuple[SoldierStep, SoldierStep], int, int, int]
# Two checkers onto a lone guard: the attacker's origin and class, the
# capturer's, the guard's point, and the two steps.
_Capture = tuple[int, int, int, int, int, tuple[SoldierStep, SoldierStep]]


def _chains(
    me: list[int],
    op: list[int],
    pm: list[int],
    po: list[int],
    steps_a: list[_Entry],
    steps_b: list[_Entry],
    b: int,
    a: int,
) -> tuple[list[_Chain], list[_Capture]] | None:
    """Each checker's step of one die followed by its step of the other
    (``steps_a``: the start's steps of die ``a``; the general walks both
    ways), and the captures of a lone guard by a step of each die, where
    that is all that is left to make: every step of the start only moves
    a checker, hits a blot, pins one (a druid) or attacks a lone guard (no
    checker freed, and no pin released by the last checker holding it),
    and every such second step only moves a checker or hits a blot.  Then
    a step does the same whichever comes first, bar these: of two onto one
    blot the first hits (or, a druid, pins) it; of two onto a lone guard
    the first attacks and the second captures (a first attacker moves no
    further, and alone ends no play); and a pin ends when the last checker
    holding it leaves, whether that is a druid that pinned and moves on or
    the second of two holding one.  None where that does not hold, or
    where a capture would free a checker of mine pinned under the guard."""
    if _OTHER in map(_KIND, steps_a) or _OTHER in map(_KIND, steps_b):
        return None
    out: list[_Chain] = []
    known = _CHAINS
    attacks: dict[int, list[_Entry]] = {}  # die a's attacks, by the guard's point
    captures: list[_Capture] = []
    for steps, die in ((steps_a, b), (steps_b, a)):
        odd = die & 1
        for entry in steps:
            o, cls, d1, e1, _, _, _, step1 = entry
            if e1 is ATTACK:
                if pm[d1]:
                    return None  # the capture would free my checker pinned there
                if die == b:  # a step of die a
                    attacks.setdefault(d1, []).append(entry)
                else:  # a step of die b onto a guard a step of die a reaches
                    for o1, c1, _, _, _, _, _, attack in attacks.get(d1, ()):
                        if c1 == GENERAL and d1 > o1:
                            # the general's step back hits only as the capture
                            pair = (step1, _step(o1, d1, a, c1, CAPTURE))
                        else:  # the larger die's attack first
                            pair = (attack, _step(o, d1, b, cls, CAPTURE))
                        captures.append((o1, c1, o, cls, d1, pair))
                continue  # a first attacker moves no further
            if cls == GENERAL:
                ends: tuple[int, ...] = (d1 - die, d1 + die)
            elif (cls == EVEN and odd) or (cls == ODD and not odd):
                continue
            else:
                ends = (d1 - die,)
            for d in ends:
                if not 0 < d <= 24:
                    continue  # nothing is borne off in these positions
                effect = _landing(me, op, pm, d, cls) if op[d] else PLAIN
                if effect is None or effect is ATTACK:
                    continue  # closed, or an attacker left alone
                if effect is not PLAIN and (effect is not HIT or pm[d]):
                    return None
                key = (o, d1, cls, e1, d, effect)
                chain = known.get(key)
                if chain is None:
                    chain = known[key] = _chain(o, cls, d1, e1, step1, d, die, effect)
                if chain:
                    out.append(chain)
    return out, captures


# The chains made so far, by the two steps (origin, middle, class, first
# effect, end, second effect); () where the general would end behind its
# start without a hit.
_CHAINS: Final[dict[tuple[int, int, int, str, int, str], _Chain | tuple[()]]] = {}


def _chain(
    o: int, cls: int, d1: int, e1: str, step1: SoldierStep, d: int, die: int, effect: str
) -> _Chain | tuple[()]:
    """A checker's two steps (see `_chains`), or () where it is a general
    that ends behind its start without a hit."""
    hits = (e1 is HIT) << d1 | (effect is HIT) << d
    if cls == GENERAL and d > o and not hits:
        return ()  # the general behind its start without a hit
    board = (_AT[cls][d] - _AT[cls][o]) << 25 | hits
    return (board, hits, (step1, _step(d1, d, die, cls, effect)), o, ONE[cls], d)


def _less_hits(their_free: _Row, hits: int) -> _Row:
    """The opponent's free row (its numbering) with the blots on my points
    ``hits`` on its bar."""
    changed = list(their_free)
    for q in range(1, BAR):
        if hits >> q & 1:
            changed[BAR] += changed[25 - q]
            changed[25 - q] = 0
    return tuple(changed)


def _pinned_rows(
    their_free: _Row,
    their_pins: _Row,
    my_pins: _Row,
    white: bool,
    hits: int,
    pins: int,
    released: int,
) -> tuple[_Row, tuple[_Row, _Row]]:
    """The opponent's free row (its numbering) with the blots on my points
    ``hits`` on its bar, those on ``pins`` pinned by a druid of mine and
    its checkers pinned on ``released`` free again, and both sides' pin
    rows (white's first)."""
    free, pinned = list(their_free), list(their_pins)
    for q in range(1, BAR):
        if released >> q & 1:
            free[25 - q] += ONE[pinned[25 - q] - 1]
            pinned[25 - q] = 0
        elif hits >> q & 1:
            free[BAR] += free[25 - q]
            free[25 - q] = 0
        elif pins >> q & 1:
            pinned[25 - q] = LONE[free[25 - q]] + 1  # the blot's class, + 1
            free[25 - q] = 0
    held = tuple(pinned)
    return tuple(free), ((my_pins, held) if white else (held, my_pins))


def _entering(position: SoldiersPosition, a: int, b: int) -> list[SoldierPlay]:
    """The legal plays of dice ``a > b`` with two or more of the mover's
    checkers on the bar: each die enters one (nothing else may move while
    one waits), on two different points, so the two entries are the
    start's; where no two may, one entry of the larger die, else of the
    smaller, else nothing moves."""
    side = position.turn
    me = list(position.free[side])
    op = list(_MIRRORED(position.free[1 - side]))
    pm = list(position.pinned[side])
    po = list(_MIRRORED(position.pinned[1 - side]))
    entries_a = _table(me, op, pm, po, a, _BAR_ONLY)
    entries_b = _table(me, op, pm, po, b, _BAR_ONLY)
    plays = [
        _play(position, me, op, pm, po, (first, second))
        for first in entries_a
        if first[6]  # not a first attack: nothing else can land there
        for second in entries_b
        if second[6] and (first[1] != second[1] or me[BAR] >> 5 * first[1] & 31 > 1)
    ]
    return plays or _one_die(position, me, op, pm, po, (entries_a, entries_b))


def _one_die(
    position: SoldiersPosition,
    me: list[int],
    op: list[int],
    pm: list[int],
    po: list[int],
    steps_by_die: tuple[list[_Entry], list[_Entry]],
) -> list[SoldierPlay]:
    """Where no play uses both dice (§2's forced moves): each step of the
    larger die that may end a play alone, else each of the smaller's, else
    nothing moves.  ``steps_by_die``: the start's steps of each die (the
    entries, with a checker on the bar)."""
    for steps in steps_by_die:
        plays = [_play(position, me, op, pm, po, (step,)) for step in steps if step[6]]
        if plays:
            return plays
    return [SoldierPlay((), position.with_turn(1 - position.turn))]


def _play(
    position: SoldiersPosition,
    me: list[int],
    op: list[int],
    pm: list[int],
    po: list[int],
    steps: tuple[_Entry] | tuple[_Entry, _Entry],
) -> SoldierPlay:
    """The play of tabled ``steps`` (one or two), stepped on the slots and
    taken back."""
    first = steps[0]
    second = steps[1] if len(steps) == 2 else None
    done1 = do_step(me, op, pm, po, *first[:4])
    if second is not None:
        done2 = do_step(me, op, pm, po, *second[:4])
    mine, theirs = tuple(me), _MIRRORED(op)
    my_pins, pins = tuple(pm), _MIRRORED(po)
    if second is not None:
        _undo(me, op, pm, po, *second[:4], done2)
    _undo(me, op, pm, po, *first[:4], done1)
    if position.turn == WHITE:  # the opponent to move
        built = _make(SoldiersPosition, ((mine, theirs), (my_pins, pins), BLACK))
    else:
        built = _make(SoldiersPosition, ((theirs, mine), (pins, my_pins), WHITE))
    return _make(SoldierPlay, ((first[7],) if second is None else (first[7], second[7]), built))


def _comes_home(me: _Row, die: int) -> bool:
    """Whether the mover's only free checker outside its home comes home
    with ``die`` (the other die could then bear off)."""
    return any(me[HOME + 1 : HOME + 1 + die])


def _exact(position: SoldiersPosition) -> bool:
    """Whether the module's conditions on the position hold: the mover has
    at most one general, and no opposing lone guard has one of its
    checkers on it."""
    side = position.turn
    me0 = position.free[side]
    # GENERAL is class 0: a slot's low five bits count its generals
    if ((sum(me0) - me0[0]) & 31) + position.pinned[side].count(GENERAL + 1) > 1:
        return False
    theirs = position.free[1 - side]
    # (most positions have no lone guard: no need to turn the row)
    return LONE_GUARD not in theirs or not attacker_waits(me0, _MIRRORED(theirs))


def _bearing_off(position: SoldiersPosition, a: int, b: int) -> list[SoldierPlay] | None:
    """The legal plays of dice ``a > b`` where a bear-off may come within
    reach this turn: each first step of either die (the search's own list,
    with its bear-off rules), then each step of the other die on the board
    it leaves, kept one per board (the larger die's order first).  The whole
    board is read afresh after the first step, since a bear-off depends on
    every checker.  Bearing off the side's last checker is a whole play.
    None where no play uses both dice."""
    general = general_start(position.free[position.turn], position.pinned[position.turn])
    side = position.turn
    me0 = position.free[side]
    pm0 = position.pinned[side]
    their_free, their_pins = position.free[1 - side], position.pinned[1 - side]
    me, op = list(me0), list(_MIRRORED(their_free))
    pm, po = list(pm0), list(_MIRRORED(their_pins))
    found: dict[int, tuple[tuple[SoldierStep, ...], _Row, _Row, _Row, _Row]] = {}

    def valid(steps: tuple[tuple[int, int, int, str], ...]) -> bool:
        """No first attacker left alone; the general not behind its start
        unless one of its steps hit."""
        if attacker_waits(me, op):
            return False
        now = general
        hit = False
        for o, cls, d, effect in steps:
            if cls == GENERAL and o == now:
                now = d
                hit = hit or effect is HIT or effect is CAPTURE
        return now <= general or hit

    def keep(key: int, steps: tuple[SoldierStep, ...]) -> None:
        if key not in found:
            found[key] = (steps, tuple(me), _MIRRORED(op), tuple(pm), _MIRRORED(po))

    for first_die, second_die in ((a, b), (b, a)):
        for o1, c1, d1, e1, _ in _steps(me, op, pm, first_die):
            done1 = do_step(me, op, pm, po, o1, c1, d1, e1)
            step1 = _step(o1, d1, first_die, c1, e1)
            if me[0] % 31 == CHECKERS:  # the last checker off: every die is used
                if valid(((o1, c1, d1, e1),)):
                    keep(done1[0], (step1,))
            else:
                # After the first step: whether a first attacker waits (a
                # second step that only moves a checker neither captures nor
                # moves it), where the general stands and whether it hit,
                # and the rows other than mine (built once, if needed).
                waits = attacker_waits(me, op)
                now1 = d1 if c1 == GENERAL and o1 == general else general
                hit1 = c1 == GENERAL and (e1 is HIT or e1 is CAPTURE)
                rows: tuple[_Row, _Row, _Row] | None = None
                for o2, c2, d2, e2, _ in _steps(me, op, pm, second_die):
                    one2 = ONE[c2]
                    if e2 is PLAIN and not (o2 != BAR and po[o2] and me[o2] == one2):
                        # it only moves (or bears off) a checker: the key
                        # first, the rows only for a new board
                        key = done1[0] + _AT[c2][d2] - _AT[c2][o2]
                        if key in found or waits:
                            continue
                        if (d2 if c2 == GENERAL and o2 == now1 else now1) > general and not hit1:
                            continue  # the general behind its start without a hit
                        me[o2] -= one2
                        me[d2] += one2
                        if rows is None:
                            rows = (_MIRRORED(op), tuple(pm), _MIRRORED(po))
                        found[key] = (
                            (step1, _step(o2, d2, second_die, c2, e2)),
                            tuple(me),
                            *rows,
                        )
                        me[o2] += one2
                        me[d2] -= one2
                        continue
                    done2 = do_step(me, op, pm, po, o2, c2, d2, e2)
                    if valid(((o1, c1, d1, e1), (o2, c2, d2, e2))):
                        keep(done1[0] + done2[0], (step1, _step(o2, d2, second_die, c2, e2)))
                    _undo(me, op, pm, po, o2, c2, d2, e2, done2)
            _undo(me, op, pm, po, o1, c1, d1, e1, done1)
    # No play uses both dice: the forced-move rules (§2) keep the plays of
    # one die, the larger if it can be played; if neither, nothing moves.
    for die in (a, b) if not found else ():
        for o1, c1, d1, e1, _ in _steps(me, op, pm, die):
            done1 = do_step(me, op, pm, po, o1, c1, d1, e1)
            if valid(((o1, c1, d1, e1),)):
                keep(done1[0], (_step(o1, d1, die, c1, e1),))
            _undo(me, op, pm, po, o1, c1, d1, e1, done1)
        if found:
            break
    if not found:
        return [SoldierPlay((), position.with_turn(1 - side))]
    white = side == WHITE
    same_pins = (pm0, their_pins) if white else (their_pins, pm0)
    plays: list[SoldierPlay] = []
    for steps, mine, theirs, my_pins, pins in found.values():
        free = (mine, theirs) if white else (theirs, mine)  # the opponent to move
        if my_pins == pm0 and pins == their_pins:
            pinned = same_pins
        else:
            pinned = (my_pins, pins) if white else (pins, my_pins)
        built = _make(SoldiersPosition, (free, pinned, BLACK if white else WHITE))
        plays.append(_make(SoldierPlay, (steps, built)))
    return plays
