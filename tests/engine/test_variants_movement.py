"""Every variant as data, and the movement rules of the variants whose play
differs from their base game only in start, geometry or dice (RULES.md §3-§5).

Plakoto, Caucasian, Tavla and Old English have their own files
(test_variant_*.py); a random-play smoke test over every variant is here.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.errors import GameStateError
from engine.movegen import dice_moves, explode, find_play, is_first_turn, legal_plays
from engine.records.notation import format_play, parse_moves
from engine.rules.board import BAR, BLACK, OFF, OPPOSITE, SAME_DIRECTION, SHARED, WHITE, Position
from engine.rules.game import GameRules, start_position
from engine.rules.variants import LONG, SHORT, VARIANTS, Opening, get_variant
from tests.engine.differential import sample_positions
from tests.engine.variant_helpers import (
    assert_valid,
    find,
    find_error,
    moved,
    plays_of,
    pos,
    results,
)

NEW = [
    "longgammon",
    "jacquet",
    "dutch",
    "chase",
    "garanquet",
    "caucasian",
    "tavla",
    "old-english",
    "sudden-death",
    "nuclear",
    "plakoto",
    "nauka-short",
    "nardegammon",
    "diceless-long",
    "soldiers",  # its movement is tested in tests/engine/soldiers
]


# --- the variants as data ------------------------------------------------------


def test_every_variant_is_registered_under_its_name() -> None:
    assert set(VARIANTS) == {"short", "long", "nackgammon", "hypergammon", *NEW}
    for name in NEW:
        assert get_variant(name).name == name


@pytest.mark.parametrize(
    ("name", "scoring", "cube", "opening", "dice"),
    [
        ("longgammon", "short-standard", True, Opening.USE_OPENING_DICE, 2),
        ("jacquet", "short-standard", True, Opening.USE_OPENING_DICE, 2),
        ("dutch", "short-standard", True, Opening.USE_OPENING_DICE, 2),
        ("chase", "short-standard", True, Opening.USE_OPENING_DICE, 2),
        ("garanquet", "short-standard", True, Opening.REROLL, 3),
        ("caucasian", "short-standard", True, Opening.USE_OPENING_DICE, 2),
        ("tavla", "tavla", False, Opening.REROLL, 2),
        ("old-english", "single", False, Opening.USE_OPENING_DICE, 2),
        ("sudden-death", "single", True, Opening.USE_OPENING_DICE, 2),
        ("nuclear", "short-standard", True, Opening.USE_OPENING_DICE, 2),
        ("plakoto", "plakoto", True, Opening.USE_OPENING_DICE, 2),
        ("nauka-short", "short-nauka-1980", False, Opening.HIGHER_PLAYS_WHITE, 2),
        ("nardegammon", "long-masters", True, Opening.USE_OPENING_DICE, 2),
        ("diceless-long", "long-masters", False, Opening.REROLL, 2),
    ],
)
def test_game_level_fields(
    name: str, scoring: str, cube: bool, opening: Opening, dice: int
) -> None:
    v = get_variant(name)
    assert (v.scoring, v.cube, v.opening, v.dice) == (scoring, cube, opening, dice)
    assert v.first_hit_wins == (name == "sudden-death")
    assert v.nuclear == (name == "nuclear")
    assert v.pinning == (name == "plakoto")
    assert v.mover_names_dice == (name == "diceless-long")


def test_the_classic_variants_keep_their_rules() -> None:
    for name in ("short", "nackgammon", "hypergammon", "long"):
        v = get_variant(name)
        assert not (v.first_hit_wins or v.nuclear or v.pinning or v.optional_dice)
        assert not (v.no_hit_and_hide_in_home or v.no_hit_and_run_in_home or v.forced_bear_off)
        assert not v.partial_bear_off and v.max_per_point == 0 and v.start_extra == ()
        assert v.start_position().extra == ()


@pytest.mark.parametrize(
    ("name", "geometry", "slot"),
    [
        ("longgammon", OPPOSITE, 24),
        ("jacquet", OPPOSITE, 24),
        ("plakoto", OPPOSITE, 24),
        ("dutch", OPPOSITE, BAR),
        ("chase", SHARED, BAR),
        ("nardegammon", SAME_DIRECTION, 24),
        ("diceless-long", SAME_DIRECTION, 24),
    ],
)
def test_starts_with_all_fifteen_on_one_slot(name: str, geometry: object, slot: int) -> None:
    v = get_variant(name)
    start = v.start_position()
    assert v.geometry is geometry
    for side in (WHITE, BLACK):
        assert start.sides[side][slot] == 15
        assert start.checkers(side) == 15
    assert_valid(v, start)


@pytest.mark.parametrize(
    "name",
    ["garanquet", "caucasian", "tavla", "old-english", "sudden-death", "nuclear", "nauka-short"],
)
def test_the_short_family_variants_start_as_short_nardy(name: str) -> None:
    assert get_variant(name).start_position().sides == SHORT.start_position().sides


def test_start_extra_state() -> None:
    assert get_variant("nuclear").start_position().extra == (("bomb", None),)
    plakoto = get_variant("plakoto").start_position()
    assert plakoto.get("pinned") == ((), ())
    assert plakoto.get("mother_pinned") == (False, False)


# --- Longgammon, Jacquet, Sudden death, Nuclear: §2 movement -------------------


@pytest.mark.parametrize("name", ["longgammon", "jacquet"])
def test_longgammon_and_jacquet_play_as_short_nardy(name: str) -> None:
    v = get_variant(name)
    start = v.start_position()
    for dice in [(6, 5), (3, 1), (4, 4), (6, 6), (2, 1)]:
        assert results(legal_plays(v, start, WHITE, dice)) == results(
            legal_plays(SHORT, start, WHITE, dice)
        )
    assert plays_of(v, start, (6, 5)) == {"24/13", "24/19 24/18"}
    # a lone opposing checker is hit (black's 14 is white's 11)
    p = pos({24: 14, 13: 1}, {24: 14, 14: 1})
    play = find(v, p, (2, 1), "13/11* 24/23")
    assert play.position.sides[BLACK][BAR] == 1 and play.position.sides[BLACK][14] == 0


@pytest.mark.parametrize("name", ["sudden-death", "nuclear"])
def test_sudden_death_and_nuclear_move_as_short_nardy(name: str) -> None:
    v = get_variant(name)
    start = v.start_position()
    p = Position(pos({13: 2, 8: 1, 6: 5}, {20: 1, 24: 2, 13: 3}).sides, start.extra)
    for dice in [(3, 1), (5, 2), (6, 6), (2, 2)]:
        ours = legal_plays(v, p, WHITE, dice)
        assert {x.position.sides for x in ours} == {
            x.position.sides for x in legal_plays(SHORT, p, WHITE, dice)
        }
        assert all(x.position.extra == start.extra for x in ours)
    # the hit is flagged on its step (the game ends a sudden-death game on it)
    hit = find(v, p, (3, 1), "8/5* 6/5")
    assert [(s.origin, s.dest) for s in hit.steps if s.hit] == [(8, 5)]


# --- Dutch trictrac -----------------------------------------------------------

DUTCH = get_variant("dutch")


def test_dutch_enters_from_the_bar_first() -> None:
    start = DUTCH.start_position()
    assert plays_of(DUTCH, start, (6, 5)) == {"bar/20 bar/19"}
    (four,) = legal_plays(DUTCH, start, WHITE, (4, 4))
    assert four.position.sides[WHITE][21] == 4 and four.position.sides[WHITE][BAR] == 11


def test_dutch_nothing_else_moves_while_a_checker_waits() -> None:
    p = pos({BAR: 13, 20: 2}, {BAR: 15})
    plays = legal_plays(DUTCH, p, WHITE, (6, 5))
    assert plays and all(s.origin == BAR for x in plays for s in x.steps)
    assert find_error(DUTCH, p, (6, 5), "20/14 20/15").code == "bar_first"


def test_dutch_entry_points_closed_by_two() -> None:
    # black's 5 and 6 are white's 20 and 19
    p = pos({BAR: 15}, {5: 2, 6: 2, BAR: 11})
    assert [x.steps for x in legal_plays(DUTCH, p, WHITE, (6, 5))] == [()]
    assert plays_of(DUTCH, p, (6, 1)) == {"bar/24"}


# --- Chase: one shared path ----------------------------------------------------

CHASE = get_variant("chase")


def test_chase_both_sides_enter_in_zone_a_and_share_the_points() -> None:
    start = CHASE.start_position()
    (white,) = legal_plays(CHASE, start, WHITE, (6, 5))
    (black,) = legal_plays(CHASE, start, BLACK, (6, 5))
    assert {(s.origin, s.dest) for s in white.steps} == {(BAR, 19), (BAR, 20)}
    assert {(s.origin, s.dest) for s in black.steps} == {(BAR, 19), (BAR, 20)}
    # white's 20 holds two whites: black's 20 is the same point, closed to black
    p = pos({20: 2, BAR: 13}, {BAR: 15}, SHARED)
    assert plays_of(CHASE, p, (5, 4), side=BLACK) == {"bar/21"}


def test_chase_hits_and_closes_on_the_shared_path() -> None:
    p = pos({BAR: 14, 10: 1}, {20: 2, 19: 1, BAR: 12}, SHARED)
    # 5: white's 20 = black's 20, closed by two; 6: a lone black checker on 19, hit
    (play,) = legal_plays(CHASE, p, WHITE, (6, 5))
    assert [(s.origin, s.dest, s.hit) for s in play.steps] == [(BAR, 19, True)]
    assert play.position.sides[BLACK] == moved(p, BLACK, {19: -1, BAR: +1})
    assert_valid(CHASE, play.position)
    # the same counts on opposite paths are somewhere else entirely
    assert plays_of(DUTCH, p, (6, 5)) == {"bar/20 bar/19"}


def test_chase_hit_checker_reenters_in_zone_a() -> None:
    p = pos({3: 1, 12: 14}, {4: 1, BAR: 1, 20: 13}, SHARED)
    # black's 4 is white's 4 (both in zone D): white 12/4* hits it
    play = find(CHASE, p, (6, 2), "12/4*")
    assert play.position.sides[BLACK][BAR] == 2
    entries = legal_plays(CHASE, play.position, BLACK, (6, 3))
    assert all(s.origin == BAR and 19 <= s.dest <= 22 for x in entries for s in x.steps)


def test_chase_bears_off_from_zone_d_when_all_home() -> None:
    # black's two on 4 stand on white's 4 (the same point): closed to white
    home = pos({5: 1, 3: 1}, {4: 2, 20: 13}, SHARED)
    plays = legal_plays(CHASE, home, WHITE, (6, 1))
    assert any(s.dest == OFF for x in plays for s in x.steps)
    assert all(s.dest != 4 for x in plays for s in x.steps)
    out = pos({9: 1, 3: 1}, {4: 2, 20: 13}, SHARED)
    assert all(s.dest != OFF for x in legal_plays(CHASE, out, WHITE, (6, 1)) for s in x.steps)


# --- Garanquet: three dice -----------------------------------------------------

GARANQUET = get_variant("garanquet")


def test_garanquet_dice() -> None:
    assert dice_moves(GARANQUET, (5, 5, 4)) == (5, 5, 5, 5, 4)
    assert dice_moves(GARANQUET, (4, 5, 5)) == (5, 5, 5, 5, 4)
    assert dice_moves(GARANQUET, (5, 5, 6)) == (6, 5, 5)
    assert dice_moves(GARANQUET, (3, 3, 3)) == (3,) * 6
    assert dice_moves(GARANQUET, (1, 6, 4)) == (6, 4, 1)
    with pytest.raises(ValueError):
        dice_moves(GARANQUET, (5, 5))
    with pytest.raises(ValueError):
        dice_moves(SHORT, (5, 5, 4))


@pytest.mark.parametrize(
    ("dice", "steps"), [((5, 5, 4), 5), ((2, 2, 5), 3), ((3, 3, 3), 6), ((6, 4, 1), 3)]
)
def test_garanquet_plays_every_move_of_the_roll(dice: tuple[int, int, int], steps: int) -> None:
    start = GARANQUET.start_position()
    plays = legal_plays(GARANQUET, start, WHITE, dice)
    assert plays and all(len(x.steps) == steps for x in plays)
    assert sorted(s.die for s in plays[0].steps) == sorted(dice_moves(GARANQUET, dice))
    assert len(results(plays)) == len(plays)


def test_garanquet_plays_as_many_dice_as_possible_and_then_the_larger() -> None:
    # one white checker on 20; black holds white's 10 and 9 (its 15 and 16):
    # no play uses three dice; 6+1 (20/13) and 4+1 (20/15) use two: the 6 must be played
    p = pos({20: 1}, {15: 2, 16: 2, 1: 11})
    plays = legal_plays(GARANQUET, p, WHITE, (6, 4, 1))
    assert {x.position for x in plays} == {find(GARANQUET, p, (6, 4, 1), "20/13").position}
    err = find_error(GARANQUET, p, (6, 4, 1), "20/15")
    assert err.code == "must_play_larger"
    assert find_error(GARANQUET, p, (6, 4, 1), "20/14").code == "must_play_more"


def test_garanquet_find_play_for_five_moves() -> None:
    start = GARANQUET.start_position()
    play = find(GARANQUET, start, (5, 5, 4), "13/8(2) 13/3 24/20")
    assert len(play.steps) == 5
    assert play.position in results(legal_plays(GARANQUET, start, WHITE, (5, 5, 4)))


# --- Nauka short: partial use of the roll in bear-off --------------------------

NAUKA = get_variant("nauka-short")


def test_nauka_bear_off_may_use_the_roll_partly() -> None:
    p = pos({6: 2, 3: 1}, {1: 15})
    nauka = plays_of(NAUKA, p, (6, 3))
    short = plays_of(SHORT, p, (6, 3))
    assert short < nauka
    assert {"6/off", "3/off", "6/3"} <= nauka - short
    # each die that is played is played in full
    for play in legal_plays(NAUKA, p, WHITE, (6, 3)):
        assert play.steps
        assert all(s.dest == s.origin - s.die or s.dest == OFF for s in play.steps)
    assert find(NAUKA, p, (6, 3), "6/off").position.sides[WHITE][OFF] == 13
    assert find_error(NAUKA, p, (6, 3), "").code == "must_play"


def test_nauka_before_bear_off_plays_as_short_nardy() -> None:
    for p in (pos({7: 1, 6: 2}, {1: 15}), pos({6: 2, BAR: 1}, {24: 2, 1: 13})):
        for dice in [(6, 3), (2, 2), (5, 4)]:
            assert results(legal_plays(NAUKA, p, WHITE, dice)) == results(
                legal_plays(SHORT, p, WHITE, dice)
            )


# --- Nardegammon, dice-less long nardy: long nardy movement ---------------------


@pytest.mark.parametrize("name", ["nardegammon", "diceless-long"])
def test_long_relatives_move_as_long_nardy(name: str) -> None:
    v = get_variant(name)
    start = v.start_position()
    assert is_first_turn(v, start, WHITE)
    rng = random.Random(5)
    p = start
    for turn in range(30):
        side = turn % 2
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        first = turn < 2
        ours = legal_plays(v, p, side, dice, first_turn=first)
        assert results(ours) == results(legal_plays(LONG, p, side, dice, first_turn=first))
        p = rng.choice(ours).position


def test_diceless_long_accepts_any_named_roll() -> None:
    v = get_variant("diceless-long")
    start = v.start_position()
    for a in range(1, 7):
        for b in range(1, 7):
            assert results(legal_plays(v, start, WHITE, (a, b), first_turn=True)) == results(
                legal_plays(LONG, start, WHITE, (a, b), first_turn=True)
            )


# --- Nuclear: the bomb ---------------------------------------------------------

NUCLEAR = get_variant("nuclear")


def test_explode_sends_every_blot_of_both_sides_to_the_bar() -> None:
    p = pos({8: 1, 13: 2, 6: 1, BAR: 1}, {20: 1, 1: 3, 24: 1}, bomb=None)
    after = explode(NUCLEAR, p, WHITE)
    assert after.sides[WHITE] == moved(p, WHITE, {8: -1, 6: -1, BAR: +2})
    assert after.sides[BLACK] == moved(p, BLACK, {20: -1, 24: -1, BAR: +2})
    assert after.get("bomb") == BLACK
    assert_valid(NUCLEAR, after)
    # only the new owner may explode it next
    with pytest.raises(GameStateError) as caught:
        explode(NUCLEAR, after, WHITE)
    assert caught.value.code == "bomb_not_yours"
    again = explode(NUCLEAR, after, BLACK)
    assert again.get("bomb") == WHITE and again.sides == after.sides


def test_explode_needs_the_bomb() -> None:
    with pytest.raises(GameStateError) as caught:
        explode(SHORT, SHORT.start_position(), WHITE)
    assert caught.value.code == "no_bomb"


# --- every variant: random play ------------------------------------------------


def _roll(rng: random.Random, n: int) -> tuple[int, ...]:
    return tuple(rng.randint(1, 6) for _ in range(n))


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_random_play_keeps_positions_valid(name: str) -> None:
    """200 turns of random legal plays (seeded dice; named dice for dice-less
    long nardy): checkers conserved, geometry invariants hold, and every
    chosen play, written down and read back, is found again by find_play."""
    v = get_variant(name)
    rng = random.Random(name)
    # the game's start: Soldiers' carries the checkers' classes (its default options)
    p = start_position(GameRules(v))
    first = [True, True]
    finished = moving = 0
    for turn in range(200):
        side = turn % 2
        if v.nuclear and rng.random() < 0.05 and p.get("bomb") in (None, side):
            p = explode(v, p, side)
            assert_valid(v, p)
        dice = _roll(rng, v.dice)
        plays = legal_plays(v, p, side, dice, first_turn=first[side])
        assert plays
        assert len(results(plays)) == len(plays)
        for play in plays:
            assert_valid(v, play.position)
        play = rng.choice(plays)
        written = parse_moves(format_play(play), v)
        found = find_play(v, p, side, dice, written, first_turn=first[side])
        assert found.position == play.position
        moving += bool(play.steps)
        first[side] = False
        p = play.position
        if p.sides[side][OFF] == v.checkers:
            finished += 1
            p = start_position(GameRules(v))
            first = [True, True]
    assert moving > 100, f"only {moving} of 200 turns moved a checker ({finished} games ended)"


# --- the special-rules search against the classic generators ----------------------


def test_special_search_agrees_with_the_classic_generators() -> None:
    """A cap of fifteen per point never binds but sends a variant through the
    special-rules search: on positions from random short-nardy games it must
    give exactly the classic generators' plays (two dice), and the general
    search's (three dice)."""
    capped = dataclasses.replace(SHORT, name="capped", max_per_point=15)
    capped3 = dataclasses.replace(GARANQUET, name="capped-3", max_per_point=15)
    rng = random.Random(11)
    compared = 0
    for position, side, dice in sample_positions(300, 3):
        assert results(legal_plays(capped, position, side, dice)) == results(
            legal_plays(SHORT, position, side, dice)
        )
        roll3 = (*dice, rng.randint(1, 6))
        assert results(legal_plays(capped3, position, side, roll3)) == results(
            legal_plays(GARANQUET, position, side, roll3)
        )
        compared += 1
    assert compared == 300
