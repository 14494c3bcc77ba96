"""Properties of `legal_plays` on random reachable positions (hypothesis).

Besides invariants (checkers conserved, pips, distinct plays, maximal dice),
every result is compared with a brute-force reference written here from the
rules text: every order of the dice, each step checked on absolute board
locations (not the engine's cross tables), no shortcuts.
"""

from __future__ import annotations

import random
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.movegen import find_play, is_first_turn, legal_plays
from engine.rules.board import BAR, OFF, POINTS, Position
from engine.rules.plays import Move, Play
from engine.rules.variants import HYPERGAMMON, LONG, NACKGAMMON, SHORT, Variant

VARIANTS = [SHORT, LONG, NACKGAMMON, HYPERGAMMON]
HOME = 6


# --- brute-force reference ----------------------------------------------------


@cache
def _loc_to_point(variant: Variant, side: int) -> dict[int, int]:
    return {loc: q + 1 for q, loc in enumerate(variant.geometry.paths[side])}


def _opp_count(variant: Variant, opp: list[int], side: int, q: int) -> int:
    """Opposing checkers on my point q, found through absolute locations."""
    loc = variant.geometry.paths[side][q - 1]
    return opp[_loc_to_point(variant, 1 - side)[loc]]


def _blocked_run(variant: Variant, me: list[int], opp: list[int], side: int) -> bool:
    """Six of my points in a row along the opponent's path (their 24 down to
    1, no wrap) with no opposing checker on a point after the run."""
    mine = {variant.geometry.paths[side][q - 1] for q in range(1, POINTS + 1) if me[q]}
    their_path = variant.geometry.paths[1 - side]  # index p-1 = their point p
    run = 0
    for p in range(POINTS, 0, -1):
        run = run + 1 if their_path[p - 1] in mine else 0
        if run >= 6 and not any(opp[a] for a in range(1, p)):
            return True
    return False


def _step(
    variant: Variant, side: int, me: list[int], opp: list[int], o: int, die: int
) -> tuple[list[int], list[int]] | None:
    """The rows after one step of ``die`` from ``o``, or None if illegal."""
    if not me[o] or (me[BAR] and o != BAR):
        return None
    d = o - die
    me2, opp2 = list(me), list(opp)
    if d >= 1:
        count = _opp_count(variant, opp, side, d)
        if count >= variant.closes_at:
            return None
        if count == 1 and variant.hitting:
            p = _loc_to_point(variant, 1 - side)[variant.geometry.paths[side][d - 1]]
            opp2[p] -= 1
            opp2[BAR] += 1
    else:
        if any(me[q] for q in range(HOME + 1, BAR + 1)):
            return None
        if d < 0 and any(me[q] for q in range(o + 1, HOME + 1)):
            return None
        d = OFF
    me2[o] -= 1
    me2[d] += 1
    blocked_now = variant.six_block_rule and _blocked_run(variant, me, opp, side)
    if variant.six_block_rule and not blocked_now and _blocked_run(variant, me2, opp2, side):
        return None
    return me2, opp2


def reference(
    variant: Variant, position: Position, side: int, dice: tuple[int, int], first_turn: bool
) -> tuple[set[Position], int]:
    """Every legal resulting position and the number of dice they use."""
    dice_list = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)

    def explore(limit: int) -> dict[Position, tuple[int, int]]:
        leaves: dict[Position, tuple[int, int]] = {}
        seen: set[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]] = set()

        def go(
            me: list[int], opp: list[int], left: list[int], heads: int, used: int, pips: int
        ) -> None:
            state = (tuple(me), tuple(opp), tuple(sorted(left)), heads)
            if state in seen:
                return
            seen.add(state)
            moved = False
            for i, die in enumerate(left):
                for o in range(BAR, 0, -1):
                    if variant.head_rule and o == variant.head and heads >= limit:
                        continue
                    nxt = _step(variant, side, me, opp, o, die)
                    if nxt is None:
                        continue
                    moved = True
                    is_head = variant.head_rule and o == variant.head
                    go(
                        nxt[0],
                        nxt[1],
                        left[:i] + left[i + 1 :],
                        heads + is_head,
                        used + 1,
                        pips + die,
                    )
            if not moved:
                rows = (tuple(me), tuple(opp))
                leaf = Position(rows if side == 0 else (rows[1], rows[0]))
                # The same position may end paths of different lengths (the last
                # checker borne off by one die, or by both): it scores its best path.
                leaves[leaf] = max(leaves.get(leaf, (used, pips)), (used, pips))

        go(list(position.sides[side]), list(position.sides[1 - side]), dice_list, 0, 0, 0)
        return leaves

    leaves = explore(1)
    best = max(leaves.values())
    if (
        first_turn
        and variant.head_rule
        and len(dice_list) == 4
        and dice[0] in variant.head_exception_doubles
        and best[0] < 4
    ):
        leaves = explore(2)
        best = max(leaves.values())
    return {p for p, score in leaves.items() if score == best}, best[0]


