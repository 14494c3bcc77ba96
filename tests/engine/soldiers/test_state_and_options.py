"""Options (army, placement), the position text and the start (RULES.md §3.1)."""

from __future__ import annotations

import pytest

from engine.errors import EngineError
from engine.soldiers import SOLDIERS, variant
from engine.soldiers.army import (
    Army,
    SoldiersOptionError,
    options,
    parse_army,
    parse_placement,
)
from engine.soldiers.state import PositionTextError, parse_position, start_position

START_TEXT = "W: K24 P24 G13 P13x4 D8 P8x2 E6 O6 P6x3 | B: K24 P24 G13 P13x4 D8 P8x2 E6 O6 P6x3 | W"


def test_the_default_start_is_the_text_of_the_rules() -> None:
    assert start_position().text() == START_TEXT
    assert variant() is SOLDIERS and SOLDIERS.start().text() == START_TEXT


def test_the_canonical_text_reads_back_to_the_same_position() -> None:
    assert parse_position(START_TEXT).text() == START_TEXT


def test_a_short_text_reads_to_its_canonical_form() -> None:
    # P left out, checkers unlisted are pawns borne off, order free
    position = parse_position("W: 6 K24 17 6 | B: D8! 20 | b")
    assert position.text() == "W: K24 P17 P6x2 Poffx11 | B: P20 D8! Poffx13 | B"


def test_positions_are_equal_when_their_canonical_texts_are() -> None:
    assert parse_position("W: P6x2 | B: P1 | W") == parse_position("W: 6 P6 Poffx13 | B: 1 | W")


def test_the_army_and_placement_move_the_classes() -> None:
    opts = options("K2 G1 D0 E2 O0", "K24x2 G8 E6x2")
    text = SOLDIERS.start(opts).text()
    assert text.startswith("W: K24x2 P13x5 G8 P8x2 E6x2 P6x3 | B: K24x2")


def test_an_army_over_fifteen_is_refused() -> None:
    with pytest.raises(SoldiersOptionError) as err:
        parse_army("P1 G8 D8")
    assert err.value.code == "army_too_large" and err.value.data == {"total": 16}


def test_an_unknown_class_is_refused() -> None:
    with pytest.raises(SoldiersOptionError) as err:
        parse_army("K1 X2")
    assert err.value.code == "unknown_class"
    with pytest.raises(SoldiersOptionError) as err:
        parse_placement("K24 Z13")
    assert err.value.code == "unknown_class"


def test_a_class_placed_where_the_start_has_no_room_is_refused() -> None:
    with pytest.raises(SoldiersOptionError) as err:
        options(Army((3, 0, 0, 0, 0)))  # three generals on 24, which holds two
    assert err.value.code == "placement_no_room"
    assert err.value.data == {"cls": "K", "point": 24, "room": 2}
    with pytest.raises(SoldiersOptionError) as err:
        options(None, "K24 G12 D8 E6 O6")  # 12 is empty at the start
    assert err.value.data["point"] == 12 and err.value.data["room"] == 0


def test_a_placement_must_place_the_army() -> None:
    with pytest.raises(SoldiersOptionError) as err:
        options(None, "K24 G13 D8 E6")
    assert err.value.code == "placement_mismatch" and err.value.data["cls"] == "O"


def test_two_placements_one_per_side() -> None:
    opts = options(None, ("K24 G13 D8 E6 O6", "K13 G24 D6 E8 O6"))
    text = SOLDIERS.start(opts).text()
    assert "B: G24 P24 K13 P13x4 E8 P8x2 D6 O6 P6x3" in text


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("W: K24 | B: K24", "bad_position_text"),
        ("W: K24 | B: K24 | X", "bad_position_text"),
        ("B: K24 | W: K24 | W", "bad_position_text"),
        ("W: Q24 | B: | W", "bad_token"),
        ("W: P25 | B: | W", "bad_token"),
        ("W: P6x16 | B: | W", "too_many_checkers"),
        ("W: Pbar! | B: | W", "bad_pin"),
        ("W: P6! | B: | W", "bad_pin"),  # nobody pins it
        ("W: P6! P6 | B: P19 | W", "bad_pin"),  # not alone under the pin
        ("W: P6 | B: P19 | W", "mixed_point"),
    ],
)
def test_bad_position_texts_are_refused_with_a_code(text: str, code: str) -> None:
    with pytest.raises(PositionTextError) as err:
        parse_position(text)
    assert err.value.code == code
    assert isinstance(err.value, EngineError)


def test_a_text_read_for_an_army_must_hold_that_army() -> None:
    with pytest.raises(PositionTextError) as err:
        parse_position("W: K24 | B: K24 | W", Army())
    assert err.value.code == "army_mismatch"
    assert parse_position(START_TEXT, Army()).text() == START_TEXT


def test_counts_and_pins_read_as_plain_counts_for_scoring() -> None:
    position = parse_position("W: D7 P2 | B: P18! P22 | W")
    plain = position.to_position()
    assert plain.sides[1][18] == 1 and plain.sides[0][7] == 1 and plain.sides[0][0] == 13
