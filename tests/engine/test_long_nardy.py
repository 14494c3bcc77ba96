"""Long nardy (RULES.md §5): one test per clause, on hand-built positions.

Numbering: each side counts its own points; the opponent's q is my q - 12
when q > 12, else q + 12 (the opponent's head, their 24, is my 12).
"""

from __future__ import annotations

import pytest

from engine.errors import IllegalPlay
from engine.movegen import find_play, is_first_turn, legal_plays
from engine.rules.board import BLACK, OFF, WHITE, Position
from engine.rules.plays import Move, Play
from engine.rules.variants import LONG

START = LONG.start_position()


def pos(white: dict[int, int], black: dict[int, int]) -> Position:
    return Position.from_points(white, black)


def after(position: Position, side: int, journeys: list[tuple[int, int]]) -> Position:
    row = list(position.sides[side])
    for origin, dest in journeys:
        row[origin] -= 1
        row[dest] += 1
    return position.with_side(side, tuple(row))


def results(plays: list[Play]) -> set[Position]:
    return {p.position for p in plays}


def mirrored(white_side: set[Position]) -> set[Position]:
    """The same positions with the colours swapped (for black's own first turn)."""
    return {Position((p.sides[BLACK], p.sides[WHITE])) for p in white_side}


def test_no_landing_on_a_single_opposing_checker() -> None:
    # One black checker on white's 18 (black's 6) closes it: nothing is hit.
    p = pos({24: 14, 20: 1}, {6: 1, 24: 14})
    plays = legal_plays(LONG, p, WHITE, (6, 2))
    assert plays
    assert all(s.dest != 18 for play in plays for s in play.steps)
    assert all(not s.hit for play in plays for s in play.steps)
    assert all(play.position.sides[BLACK] == p.sides[BLACK] for play in plays)


def test_head_rule_one_checker_leaves_the_head_per_turn() -> None:
    p = pos({24: 14, 20: 1}, {24: 15})
    plays = legal_plays(LONG, p, WHITE, (3, 2))
    assert min(play.position.sides[WHITE][24] for play in plays) == 13
    assert after(p, WHITE, [(24, 21), (20, 18)]) in results(plays)
    assert after(p, WHITE, [(24, 21), (24, 22)]) not in results(plays)
    assert after(p, WHITE, [(24, 19)]) in results(plays)  # one head checker, both dice


def test_first_turn_non_doubles_one_head_checker() -> None:
    plays = legal_plays(LONG, START, WHITE, (6, 5), first_turn=True)
    assert results(plays) == {after(START, WHITE, [(24, 13)])}


@pytest.mark.parametrize("side", [WHITE, BLACK])
def test_first_roll_six_six_two_checkers_to_18_and_two_sixes_lost(side: int) -> None:
    plays = legal_plays(LONG, START, side, (6, 6), first_turn=True)
    assert results(plays) == {after(START, side, [(24, 18), (24, 18)])}
    assert len(plays[0].steps) == 2


@pytest.mark.parametrize("side", [WHITE, BLACK])
def test_first_roll_four_four_two_checkers_to_16(side: int) -> None:
    plays = legal_plays(LONG, START, side, (4, 4), first_turn=True)
    assert results(plays) == {after(START, side, [(24, 16), (24, 16)])}


@pytest.mark.parametrize("side", [WHITE, BLACK])
def test_first_roll_three_three_15_and_21_or_18_twice(side: int) -> None:
    plays = legal_plays(LONG, START, side, (3, 3), first_turn=True)
    assert results(plays) == {
        after(START, side, [(24, 15), (24, 21)]),
        after(START, side, [(24, 18), (24, 18)]),
    }
    assert all(len(p.steps) == 4 for p in plays)


