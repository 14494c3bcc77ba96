"""Legal plays and play checking in the short family (RULES.md §2, §3)."""

from __future__ import annotations

import pytest

from engine.errors import IllegalPlay
from engine.movegen import dice_moves, find_play, legal_plays
from engine.rules.board import BAR, BLACK, OFF, WHITE, Position
from engine.rules.plays import Move, Play
from engine.rules.variants import HYPERGAMMON, NACKGAMMON, SHORT, Variant

START = SHORT.start_position()


def after(
    position: Position, side: int, journeys: list[tuple[int, int]], variant: Variant = SHORT
) -> Position:
    """The position after moving one checker per journey; a lone opposing
    checker on the destination is hit (the tests' own, independent arithmetic)."""
    me = list(position.sides[side])
    opp = list(position.sides[1 - side])
    for origin, dest in journeys:
        me[origin] -= 1
        me[dest] += 1
        if dest != OFF:
            theirs = variant.geometry.cross[side][dest]
            if opp[theirs] == 1:
                opp[theirs] = 0
                opp[BAR] += 1
    rows = (tuple(me), tuple(opp))
    return Position(rows if side == WHITE else (rows[1], rows[0]))


def results(plays: list[Play]) -> set[Position]:
    return {p.position for p in plays}


def journeys(*pairs: tuple[int, int]) -> list[Move]:
    return [Move(o, d) for o, d in pairs]


def error_of(fn: object, *args: object, **kwargs: object) -> IllegalPlay:
    with pytest.raises(IllegalPlay) as caught:
        fn(*args, **kwargs)  # type: ignore[operator]
    return caught.value


# --- legal_plays --------------------------------------------------------------


def test_opening_three_one_makes_the_five_point_among_sixteen_plays() -> None:
    plays = legal_plays(SHORT, START, WHITE, (3, 1))
    assert len(plays) == 16
    assert after(START, WHITE, [(8, 5), (6, 5)]) in results(plays)
    assert len(results(plays)) == len(plays)


def test_each_step_carries_its_die_and_plays_keep_the_mover_in_its_slot() -> None:
    plays = legal_plays(SHORT, START, BLACK, (6, 5))
    run = after(START, BLACK, [(24, 13)])
    assert run in results(plays)
    play = next(p for p in plays if p.position == run)
    assert sorted(s.die for s in play.steps) == [5, 6]
    assert play.position.sides[WHITE] == START.sides[WHITE]


def test_doubles_are_played_four_times() -> None:
    assert dice_moves(SHORT, (4, 4)) == (4, 4, 4, 4)
    plays = legal_plays(SHORT, START, WHITE, (4, 4))
    assert all(len(p.steps) == 4 for p in plays)
    assert after(START, WHITE, [(24, 20), (24, 20), (13, 9), (13, 9)]) in results(plays)


def test_a_point_held_by_two_is_closed_and_a_blot_is_hit() -> None:
    # Black holds white's 3 (black 22) with two and has a blot on white's 5 (black 20).
    pos = Position.from_points({8: 1, 6: 1}, {22: 2, 20: 1})
    plays = legal_plays(SHORT, pos, WHITE, (5, 3))
    assert after(pos, WHITE, [(8, 3)]) not in results(plays)
    assert all(s.dest != 3 for p in plays for s in p.steps)
    hit = next(p for p in plays if any(s.origin == 8 and s.dest == 5 for s in p.steps))
    step = next(s for s in hit.steps if s.dest == 5)
    assert step.hit
    assert hit.position.sides[BLACK][BAR] == 1
    assert hit.position.sides[BLACK][20] == 0


def test_combined_move_needs_an_open_intermediate_point() -> None:
    # 13/5 with 5-3 passes 8 or 10; both held by black.
    pos = Position.from_points({13: 1, 6: 14}, {17: 2, 15: 2})  # white 8, 10
    plays = legal_plays(SHORT, pos, WHITE, (5, 3))
    assert after(pos, WHITE, [(13, 5)]) not in results(plays)
    # With one of them open the combined move is there.
    opened = Position.from_points({13: 1, 6: 14}, {17: 2})
    assert after(opened, WHITE, [(13, 5)]) in results(legal_plays(SHORT, opened, WHITE, (5, 3)))


def test_hit_in_passing_and_not_are_two_plays() -> None:
    # Black blot on white's 10 (black 15): 13/10*/5 and 13/8/5 differ.
    pos = Position.from_points({13: 1, 6: 14}, {15: 1, 1: 14})
    plays = legal_plays(SHORT, pos, WHITE, (5, 3))
    ends = [
        p for p in plays if p.position.sides[WHITE][5] == 1 and p.position.sides[WHITE][13] == 0
    ]
    assert len(ends) == 2
    assert {p.position.sides[BLACK][BAR] for p in ends} == {0, 1}


