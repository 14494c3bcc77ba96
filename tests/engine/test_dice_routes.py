"""The dice routes of a written move (engine.movegen.dice_routes) and a play's
other routes (engine.movegen.play_routes), shared by the matcher, the .mat
reader and the board."""

from __future__ import annotations

from engine import movegen
from engine.records.notation import parse_moves
from engine.rules.board import OFF, WHITE
from engine.rules.plays import Move, Play
from engine.rules.variants import SHORT


def test_a_journey_is_carried_by_one_die_or_by_several_in_each_order() -> None:
    assert movegen.dice_routes(Move(13, 8), [5, 3]) == [(5,)]
    assert movegen.dice_routes(Move(13, 5), [5, 3]) == [(5, 3), (3, 5)]
    assert movegen.dice_routes(Move(24, 16), [4, 4, 4, 4]) == [(4, 4)]
    assert movegen.dice_routes(Move(13, 12), [6, 5]) == []


def test_written_landings_choose_the_order() -> None:
    assert movegen.dice_routes(Move(13, 5, via=(10,)), [5, 3]) == [(3, 5)]
    assert movegen.dice_routes(Move(13, 5, via=(9,)), [5, 3]) == []


def test_a_bear_off_may_overshoot_with_its_last_die_only() -> None:
    assert movegen.dice_routes(Move(5, OFF), [6, 2]) == [(6,), (2, 6)]
    assert movegen.dice_routes(Move(2, OFF), [6, 5]) == [(6,), (5,)]


def play_of(text: str, dice: tuple[int, int]) -> Play:
    start = SHORT.start_position()
    return movegen.find_play(SHORT, start, WHITE, dice, parse_moves(text))


def test_a_play_has_a_route_for_each_legal_order_of_a_checkers_dice() -> None:
    start = SHORT.start_position()
    play = play_of("8/4", (3, 1))
    routes = movegen.play_routes(SHORT, start, WHITE, (3, 1), play)
    assert routes[0] == play
    assert sorted(tuple(s.die for s in r.steps) for r in routes) == [(1, 3), (3, 1)]
    assert {r.position for r in routes} == {play.position}


def test_a_closed_landing_leaves_one_route() -> None:
    start = SHORT.start_position()
    play = play_of("24/13", (6, 5))  # 24/19 lands on Black's six-point
    assert movegen.play_routes(SHORT, start, WHITE, (6, 5), play) == [play]