# --- random reachable positions -----------------------------------------------


def random_position(variant: Variant, seed: int, plies: int) -> tuple[Position, int, bool]:
    """Play ``plies`` random turns from the start; the position, the side on
    roll and whether it is that side's first turn."""
    rng = random.Random(seed)
    position, side = variant.start_position(), rng.randint(0, 1)
    first = [True, True]
    for _ in range(plies):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_plays(variant, position, side, dice, first_turn=first[side])
        first[side] = False
        position = rng.choice(plays).position
        if position.sides[side][OFF] == variant.checkers:
            position, side, first = variant.start_position(), rng.randint(0, 1), [True, True]
        else:
            side = 1 - side
    return position, side, first[side]


cases = st.tuples(
    st.sampled_from(VARIANTS),
    st.integers(0, 2**32 - 1),
    st.integers(0, 160),
    st.integers(1, 6),
    st.integers(1, 6),
)


def _pips(row: tuple[int, ...]) -> int:
    return sum(q * row[q] for q in range(1, BAR + 1))


@settings(max_examples=250, deadline=None)
@given(cases)
def test_invariants_and_reference(case: tuple[Variant, int, int, int, int]) -> None:
    variant, seed, plies, d1, d2 = case
    position, side, first = random_position(variant, seed, plies)
    dice = (d1, d2)
    plays: list[Play] = legal_plays(variant, position, side, dice, first_turn=first)
    assert plays

    # Plays are distinct positions.
    assert len({p.position for p in plays}) == len(plays)

    # Every play uses the same, maximal number of dice (checked by the reference).
    expected, most = reference(variant, position, side, dice, first)
    assert {p.position for p in plays} == expected
    assert {len(p.steps) for p in plays} == {most}

    opp = 1 - side
    cross = variant.geometry.cross[side]
    for play in plays:
        after = play.position
        # Checkers are conserved on both sides.
        assert sum(after.sides[side]) == variant.checkers
        assert sum(after.sides[opp]) == variant.checkers
        # The mover's pips fall by the distance of the steps; each step goes
        # exactly its die, except a bear-off from below the die.
        fall = sum(s.origin - s.dest for s in play.steps)
        assert _pips(position.sides[side]) - _pips(after.sides[side]) == fall
        for s in play.steps:
            assert s.origin - s.dest == s.die or (s.dest == OFF and s.origin < s.die)
        # The opponent changes only by hits: each sends one checker from my
        # landing point (their cross point) to their bar.
        gained = sum(BAR - cross[s.dest] for s in play.steps if s.hit)
        assert _pips(after.sides[opp]) - _pips(position.sides[opp]) == gained
        assert after.sides[opp][OFF] == position.sides[opp][OFF]
        if not variant.hitting:
            assert after.sides[opp] == position.sides[opp]
        # The mover stays in its own slot: only its row gains borne-off checkers.
        assert after.sides[side][OFF] >= position.sides[side][OFF]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_long_first_turns_match_the_reference(seed: int, plies: int) -> None:
    """The first turns of long nardy, where the head exception lives."""
    position, side, first = random_position(LONG, seed, plies)
    for d in (3, 4, 6):
        plays = legal_plays(LONG, position, side, (d, d), first_turn=first)
        expected, _ = reference(LONG, position, side, (d, d), first)
        assert {p.position for p in plays} == expected
    assert is_first_turn(LONG, position, side) == (position.sides[side][24] == 15)