def test_bar_checker_enters_on_25_minus_die_before_anything_else() -> None:
    pos = Position.from_points({BAR: 1, 13: 14}, {1: 15})
    plays = legal_plays(SHORT, pos, WHITE, (6, 4))
    assert all(p.steps[0].origin == BAR for p in plays)
    assert {p.steps[0].dest for p in plays} == {19, 21}
    assert after(pos, WHITE, [(BAR, 19), (13, 9)]) in results(plays)
    assert after(pos, WHITE, [(BAR, 15)]) in results(plays)  # bar/19/15 or bar/21/15


def test_partial_entry_forfeits_the_rest() -> None:
    # Two on the bar, white's 19 (black 6) closed: only the 4 enters.
    pos = Position.from_points({BAR: 2, 13: 13}, {6: 2, 1: 13})
    plays = legal_plays(SHORT, pos, WHITE, (6, 4))
    assert results(plays) == {after(pos, WHITE, [(BAR, 21)])}
    assert len(plays[0].steps) == 1


def test_dance_when_every_entry_point_is_closed() -> None:
    pos = Position.from_points({BAR: 1, 13: 14}, {6: 2, 4: 2, 1: 11})  # white 19, 21
    plays = legal_plays(SHORT, pos, WHITE, (6, 4))
    assert plays == [Play((), pos)]


def test_bear_off_needs_all_checkers_home() -> None:
    pos = Position.from_points({7: 1, 4: 1, 3: 13}, {1: 15})
    plays = legal_plays(SHORT, pos, WHITE, (6, 4))
    # The 6 first brings 7 home, then the 4 may bear off from 4.
    assert after(pos, WHITE, [(7, 1), (4, OFF)]) in results(plays)
    # But the 4 cannot bear off while 7 is still out.
    assert all(
        not (p.steps[0].dest == OFF and p.steps[0].die == 4 and p.steps[0].origin == 4)
        for p in plays
    )


def test_bear_off_exact_and_from_the_highest_point_below() -> None:
    pos = Position.from_points({4: 1, 3: 1}, {1: 15})
    plays = legal_plays(SHORT, pos, WHITE, (6, 5))
    assert results(plays) == {after(pos, WHITE, [(4, OFF), (3, OFF)])}


def test_higher_point_rule_blocks_bearing_off_a_lower_checker() -> None:
    # 6-5 with checkers on 6 and 2: the 5 cannot bear off from 2 while 6 stands.
    pos = Position.from_points({6: 1, 2: 1}, {1: 15})
    plays = legal_plays(SHORT, pos, WHITE, (6, 5))
    assert results(plays) == {
        after(pos, WHITE, [(6, OFF), (2, OFF)]),  # 6 off, then the 5 from 2
        after(pos, WHITE, [(6, 1), (2, OFF)]),  # 6/1 with the 5, then the 6 from 2
    }


def test_must_play_larger_when_only_one_die_can_be_played() -> None:
    # One checker on 13; white 2 (black 23) closed, so 13/7/2 and 13/8/2 fail.
    pos = Position.from_points({13: 1}, {23: 2, 1: 13})
    plays = legal_plays(SHORT, pos, WHITE, (6, 5))
    assert results(plays) == {after(pos, WHITE, [(13, 7)])}
    assert [s.die for s in plays[0].steps] == [6]


def test_smaller_die_when_the_larger_cannot_be_played() -> None:
    pos = Position.from_points({13: 1}, {18: 2, 23: 2, 1: 11})  # white 7 and 2 closed
    plays = legal_plays(SHORT, pos, WHITE, (6, 5))
    assert results(plays) == {after(pos, WHITE, [(13, 8)])}


def test_must_play_both_dice_when_one_order_allows_it() -> None:
    # 13/7 is closed (white 7 = black 18), so the 2 goes first: 13/11/5.
    pos = Position.from_points({13: 1}, {18: 2, 1: 13})
    plays = legal_plays(SHORT, pos, WHITE, (6, 2))
    assert results(plays) == {after(pos, WHITE, [(13, 5)])}
    assert [(s.origin, s.dest) for s in plays[0].steps] == [(13, 11), (11, 5)]


