"""Matching a written play under the short family's special rules: the
written journeys simulated on `special._Turn` states."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.errors import IllegalPlay
from engine.movegen.primitives import _Rules
from engine.movegen.refusals import (
    _Failure,
    _forced_move_error,
    _format_play,
    _move_text,
    _worst_failure,
)
from engine.movegen.special import _SState, _Turn
from engine.rules.board import BAR, OFF, Position
from engine.rules.plays import Move, Play, Step

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