def random_long_placement(seed: int) -> tuple[Position, int]:
    """A long-nardy position built around a near six-block: the mover holds
    five of six consecutive points along the opponent's path (the gap often
    reachable), plus random other points; the opponent's checkers stand behind
    the block and sometimes one ahead; some checkers may be off.  Positions
    with a block already standing are redrawn."""
    rng = random.Random(seed)
    geometry = LONG.geometry
    while True:
        side = rng.randint(0, 1)
        opp = 1 - side
        their_loc = geometry.paths[opp]  # index p-1: their point p
        lo = rng.randint(1, POINTS - 5)
        block = [their_loc[p - 1] for p in range(lo, lo + 6)]
        del block[rng.randrange(6)]
        free = [loc for loc in range(POINTS) if loc not in block]
        rng.shuffle(free)
        mine = block + free[: rng.randint(1, 5)]
        rest = [loc for loc in free if loc not in mine]
        behind = [loc for loc in rest if their_point(their_loc, loc) > lo + 5]
        ahead = [loc for loc in rest if their_point(their_loc, loc) < lo]
        theirs = rng.sample(behind, min(len(behind), rng.randint(1, 4)))
        if ahead and rng.random() < 0.3:
            theirs.append(rng.choice(ahead))
        if not theirs:
            continue
        rows = [[0] * (BAR + 1), [0] * (BAR + 1)]
        for who, locs in ((side, mine), (opp, theirs)):
            point_of = {loc: q + 1 for q, loc in enumerate(geometry.paths[who])}
            to_place = rng.randint(len(locs), 15)
            for i in range(to_place):
                rows[who][point_of[locs[i % len(locs)]]] += 1
            rows[who][OFF] = 15 - to_place
        if not any(_blocked_run(LONG, rows[s], rows[1 - s], s) for s in (0, 1)):
            return Position((tuple(rows[0]), tuple(rows[1]))), side


def their_point(their_loc: tuple[int, ...], loc: int) -> int:
    """The opponent's point number at absolute location ``loc``."""
    return their_loc.index(loc) + 1


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 6))
def test_long_scattered_positions_match_the_reference(seed: int, d1: int, d2: int) -> None:
    position, side = random_long_placement(seed)
    plays = legal_plays(LONG, position, side, (d1, d2))
    expected, most = reference(LONG, position, side, (d1, d2), False)
    assert {p.position for p in plays} == expected
    assert len(plays) == len(expected)
    assert {len(p.steps) for p in plays} == {most}


def _journeys(play: Play, *, marks: bool) -> list[Move]:
    """The play's steps joined into one journey per checker where a step
    continues from where the previous one of that checker landed."""
    open_ends: list[list[tuple[int, bool]]] = []  # per journey: (point, hit) visited
    for s in play.steps:
        for path in open_ends:
            if path[-1][0] == s.origin and s.origin != OFF:
                path.append((s.dest, s.hit))
                break
        else:
            open_ends.append([(s.origin, False), (s.dest, s.hit)])
    return [
        Move(
            path[0][0],
            path[-1][0],
            via=tuple(q for q, _ in path[1:-1]),
            hits=tuple(q for q, hit in path[1:] if hit) if marks else (),
        )
        for path in open_ends
    ]


@settings(max_examples=120, deadline=None)
@given(cases)
def test_find_play_accepts_every_legal_play_as_written(
    case: tuple[Variant, int, int, int, int],
) -> None:
    variant, seed, plies, d1, d2 = case
    position, side, first = random_position(variant, seed, plies)
    plays = legal_plays(variant, position, side, (d1, d2), first_turn=first)
    for play in plays[:12]:
        steps = [Move(s.origin, s.dest, hits=(s.dest,) if s.hit else ()) for s in play.steps]
        found = find_play(variant, position, side, (d1, d2), steps, first_turn=first)
        assert found.position == play.position
        joined = find_play(
            variant, position, side, (d1, d2), _journeys(play, marks=True), first_turn=first
        )
        assert joined.position == play.position
        # Unmarked, the same checkers move; hits may only be fewer.
        quiet = find_play(
            variant, position, side, (d1, d2), _journeys(play, marks=False), first_turn=first
        )
        assert quiet.position.sides[side] == play.position.sides[side]
        assert sum(s.hit for s in quiet.steps) <= sum(s.hit for s in play.steps)