def test_doubles_as_many_as_possible() -> None:
    # 13/7 then 7/1 is closed (white 1 = black 24).
    pos = Position.from_points({13: 1}, {24: 2, 12: 13})
    plays = legal_plays(SHORT, pos, WHITE, (6, 6))
    assert results(plays) == {after(pos, WHITE, [(13, 7)])}
    assert len(plays[0].steps) == 1


def test_no_play_at_all_gives_the_empty_play() -> None:
    pos = Position.from_points({13: 1}, {18: 2, 24: 2, 12: 11})  # white 7 and 1 closed
    assert legal_plays(SHORT, pos, WHITE, (6, 6)) == [Play((), pos)]


def test_nackgammon_and_hypergammon_use_their_own_starts() -> None:
    nack = legal_plays(NACKGAMMON, NACKGAMMON.start_position(), WHITE, (6, 5))
    assert after(NACKGAMMON.start_position(), WHITE, [(24, 13)]) in results(nack)
    hyper = HYPERGAMMON.start_position()
    plays = legal_plays(HYPERGAMMON, hyper, WHITE, (1, 1))
    assert all(sum(p.position.sides[WHITE]) == 3 for p in plays)
    assert after(hyper, WHITE, [(24, 23), (23, 22), (22, 21), (21, 20)], HYPERGAMMON) in results(
        plays
    )


def test_black_numbers_its_own_points() -> None:
    # Black's 8/5 6/5 with 3-1 lands on white's 20.
    plays = legal_plays(SHORT, START, BLACK, (3, 1))
    made = after(START, BLACK, [(8, 5), (6, 5)])
    assert made in results(plays)
    assert made.sides[BLACK][5] == 2


# --- find_play ----------------------------------------------------------------


@pytest.mark.parametrize(
    "written",
    [
        [Move(13, 5)],
        [Move(13, 8), Move(8, 5)],
        [Move(13, 10), Move(10, 5)],
        [Move(13, 5, via=(8,))],
    ],
)
def test_find_play_accepts_equivalent_notations(written: list[Move]) -> None:
    play = find_play(SHORT, START, WHITE, (5, 3), written)
    assert play.position == after(START, WHITE, [(13, 5)])
    assert sorted(s.die for s in play.steps) == [3, 5]


def test_find_play_keeps_the_written_route() -> None:
    play = find_play(SHORT, START, WHITE, (5, 3), [Move(13, 5, via=(10,))])
    assert [(s.origin, s.dest) for s in play.steps] == [(13, 10), (10, 5)]


def test_find_play_repeated_journeys_for_doubles() -> None:
    play = find_play(SHORT, START, WHITE, (3, 3), [Move(8, 5), Move(8, 5), Move(6, 3), Move(6, 3)])
    assert play.position == after(START, WHITE, [(8, 5), (8, 5), (6, 3), (6, 3)])


def test_find_play_unmarked_journey_prefers_no_hit_marked_one_hits() -> None:
    pos = Position.from_points({13: 1, 6: 14}, {15: 1, 1: 14})  # black blot on white's 10
    quiet = find_play(SHORT, pos, WHITE, (5, 3), [Move(13, 5)])
    assert quiet.position.sides[BLACK][BAR] == 0
    assert not any(s.hit for s in quiet.steps)
    loud = find_play(SHORT, pos, WHITE, (5, 3), [Move(13, 5, via=(10,), hits=(10,))])
    assert loud.position.sides[BLACK][BAR] == 1
    assert [s.hit for s in loud.steps] == [True, False]


def test_find_play_unmarked_hit_on_the_destination_still_hits() -> None:
    pos = Position.from_points({8: 1, 6: 14}, {20: 1, 1: 14})  # black blot on white's 5
    play = find_play(SHORT, pos, WHITE, (3, 1), [Move(8, 5), Move(6, 5)])
    assert play.position.sides[BLACK][BAR] == 1


def test_find_play_empty_only_when_nothing_can_be_played() -> None:
    closed = Position.from_points({BAR: 1, 13: 14}, {6: 2, 4: 2, 1: 11})
    assert find_play(SHORT, closed, WHITE, (6, 4), []).steps == ()
    err = error_of(find_play, SHORT, START, WHITE, (6, 4), [])
    assert err.code == "must_play"
    assert "a play is possible" in err.reason


def test_dice_mismatch() -> None:
    err = error_of(find_play, SHORT, START, WHITE, (5, 3), journeys((13, 9)))
    assert err.code == "dice_mismatch"
    assert "13/9 is not a move of 5-3" in err.reason
    assert err.data["dice"] == (5, 3)
    assert err.data["move"] == "13/9"
    too_many = error_of(find_play, SHORT, START, WHITE, (5, 3), journeys((13, 8), (13, 8)))
    assert too_many.code == "dice_mismatch"


