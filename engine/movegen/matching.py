"""Checking a written play: `find_play` matches checker journeys, as
written or typed, to the legal play they describe, or says which rule they
break.  `dice_routes` (the dice that can carry one written journey) and
`play_routes` (a play's other legal orders of its dice) are the routes every
reader of written moves shares: the matcher, the .mat reader, the board."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.errors import EngineError, IllegalPlay
from engine.movegen.legal import legal_plays
from engine.movegen.matching_special import _find_special
from engine.movegen.primitives import HOME, _makes_block, _Rules, _rules, _step, dice_moves
from engine.movegen.refusals import (
    _Failure,
    _forced_move_error,
    _format_play,
    _move_text,
    _worst_failure,
)
from engine.movegen.search import _search, _second_head_checker
from engine.rules.board import BAR, OFF, POINTS, Position
from engine.rules.plays import Move, Play, Step
from engine.rules.variants import Variant
from engine.soldiers import bridge


def dice_routes(move: Move, dice: Sequence[int]) -> list[tuple[int, ...]]:
    """The dice routes of a written move: the die sequences (drawn from the
    multiset ``dice``) that take one checker along ``move``, every landing but
    a bear-off's last on the board and the written intermediate points
    (``move.via``) among the landings, in order.  Sorted shortest first, then
    larger dice first.  Only distances are checked, not the position: whether
    a route is legal is `find_play`'s question."""
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

    extend(move.origin, list(dice), (), ())
    extend = None  # type: ignore[assignment]  # a closure cycle (engine/__init__.py)
    return sorted(found, key=lambda r: (len(r), [-d for d in r]))


def _has_subsequence(seq: tuple[int, ...], sub: tuple[int, ...]) -> bool:
    it = iter(seq)
    return all(any(x == q for x in it) for q in sub)


def play_routes(
    variant: Variant,
    position: Position,
    side: int,
    dice: Sequence[int],
    play: Play,
    *,
    first_turn: bool = False,
) -> list[Play]:
    """``play`` (a legal play from ``position``) and the same play by its other
    routes: a checker moved by two different dice may take them in another
    order when that way is legal too.  Each alternative is one checker's dice
    reordered (`dice_routes` of its journey), the other checkers as played;
    they follow ``play`` in ascending order of the reordered dice."""
    if variant.checker_classes:  # Soldiers: a class checker's journeys (engine.soldiers)
        return bridge.play_routes(position, side, dice, play)
    chains = _chains(play.steps)
    found = [play]
    for index, chain in enumerate(chains):
        played = tuple(s.die for s in chain)
        if len(chain) < 2 or len(set(played)) < 2:
            continue
        journey = Move(chain[0].origin, chain[-1].dest)
        orders = [r for r in dice_routes(journey, played) if len(r) == len(chain)]
        for order in sorted(orders):
            if order == played:
                continue
            moves = [_journey(c, order if i == index else None) for i, c in enumerate(chains)]
            try:
                other = find_play(variant, position, side, dice, moves, first_turn=first_turn)
            except EngineError:
                continue
            if other.position == play.position and other.steps != play.steps:
                found.append(other)
    return found


def _chains(steps: tuple[Step, ...]) -> list[list[Step]]:
    """The play's steps grouped by checker (a step continuing where one ended)."""
    chains: list[list[Step]] = []
    for step in steps:
        for chain in chains:
            if chain[-1].dest == step.origin and step.origin not in (BAR, OFF):
                chain.append(step)
                break
        else:
            chains.append([step])
    return chains


def _journey(chain: list[Step], dice: tuple[int, ...] | None = None) -> Move:
    """The chain as a Move through its landings (with ``dice`` in another order)."""
    origin = chain[0].origin
    order = dice if dice is not None else tuple(s.die for s in chain)
    landings = []
    at = origin
    for die in order[:-1]:
        at -= die
        landings.append(at)
    return Move(origin, chain[-1].dest, via=tuple(landings))


class _Trial:
    """One assignment of dice to the written journeys, simulated step by step
    under every rule, in every order that keeps each checker's steps in turn (and,
    under the six-block rule, every order of the steps: ``_candidates``)."""

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
        self.taken = [[False] * len(c) for c in self.chains]
        self.me = list(position.sides[side])
        self.oppm = list(r.gather[side](position.sides[1 - side]))
        self.best: _Failure | None = None
        self.steps: tuple[Step, ...] | None = None

    def run(self) -> tuple[Step, ...] | None:
        self._order([], 0)
        return self.steps

    def _fail(self, failure: _Failure) -> None:
        if self.best is None or failure.progress > self.best.progress:
            self.best = failure

    def _candidates(self) -> list[tuple[int, int]]:
        """The steps (journey, index) that may come next: each journey's next step,
        then, under the six-block rule, a later step of a journey taken out of turn.
        A journey written through a point where another own checker stands (19/9
        past a checker on 14) may be played by that checker first (14/9, then
        19/14): the same steps and the same position, and under the six-block rule
        ("even in passing") sometimes the only legal order, the one the legal plays
        were found in."""
        natural = []
        later = []
        for i, chain in enumerate(self.chains):
            first = True
            for k in range(len(chain)):
                if self.taken[i][k]:
                    continue
                if first:
                    natural.append((i, k))
                    first = False
                elif self.r.six_block:
                    later.append((i, k))
        return natural + later

    def _order(self, done: list[Step], heads: int) -> None:
        if self.steps is not None:
            return
        if len(done) == self.total:
            self.steps = tuple(done)
            return
        tried: set[tuple[int, int, int]] = set()
        for i, k in self._candidates():
            o, d, die = self.chains[i][k]
            if self.r.six_block:
                # Every step left may come next here, so the same step from another
                # journey leads to the same tree: try it once.
                if (o, d, die) in tried:
                    continue
                tried.add((o, d, die))
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
                self.taken[i][k] = True
                done.append(_step(o, d, die, hit))
                self._order(done, heads + (1 if o == self.r.head else 0))
                done.pop()
                self.taken[i][k] = False
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
    if variant.checker_classes:  # Soldiers: class letters and their rules (engine.soldiers)
        return bridge.find_play(position, side, dice, moves)
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
    options = [dice_routes(m, rolled) for m in moves]
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
    pick = None  # type: ignore[assignment]  # a closure cycle (engine/__init__.py)
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