def test_black_first_roll_after_white_has_moved() -> None:
    # White opened 6-5 (24/13: black's 1); black's first turn still gets the exception.
    p = pos({24: 14, 13: 1}, {24: 15})
    assert is_first_turn(LONG, p, BLACK)
    assert not is_first_turn(LONG, p, WHITE)
    plays = legal_plays(LONG, p, BLACK, (6, 6), first_turn=is_first_turn(LONG, p, BLACK))
    assert results(plays) == {after(p, BLACK, [(24, 18), (24, 18)])}
    assert mirrored(results(legal_plays(LONG, START, WHITE, (4, 4), first_turn=True))) == results(
        legal_plays(LONG, START, BLACK, (4, 4), first_turn=True)
    )


def test_no_exception_for_other_doubles() -> None:
    # 5-5: one checker 24/19/14/9/4 plays the whole roll: a single head checker.
    plays = legal_plays(LONG, START, WHITE, (5, 5), first_turn=True)
    assert results(plays) == {after(START, WHITE, [(24, 4)])}


def test_exception_on_the_first_turn_only() -> None:
    plays = legal_plays(LONG, START, WHITE, (6, 6), first_turn=False)
    assert results(plays) == {after(START, WHITE, [(24, 18)])}
    # A real second turn: 24/13 earlier; now 6-6 takes one head checker only.
    p = pos({24: 14, 13: 1}, {24: 14, 18: 1})
    assert not is_first_turn(LONG, p, WHITE)
    second = legal_plays(LONG, p, WHITE, (6, 6))
    assert min(play.position.sides[WHITE][24] for play in second) == 13
    assert results(second) == {after(p, WHITE, [(24, 18), (13, 1)])}


def test_second_head_checker_blocked_plays_what_the_rules_require() -> None:
    # 4-4 on the first roll with white's 16 held (black's 4): 24/20 twice, no more.
    p = pos({24: 15}, {4: 1, 24: 14})
    assert is_first_turn(LONG, p, WHITE)
    plays = legal_plays(LONG, p, WHITE, (4, 4), first_turn=True)
    assert results(plays) == {after(p, WHITE, [(24, 20), (24, 20)])}
    # 6-6 with white's 18 held: not even the first checker can move.
    shut = pos({24: 15}, {6: 1, 24: 14})
    assert legal_plays(LONG, shut, WHITE, (6, 6), first_turn=True) == [Play((), shut)]


# Six-block positions.  White 3, 2, 1, 24, 23, 22 are black's 15..10: one
# block along black's path through white's 1 into white's 24.
WRAP = {24: 10, 23: 1, 22: 1, 2: 1, 1: 1, 7: 1}


def test_block_wrapping_through_my_1_into_my_24_is_a_block() -> None:
    p = pos(WRAP, {24: 10, 20: 5})  # nothing of black's on black 1..9
    plays = legal_plays(LONG, p, WHITE, (4, 1))
    assert after(p, WHITE, [(7, 3), (24, 23)]) not in results(plays)
    # Breaking the block first (2/1) makes 7/3 fine.
    assert after(p, WHITE, [(2, 1), (7, 3)]) in results(plays)


def test_opposing_checker_ahead_allows_the_block() -> None:
    p = pos(WRAP, {24: 9, 20: 5, 5: 1})  # black's 5 (white's 17) is ahead of black's 10
    plays = legal_plays(LONG, p, WHITE, (4, 1))
    assert after(p, WHITE, [(7, 3), (24, 23)]) in results(plays)


def test_borne_off_checkers_are_not_ahead() -> None:
    p = pos(WRAP, {24: 4, 20: 1})  # ten of black's are off the board
    assert p.sides[BLACK][OFF] == 10
    plays = legal_plays(LONG, p, WHITE, (4, 1))
    assert after(p, WHITE, [(7, 3), (24, 23)]) not in results(plays)


def test_no_wrap_from_the_opponents_1_to_their_24() -> None:
    # White 14, 13 are black's 2, 1; white 12..9 are black's 24..21: the end and
    # the start of black's path, so 16/12 makes no block even with nothing ahead.
    p = pos({14: 1, 13: 1, 11: 1, 10: 1, 9: 1, 16: 1, 24: 9}, {20: 15})
    plays = legal_plays(LONG, p, WHITE, (4, 1))
    assert after(p, WHITE, [(16, 12), (24, 23)]) in results(plays)


