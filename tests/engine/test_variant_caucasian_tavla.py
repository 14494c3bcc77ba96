"""Caucasian and Tavla (RULES.md §3): what a checker that hits in its owner's
home may do afterwards in the same turn, and Tavla's forced bear-off.

White's point q is black's 25 - q; black's checkers on its 1 (white's 24)
are only there to make up fifteen.
"""

from __future__ import annotations

from engine.movegen import legal_plays
from engine.rules.board import OFF, WHITE
from engine.rules.variants import SHORT, get_variant
from tests.engine.variant_helpers import find_error, plays_of, pos, results

CAUCASIAN = get_variant("caucasian")
TAVLA = get_variant("tavla")

# a black blot on white's 5 (black's 20); white's own checker on 3
HIDE = pos({13: 13, 8: 1, 3: 1}, {20: 1, 1: 14})


# --- Caucasian: no hit and hide in the home -------------------------------------


def test_caucasian_hit_and_hide_is_not_allowed() -> None:
    assert "8/5*/3" in plays_of(SHORT, HIDE, (3, 2))
    plays = plays_of(CAUCASIAN, HIDE, (3, 2))
    assert "8/5*/3" not in plays
    assert "8/5* 3/1" in plays  # hit, and another checker plays the 2
    assert find_error(CAUCASIAN, HIDE, (3, 2), "8/5*/3").code == "hit_and_hide"


def test_caucasian_hit_and_cover_and_hit_and_move_on_are_allowed() -> None:
    cover = pos({13: 13, 8: 1, 7: 1}, {20: 1, 1: 14})
    assert "8/5* 7/5" in plays_of(CAUCASIAN, cover, (3, 2))
    free = pos({13: 14, 8: 1}, {20: 1, 1: 14})
    assert "8/5*/3" in plays_of(CAUCASIAN, free, (3, 2))


def test_caucasian_hit_outside_home_may_hide() -> None:
    # black's blot on its 15 is white's 10, outside white's home
    p = pos({13: 13, 12: 1, 8: 1}, {15: 1, 1: 14})
    assert "13/10*/8" in plays_of(CAUCASIAN, p, (3, 2))


def test_caucasian_hide_allowed_when_it_is_the_only_way_to_play_the_die() -> None:
    # black holds white's 1 (its 24): after 8/5* the 2 has no other step than 5/3
    p = pos({8: 1, 3: 1}, {20: 1, 24: 2, 1: 12})
    assert "8/5*/3" in plays_of(CAUCASIAN, p, (3, 2))
    assert plays_of(CAUCASIAN, p, (3, 2)) == plays_of(SHORT, p, (3, 2))


def test_caucasian_hit_and_bear_off_only_without_another_move() -> None:
    # a black blot on white's 2 (black's 23); all white checkers home
    p = pos({6: 1, 4: 1}, {23: 1, 1: 14})
    assert "6/2*/off" in plays_of(SHORT, p, (4, 2))
    plays = plays_of(CAUCASIAN, p, (4, 2))
    assert "6/2*/off" not in plays
    assert "6/2* 4/2" in plays
    assert find_error(CAUCASIAN, p, (4, 2), "6/2*/off").code == "hit_and_bear_off"
    alone = pos({6: 1}, {23: 1, 1: 14})
    assert "6/2*/off" in plays_of(CAUCASIAN, alone, (4, 2))


# --- Tavla: no hit and run in the home -------------------------------------------


def test_tavla_a_checker_that_hits_in_the_home_stays() -> None:
    free = pos({13: 14, 8: 1}, {20: 1, 1: 14})
    plays = plays_of(TAVLA, free, (3, 2))
    assert "8/5*/3" in plays_of(SHORT, free, (3, 2))
    assert "8/5*/3" not in plays
    assert "13/11 8/5*" in plays
    assert find_error(TAVLA, free, (3, 2), "8/5*/3").code == "hit_and_run"


def test_tavla_hitter_frozen_even_when_dice_are_lost() -> None:
    alone = pos({8: 1}, {20: 1, 1: 14})
    # 8/5* leaves the 2 unplayable; 8/6/3 plays both dice, so it is forced
    assert plays_of(TAVLA, alone, (3, 2)) == {"8/3"}
    # with 3-3 every first step hits: the other three threes are lost
    assert plays_of(TAVLA, alone, (3, 3)) == {"8/5*"}


def test_tavla_hit_outside_home_may_run() -> None:
    p = pos({13: 1, 6: 14}, {15: 1, 1: 14})
    assert "13/10*/8" in plays_of(TAVLA, p, (3, 2))


# --- Tavla: a die that can bear a checker off must ---------------------------------


def test_tavla_must_bear_off_with_the_five() -> None:
    # RULES §3: checker on 3, roll 5-2: bear off with the 5, not 3/1
    p = pos({3: 1, 1: 1}, {1: 15})
    assert plays_of(SHORT, p, (5, 2)) == {"3/off 1/off", "3/off"}  # 3/off is 3/1 1/off
    assert plays_of(TAVLA, p, (5, 2)) == {"3/off 1/off"}
    assert find_error(TAVLA, p, (5, 2), "3/1 1/off").code == "must_bear_off"


def test_tavla_bears_off_as_many_as_the_roll_can() -> None:
    # 2-1 with checkers on 6, 4, 3: 3/2/off bears one off, so every play must
    p = pos({6: 1, 4: 1, 3: 1}, {1: 15})
    tavla = legal_plays(TAVLA, p, WHITE, (2, 1))
    assert results(tavla) < results(legal_plays(SHORT, p, WHITE, (2, 1)))
    assert {x.position.sides[WHITE][OFF] for x in tavla} == {13}


def test_tavla_plays_as_short_nardy_when_the_roll_cannot_bear_off() -> None:
    p = pos({6: 2, 5: 1}, {1: 15})
    for dice in [(2, 1), (1, 1), (3, 1)]:
        assert results(legal_plays(TAVLA, p, WHITE, dice)) == results(
            legal_plays(SHORT, p, WHITE, dice)
        )
