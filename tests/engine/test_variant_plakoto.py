"""Plakoto (RULES.md §3): pinning instead of hitting, and the mother.

White's point q is black's 25 - q.  Pins live in ``Position.extra["pinned"]``
(each side's pinned points in its own numbering) and
``extra["mother_pinned"]`` (white, black).
"""

from __future__ import annotations

from engine.movegen import legal_plays
from engine.rules.board import BLACK, OFF, WHITE
from engine.rules.variants import get_variant
from tests.engine.variant_helpers import assert_valid, find, find_error, plays_of, pos

PLAKOTO = get_variant("plakoto")
NONE_PINNED = {"pinned": ((), ()), "mother_pinned": (False, False)}

# black's 18 and 14 are white's 7 and 11: two black blots
OPEN = pos({24: 13, 12: 1, 9: 1}, {24: 13, 18: 1, 14: 1}, **NONE_PINNED)
# white's checker on 7 pins black's checker on its 18
PINNED = pos(
    {24: 13, 9: 1, 7: 1},
    {24: 13, 18: 1, 14: 1},
    pinned=((), (18,)),
    mother_pinned=(False, False),
)


def test_landing_on_a_lone_checker_pins_it_without_hitting() -> None:
    play = find(PLAKOTO, OPEN, (2, 1), "9/7 12/11")
    assert not any(s.hit for s in play.steps)
    assert play.position.sides[BLACK] == OPEN.sides[BLACK]  # nothing goes to the bar
    assert play.position.get("pinned") == ((), (14, 18))
    assert play.position.get("mother_pinned") == (False, False)
    assert_valid(PLAKOTO, play.position)


def test_a_pinned_checker_cannot_move() -> None:
    plays = legal_plays(PLAKOTO, PINNED, BLACK, (6, 2))
    assert plays[0].steps and all(s.origin != 18 for p in plays for s in p.steps)
    assert find_error(PLAKOTO, PINNED, (6, 2), "18/12 24/22", side=BLACK).code == "pinned_checker"


def test_the_point_over_a_pinned_checker_belongs_to_the_pinner() -> None:
    # black may not land on its own 18, where white sits on black's pinned checker
    plays = legal_plays(PLAKOTO, PINNED, BLACK, (6, 2))
    assert all(s.dest != 18 for p in plays for s in p.steps)
    assert find_error(PLAKOTO, PINNED, (6, 2), "24/18 24/22", side=BLACK).code == "point_closed"
    # white may add checkers there
    play = find(PLAKOTO, PINNED, (2, 1), "9/7 24/23")
    assert play.position.sides[WHITE][7] == 2
    assert play.position.get("pinned") == ((), (18,))


def test_the_pinner_leaving_frees_the_pinned_checker() -> None:
    play = find(PLAKOTO, PINNED, (2, 1), "7/5 24/23")
    assert play.position.get("pinned") == ((), ())
    # with a second white checker still there, the pin holds
    double = pos(
        {24: 12, 9: 1, 7: 2},
        {24: 13, 18: 1, 14: 1},
        pinned=((), (18,)),
        mother_pinned=(False, False),
    )
    assert find(PLAKOTO, double, (2, 1), "7/5 24/23").position.get("pinned") == ((), (18,))


def test_two_checkers_block_a_point() -> None:
    # black's two on its 16 stand on white's 9
    p = pos({24: 13, 12: 1, 11: 1}, {24: 13, 16: 2}, **NONE_PINNED)
    plays = legal_plays(PLAKOTO, p, WHITE, (3, 2))
    assert all(s.dest != 9 for x in plays for s in x.steps)
    assert find_error(PLAKOTO, p, (3, 2), "12/9 24/22").code == "point_closed"


def test_no_bear_off_while_a_pinned_checker_stays_outside_home() -> None:
    # black's lone checker on its 15 pins white's on 10 (white's 1 is open)
    p = pos(
        {10: 1, 6: 4, 5: 4, 4: 6},
        {15: 1, 13: 14},
        pinned=((10,), ()),
        mother_pinned=(False, False),
    )
    assert plays_of(PLAKOTO, p, (6, 5)) == {"6/1"}
    # once it is free, its move home allows the bear-off
    free = pos({10: 1, 6: 4, 5: 4, 4: 6}, {16: 1, 13: 14}, **NONE_PINNED)
    assert any(s.dest == OFF for x in legal_plays(PLAKOTO, free, WHITE, (6, 5)) for s in x.steps)


def test_pinning_the_mother() -> None:
    # black's last checker on its starting point (white's 1) is its mother
    p = pos({7: 1, 6: 14}, {24: 1, 13: 14}, **NONE_PINNED)
    pinned = find(PLAKOTO, p, (6, 1), "7/1 6/5").position
    assert pinned.get("pinned") == ((), (24,))
    assert pinned.get("mother_pinned") == (False, True)
    assert_valid(PLAKOTO, pinned)
    # pinning in passing and moving on leaves it free
    passing = find(PLAKOTO, p, (6, 1), "7/1/off").position
    assert passing.get("mother_pinned") == (False, False)
    assert passing.sides[WHITE][OFF] == 1


def test_a_pin_may_be_marked_like_a_hit() -> None:
    marked = find(PLAKOTO, OPEN, (2, 1), "9/7* 12/11*")
    assert marked.position == find(PLAKOTO, OPEN, (2, 1), "9/7 12/11").position
    assert find_error(PLAKOTO, OPEN, (2, 1), "9/8* 12/10").code == "false_hit"


def test_positions_without_pin_keys_read_as_no_pins() -> None:
    bare = pos({24: 13, 12: 1, 9: 1}, {24: 13, 18: 1, 14: 1})
    plays = legal_plays(PLAKOTO, bare, WHITE, (2, 1))
    assert {p.position for p in plays} == {
        p.position for p in legal_plays(PLAKOTO, OPEN, WHITE, (2, 1))
    }
    for play in plays:
        assert_valid(PLAKOTO, play.position)