BLOCK_IN_PASSING = ({19: 1, 18: 1, 17: 1, 16: 1, 15: 1, 22: 1, 24: 9}, {9: 1, 24: 14})


def test_block_made_in_passing_is_illegal_even_if_broken_later() -> None:
    # 22/20/19: landing on 20 makes 20..15 (black's 8..3) with nothing ahead;
    # the other route 22/21/19 is closed by black's checker on white's 21.
    p = pos(*BLOCK_IN_PASSING)
    plays = legal_plays(LONG, p, WHITE, (2, 1))
    assert after(p, WHITE, [(22, 19)]) not in results(plays)
    err = _error(p, (2, 1), [Move(22, 19)])
    assert err.code == "six_block"
    assert "block of six" in err.reason
    assert err.data["point"] == 20


def test_order_that_avoids_the_block_is_legal() -> None:
    # 22/20 then 15/14 passes through a six-block; 15/14 first never does.
    p = pos(*BLOCK_IN_PASSING)
    plays = legal_plays(LONG, p, WHITE, (2, 1))
    target = after(p, WHITE, [(15, 14), (22, 20)])
    assert target in results(plays)
    play = next(pl for pl in plays if pl.position == target)
    assert (play.steps[0].origin, play.steps[0].dest) == (15, 14)
    written = find_play(LONG, p, WHITE, (2, 1), [Move(22, 20), Move(15, 14)])
    assert [(s.origin, s.dest) for s in written.steps] == [(15, 14), (22, 20)]


def test_must_play_larger_in_long_nardy() -> None:
    # White 18, 19 and 9 held by single black checkers (black 6, 7, 21).
    p = pos({24: 14, 20: 1}, {24: 12, 6: 1, 7: 1, 21: 1})
    plays = legal_plays(LONG, p, WHITE, (6, 5))
    assert results(plays) == {after(p, WHITE, [(20, 14)])}
    err = _error(p, (6, 5), [Move(20, 15)])
    assert err.code == "must_play_larger"
    assert "the 6 must be played" in err.reason


def test_bear_off_with_the_higher_point_rule() -> None:
    p = pos({6: 1, 3: 1, 1: 13}, {1: 15})
    plays = legal_plays(LONG, p, WHITE, (6, 5))
    assert results(plays) == {
        after(p, WHITE, [(6, OFF), (3, OFF)]),
        after(p, WHITE, [(6, 1), (3, OFF)]),
    }


def test_no_bear_off_while_a_checker_is_outside_home() -> None:
    p = pos({13: 1, 3: 14}, {1: 15})
    plays = legal_plays(LONG, p, WHITE, (6, 5))
    assert plays
    assert all(s.dest != OFF for play in plays for s in play.steps)


def test_head_rule_in_find_play() -> None:
    p = pos({24: 14, 20: 1}, {24: 15})
    err = _error(p, (3, 2), [Move(24, 21), Move(24, 22)])
    assert err.code == "head_rule"
    assert "only one checker may leave the head" in err.reason
    first = find_play(LONG, START, WHITE, (6, 6), [Move(24, 18), Move(24, 18)], first_turn=True)
    assert first.position == after(START, WHITE, [(24, 18), (24, 18)])


def test_first_turn_six_six_one_checker_is_too_little() -> None:
    err = _error(START, (6, 6), [Move(24, 18)], first_turn=True)
    assert err.code == "must_play_more"
    assert "24/18 24/18 is legal" in err.reason


def test_landing_on_a_single_opposing_checker_in_find_play() -> None:
    p = pos({24: 14, 20: 1}, {6: 1, 24: 14})
    err = _error(p, (6, 2), [Move(24, 18), Move(20, 18)])
    assert err.code == "point_closed"
    assert err.data["point"] == 18


def _error(
    p: Position, dice: tuple[int, int], moves: list[Move], *, first_turn: bool = False
) -> IllegalPlay:
    with pytest.raises(IllegalPlay) as caught:
        find_play(LONG, p, WHITE, dice, moves, first_turn=first_turn)
    return caught.value