def test_point_closed_names_the_point() -> None:
    err = error_of(find_play, SHORT, START, WHITE, (6, 5), journeys((6, 1), (13, 7)))
    assert err.code == "point_closed"
    assert err.data["point"] == 1
    assert "point 1 is closed" in err.reason


def test_no_checker_on_the_origin() -> None:
    err = error_of(find_play, SHORT, START, WHITE, (5, 3), journeys((14, 9), (8, 5)))
    assert err.code == "no_checker"
    assert "no checker on 14" in err.reason


def test_bar_first() -> None:
    pos = Position.from_points({BAR: 1, 13: 14}, {1: 15})
    err = error_of(find_play, SHORT, pos, WHITE, (6, 4), journeys((13, 7), (13, 9)))
    assert err.code == "bar_first"
    assert "bar must enter" in err.reason


def test_bear_off_not_home() -> None:
    pos = Position.from_points({13: 1, 4: 1, 3: 13}, {1: 15})
    err = error_of(find_play, SHORT, pos, WHITE, (6, 4), journeys((4, OFF), (13, 7)))
    assert err.code == "bear_off_not_home"
    assert "all checkers home" in err.reason
    assert err.data["move"] == "4/off"
    # In the other order the outside checker comes home first: legal.
    home = Position.from_points({7: 1, 4: 1, 3: 13}, {1: 15})
    play = find_play(SHORT, home, WHITE, (6, 4), journeys((4, OFF), (7, 1)))
    assert [(s.origin, s.dest) for s in play.steps] == [(7, 1), (4, OFF)]


def test_bear_off_higher_checker() -> None:
    pos = Position.from_points({5: 1, 3: 1, 2: 13}, {1: 15})
    err = error_of(find_play, SHORT, pos, WHITE, (4, 1), journeys((3, OFF), (2, 1)))
    assert err.code == "bear_off_higher_checker"
    assert "the 4 cannot bear off from 3 while a checker stands on 5" in err.reason


def test_must_play_both_gives_an_example() -> None:
    pos = Position.from_points({13: 1}, {18: 2, 1: 13})
    err = error_of(find_play, SHORT, pos, WHITE, (6, 2), journeys((13, 11)))
    assert err.code == "must_play_both"
    assert "13/11 11/5" in err.reason
    assert err.data["example"] == "13/11 11/5"


def test_must_play_larger_gives_an_example() -> None:
    pos = Position.from_points({13: 1}, {23: 2, 1: 13})
    err = error_of(find_play, SHORT, pos, WHITE, (6, 5), journeys((13, 8)))
    assert err.code == "must_play_larger"
    assert "the 6 must be played" in err.reason
    assert "13/7 is legal" in err.reason


def test_must_play_more_with_doubles() -> None:
    err = error_of(find_play, SHORT, START, WHITE, (6, 6), journeys((24, 18), (24, 18)))
    assert err.code == "must_play_more"
    assert err.data["played"] == 2
    assert err.data["playable"] == 4


def test_false_hit_mark() -> None:
    err = error_of(find_play, SHORT, START, WHITE, (5, 3), [Move(13, 8, hits=(8,)), Move(13, 10)])
    assert err.code == "false_hit"
    assert "no opposing blot" in err.reason


def test_wrong_direction() -> None:
    err = error_of(find_play, SHORT, START, WHITE, (5, 3), journeys((8, 13)))
    assert err.code == "wrong_direction"


def test_point_closed_on_every_route_names_all_points() -> None:
    pos = Position.from_points({13: 1, 6: 14}, {17: 2, 15: 2})  # white 8 and 10 held
    err = error_of(find_play, SHORT, pos, WHITE, (5, 3), journeys((13, 5)))
    assert err.code == "point_closed"
    assert err.data["points"] == [8, 10]
    assert "points 8 and 10 are closed on every route" in err.reason


def test_forced_move_example_continues_the_written_play() -> None:
    err = error_of(find_play, SHORT, START, WHITE, (5, 3), journeys((13, 8)))
    assert err.code == "must_play_both"
    assert err.data["example"].startswith("13/8 ") or " 13/8" in err.data["example"]


def test_journey_off_the_board_is_rejected() -> None:
    err = error_of(find_play, SHORT, START, WHITE, (5, 3), journeys((26, 21)))
    assert err.code == "not_legal"
    assert "not a journey on the board" in err.reason
