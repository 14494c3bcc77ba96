"""Old English (RULES.md §3): dice may be left unplayed (but not all of them
while a checker can move), and at most five own checkers on a point."""

from __future__ import annotations

from engine.movegen import legal_plays
from engine.rules.board import BAR, WHITE
from engine.rules.variants import SHORT, get_variant
from tests.engine.variant_helpers import find, find_error, plays_of, pos, results

OLD = get_variant("old-english")


def test_either_die_may_be_left_unplayed() -> None:
    p = pos({13: 2, 8: 1}, {1: 15})
    plays = plays_of(OLD, p, (3, 2))
    assert {"13/10", "13/11", "8/5", "8/6", "13/8", "13/10 8/6"} <= plays
    assert plays_of(SHORT, p, (3, 2)) < plays
    assert all(len(x.steps) in (1, 2) for x in legal_plays(OLD, p, WHITE, (3, 2)))
    assert find(OLD, p, (3, 2), "13/11").position.sides[WHITE][11] == 1


def test_leaving_every_die_unplayed_is_not_allowed_while_a_checker_can_move() -> None:
    p = pos({13: 2, 8: 1}, {1: 15})
    assert find_error(OLD, p, (3, 2), "").code == "must_play"
    # nothing can move: the empty play
    blocked = pos({BAR: 1, 13: 14}, {1: 3, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2})
    (only,) = legal_plays(OLD, blocked, WHITE, (3, 2))
    assert only.steps == ()


def test_doubles_may_be_played_one_to_four_times() -> None:
    p = pos({13: 3}, {1: 15})
    counts = {len(x.steps) for x in legal_plays(OLD, p, WHITE, (2, 2))}
    assert counts == {1, 2, 3, 4}


def test_at_most_five_checkers_on_a_point() -> None:
    p = pos({13: 9, 8: 1, 6: 5}, {1: 15})
    plays = legal_plays(OLD, p, WHITE, (2, 1))
    assert all(s.dest != 6 for x in plays for s in x.steps)
    assert "13/12 8/6" in plays_of(SHORT, p, (2, 1))
    err = find_error(OLD, p, (2, 1), "8/6")
    assert err.code == "too_many_on_point" and err.data["point"] == 6
    # entering from the bar is capped too (white's 20 holds five)
    entering = pos({BAR: 1, 20: 5, 13: 9}, {1: 15})
    plays = legal_plays(OLD, entering, WHITE, (5, 3))
    assert all(s.dest != 20 for x in plays for s in x.steps)


def test_every_short_nardy_play_is_legal_where_the_cap_does_not_bind() -> None:
    # stacks of three at most: two steps never put more than five on a point
    p = pos({24: 2, 13: 3, 9: 2, 8: 3, 7: 2, 6: 3}, {24: 2, 13: 3, 8: 3, 6: 3, 5: 2, 4: 2})
    for dice in [(6, 5), (3, 1), (5, 4), (2, 1)]:
        assert results(legal_plays(SHORT, p, WHITE, dice)) <= results(
            legal_plays(OLD, p, WHITE, dice)
        )
