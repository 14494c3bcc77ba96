"""Azerbaijani notation (engine/records/azn.py, RULES.md §8): fields, records, the
"Nauka i Zhizn" game with its OCR slips, and random games in both notations."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import movegen
from engine.errors import EngineError
from engine.records.azn import (
    BEAR_OFF,
    ENTER,
    FIELDS,
    LONG_LAYOUT,
    MOVE,
    SHORT_LAYOUT,
    AznError,
    AznGame,
    field_of,
    parse_azn,
    point_of,
)
from engine.records.azn_replay import replay_azn, to_replay_text
from engine.records.azn_writer import azn_turn, format_azn
from engine.records.replay import format_line, replay
from engine.rules import game as g
from engine.rules.board import BAR, BLACK, OFF, WHITE, Position
from engine.rules.dice import SeededDice
from engine.rules.plays import Move, Play
from engine.rules.scoring import get_preset
from engine.rules.variants import LONG, SHORT, Variant

DATA = Path(__file__).parent / "data" / "azn"


def read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def azn_error(text: str, variant: Variant = SHORT, **kwargs: Any) -> AznError:
    with pytest.raises(AznError) as info:
        replay_azn(text, variant, **kwargs)
    return info.value


def where(err: AznError) -> tuple[str, int | None, str | None, int | None]:
    return err.code, err.data["move_number"], err.data["side"], err.data["line"]


def position_from_fields(
    variant: Variant, white: dict[str, int], black: dict[str, int]
) -> Position:
    return Position.from_points(
        {point_of(variant, WHITE, f): n for f, n in white.items()},
        {point_of(variant, BLACK, f): n for f, n in black.items()},
        total=variant.checkers,
    )


def fields_of(final: dict[str, Any], variant: Variant, side: int) -> dict[str, int]:
    points = final["white" if side == WHITE else "black"]["points"]
    return {field_of(variant, side, int(q)): n for q, n in points.items()}


# --- fields <-> points ---------------------------------------------------------


def test_short_start_as_the_article_gives_it_is_the_engine_start() -> None:
    # 001 §1: Black a1:2 b6:5 c5:3 d1:5; White d6:2 c1:5 b2:3 a6:5 (OCR: "ab").
    start = position_from_fields(
        SHORT,
        {"d6": 2, "c1": 5, "b2": 3, "a6": 5},
        {"a1": 2, "b6": 5, "c5": 3, "d1": 5},
    )
    assert start == SHORT.start_position()


def test_long_start_as_the_article_gives_it_is_the_engine_start() -> None:
    assert position_from_fields(LONG, {"a1": 15}, {"c1": 15}) == LONG.start_position()


def walk(variant: Variant, side: int) -> list[str]:
    """The fields in the order ``side`` passes them, from its 24 to its 1."""
    return [field_of(variant, side, q) for q in range(24, 0, -1)]


def zone_order(zones: str, reverse: bool) -> list[str]:
    ks = range(6, 0, -1) if reverse else range(1, 7)
    return [f"{z}{k}" for z in zones for k in ks]


def test_each_side_walks_the_zones_in_the_articles_order() -> None:
    assert walk(SHORT, WHITE) == zone_order("dcba", reverse=True)  # D→C→B→A, home A
    assert walk(SHORT, BLACK) == zone_order("abcd", reverse=False)  # A→B→C→D, home D
    assert walk(LONG, WHITE) == zone_order("abcd", reverse=False)  # head a1, home D
    assert walk(LONG, BLACK) == zone_order("cdab", reverse=False)  # head c1, home B


@pytest.mark.parametrize("variant", [SHORT, LONG], ids=lambda v: v.name)
def test_one_field_is_one_point_for_both_sides(variant: Variant) -> None:
    board = SHORT_LAYOUT if variant is SHORT else LONG_LAYOUT
    for name in FIELDS:
        white, black = point_of(variant, WHITE, name), point_of(variant, BLACK, name)
        assert variant.geometry.opponent_point(WHITE, white) == black
        assert board.field(WHITE, white) == board.field(BLACK, black) == name


def test_article_entry_and_bear_off_fields() -> None:
    # 001 §10: with (4, 2) White enters on d3 or d5, Black on a4 or a2.
    assert [field_of(SHORT, WHITE, 25 - d) for d in (4, 2)] == ["d3", "d5"]
    assert [field_of(SHORT, BLACK, 25 - d) for d in (4, 2)] == ["a4", "a2"]
    # 001 §12: with (5, 3) White bears off from a5 or a3, Black from d2 or d4.
    assert [field_of(SHORT, WHITE, d) for d in (5, 3)] == ["a5", "a3"]
    assert [field_of(SHORT, BLACK, d) for d in (5, 3)] == ["d2", "d4"]
    # 001 §8: a hit checker starts again from d6 (White) or a1 (Black).
    assert (field_of(SHORT, WHITE, 24), field_of(SHORT, BLACK, 24)) == ("d6", "a1")


def test_rules_block_example_is_consecutive_along_blacks_path() -> None:
    # RULES §5: White on d5, d6, a1, a2, a3, a4 is one block for Black.
    points = [point_of(LONG, BLACK, f) for f in ("d5", "d6", "a1", "a2", "a3", "a4")]
    assert points == [14, 13, 12, 11, 10, 9]


def test_field_of_refuses_the_bar_and_off_and_point_of_a_non_field() -> None:
    for q in (OFF, BAR):
        with pytest.raises(ValueError):
            field_of(SHORT, WHITE, q)
    with pytest.raises(ValueError):
        point_of(SHORT, WHITE, "ab")


def test_other_boards_are_refused() -> None:
    from engine.rules.variants import get_variant

    with pytest.raises(AznError) as info:
        parse_azn("1. 5/1 c1—b2.", get_variant("chase"))
    assert info.value.code == "unsupported_variant"


# --- reading the constructs ------------------------------------------------------


def test_move_record_with_both_parts() -> None:
    game = parse_azn("1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.", SHORT)
    white, black = game.turns
    assert (white.number, white.side, white.dice, white.line) == (1, WHITE, (5, 1), 1)
    assert white.journeys == [Move(13, 8), Move(24, 23)]
    assert (black.number, black.side, black.dice) == (1, BLACK, (4, 3))
    assert black.journeys == [Move(13, 6)]
    assert [m.kind for m in white.moves] == [MOVE, MOVE]


@pytest.mark.parametrize(
    "text",
    [
        "1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.",
        "1. 5/1 c1–b2, d6–d5. 4/3 b6–d1.",  # en dash
        "1. 5/1 c1-b2 d6-d5 4/3 b6-d1",  # hyphen, no commas or periods
        "1.  5 / 1  c1 — b2 ,d6 - d5 .4/3 b6—d1",
        "1. 5/1 C1—B2, D6—D5. 4/3 B6—D1.",
        "# a comment\n\n1. 5/1 c1—b2,\n d6—d5.\n   4/3 b6—d1.",  # parts across lines
    ],
)
def test_dashes_spacing_and_line_breaks_do_not_matter(text: str) -> None:
    game = parse_azn(text, SHORT)
    assert [t.journeys for t in game.turns] == [[Move(13, 8), Move(24, 23)], [Move(13, 6)]]


def test_part_on_the_next_line_keeps_its_own_line_number() -> None:
    game = parse_azn(read("long_opening.azn"), LONG)
    assert [(t.number, t.side, t.line) for t in game.turns][-2:] == [(3, WHITE, 3), (3, BLACK, 4)]


def test_hit_count_entry_and_bear_off() -> None:
    text = "1. 6/4 c5:d5, d1—d5."
    (black_part,) = parse_azn("1. ... " + text[3:], SHORT).turns
    assert black_part.side == BLACK
    assert black_part.journeys == [Move(8, 2, hits=(2,)), Move(6, 2)]
    assert black_part.moves[0].hit_marks == (True,)
    (white,) = parse_azn("1. 4/4 2c1—b3, 2b2—a4.", SHORT).turns
    assert white.journeys == [Move(13, 9)] * 2 + [Move(8, 4)] * 2
    assert [m.count for m in white.moves] == [2, 2]
    (entry,) = parse_azn("1. 1/6 d6, c1—b1.", SHORT).turns
    assert entry.journeys == [Move(BAR, 24), Move(13, 7)]
    assert [m.kind for m in entry.moves] == [ENTER, MOVE]
    (off,) = parse_azn("1. 3/3 4a3.", SHORT).turns
    assert off.journeys == [Move(3, OFF)] * 4
    assert off.moves[0].kind == BEAR_OFF
    black_off = parse_azn("1. 5/3 a3, a5. 5/3 d2, d4.", SHORT).turns[1]
    assert black_off.journeys == [Move(5, OFF), Move(3, OFF)]
    black_entry = parse_azn("1. 5/3 a3, a5. 4/2 a4, a2.", SHORT).turns[1]
    assert black_entry.journeys == [Move(BAR, 21), Move(BAR, 23)]
    long_off = parse_azn("1. 6/1 d1, d6. 6/1 b1, b6.", LONG).turns
    assert [t.journeys for t in long_off] == [[Move(6, OFF), Move(1, OFF)]] * 2


def test_chain_names_landings_and_hits_on_the_way() -> None:
    (turn,) = parse_azn("1. 6/6 c1:b6—a6—a1.", SHORT).turns
    assert turn.journeys == [Move(13, 1, via=(12, 6), hits=(12,))]
    assert turn.moves[0].hit_marks == (True, False, False)


def test_z_star_x_and_comments() -> None:
    game = parse_azn(
        "1. 6/6 Z. 2/1 a6—b1(?), b1—b2 *\n2. Z Z\n3. 6/6 (!) Z(?) 3/1 d5X\n",
        SHORT,
    )
    w1, b1, w2, b2, w3, b3 = game.turns
    assert (w1.dice, w1.no_move, w1.moves) == ((6, 6), True, ())
    assert [m.annotations for m in b1.moves] == [("(?)",), ()]
    assert [m.home for m in b1.moves] == [False, True]
    assert (w2.dice, w2.no_move, b2.dice, b2.no_move) == (None, True, None, True)
    assert (w3.no_move, w3.annotations) == (True, ("(!)", "(?)"))
    assert (b3.won, b3.journeys) == (True, [Move(2, OFF)])  # Black's d5 is its 2
    spaced = parse_azn("1. 3/1 d5 X", SHORT).turns[0]
    assert (spaced.won, spaced.journeys) == (True, [Move(BAR, 23)])  # White's d5: entry


def test_black_started() -> None:
    game = parse_azn("1. ... 4/3 b6—d1.\n2. 5/1 c1—b2, d6—d5.", SHORT)
    assert [(t.number, t.side) for t in game.turns] == [(1, BLACK), (2, WHITE)]


def test_a_record_ending_after_whites_part() -> None:
    game = parse_azn("1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.\n2. 4/4 2c1—b3, 2b2—a4", SHORT)
    assert [t.side for t in game.turns] == [WHITE, BLACK, WHITE]


# --- what the reader refuses (text only) --------------------------------------------


@pytest.mark.parametrize(
    ("text", "code", "number", "side", "line", "token"),
    [
        ("1. 5/1 c1—ab, d6—d5.", "bad_field", 1, "white", 1, "c1—ab"),
        ("1. 5/1 c1—b2, d6—d5.\n4/3 e3—d1.", "bad_field", 1, "black", 2, "e3—d1"),
        ("1. 5/1 c1—b2, a7—a2.", "bad_field", 1, "white", 1, "a7—a2"),
        ("1. 5/1 c1—b2, d6—d0.", "bad_field", 1, "white", 1, "d6—d0"),
        ("1. 5/1 с1—b2, d6—d5.", "bad_field", 1, "white", 1, "с1—b2"),  # Cyrillic с
        ("1. 5-1 c1—b2, d6—d5.", "bad_token", 1, "white", 1, "5-1"),
        ("1. 5/1 c1—b2, d6—d5. 4/3 b6—d1. 3/1 c1—b5", "bad_token", 1, "black", 1, "3/1"),
        ("1. 5/1 3c1—b2.", "bad_count", 1, "white", 1, "3c1—b2"),
        ("1. 4/4 5c1—b3.", "bad_count", 1, "white", 1, "5c1—b3"),
        ("1. 7/1 c1—b2.", "bad_dice", 1, "white", 1, "7/1"),
        ("1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.\n3. 4/4 2c1—b3.", "bad_number", 3, None, 2, "3."),
        ("1. 5/1 c1—b2, c3.", "bad_lone_field", 1, "white", 1, "c3"),
        (
            "1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.\n2. 4/4 2c1—b3, 2b2—a4 3/2 b6—c5 Z",
            "bad_token",
            2,
            "black",
            2,
            "Z",
        ),
        ("1. 5/1 X.", "bad_token", 1, "white", 1, "X"),
        ("1. 5/1. 4/3 b6—d1.", "missing_moves", 1, "white", 1, None),
        ("2. 5/1 c1—b2.", "bad_number", 2, None, 1, "2."),
        ("c1—b2", "bad_token", None, None, 1, "c1—b2"),
        ("1. 5/1 c1—b2 (x)", "bad_token", 1, "white", 1, "(x)"),
        ("1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.\n2. ... 3/2 b6—c5.", "bad_token", 2, "white", 2, "..."),
        ("1. 6/6 Z c1—b2.", "bad_token", 1, "white", 1, "c1—b2"),
        ("1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.\n2.", "bad_token", 2, "white", 2, None),
        ("1. 5/1 c1—b2, d6—d5. 4/3", "missing_moves", 1, "black", 1, None),
    ],
)
def test_reader_reports_where_and_why(
    text: str, code: str, number: int | None, side: str | None, line: int, token: str | None
) -> None:
    with pytest.raises(AznError) as info:
        parse_azn(text, SHORT)
    err = info.value
    assert where(err) == (code, number, side, line)
    assert err.data.get("token") == token
    assert err.data["text"] == text.splitlines()[line - 1].strip()
    assert f"line {line}" in err.reason


def test_lone_field_in_long_nardy_is_only_a_bear_off() -> None:
    with pytest.raises(AznError) as info:
        parse_azn("1. 6/1 a1—a6, a3.", LONG)
    assert where(info.value) == ("bad_lone_field", 1, "white", 1)


def test_cyrillic_look_alike_is_named() -> None:
    with pytest.raises(AznError) as info:
        parse_azn("1. 5/1 c1—b2, d6—dб.", SHORT)
    assert "U+0431" in info.value.reason  # б read for 6


# --- replaying -----------------------------------------------------------------


def test_article_game_raw_reports_the_first_slip_at_move_1() -> None:
    err = azn_error(read("nauka_short_raw.azn"))
    # d6—d1 is 24/19, a 5 like c1—b2: the two moves want the 5 twice.
    assert where(err) == ("dice_mismatch", 1, "white", 1)
    assert err.data["rule"] == "dice_mismatch"
    assert "c1—b2 (13/8), d6—d1 (24/19)" in err.reason
    assert err.data["text"] == "1. 5/1 c1—b2, d6—d1. 4/3 b6—d1."


def test_article_game_second_slip_is_a_move_backwards() -> None:
    text = read("nauka_short_raw.azn").replace("d6—d1.", "d6—d5.")
    err = azn_error(text)
    assert where(err) == ("illegal_move", 2, "white", 2)
    assert (err.data["rule"], err.data["token"], err.data["engine_move"]) == (
        "wrong_direction",
        "2c1—d3",
        "13/21",
    )


def test_article_game_third_slip_is_a_field_that_does_not_exist() -> None:
    text = read("nauka_short_raw.azn").replace("d6—d1.", "d6—d5.").replace("2c1—d3", "2c1—b3")
    err = azn_error(text)
    assert where(err) == ("bad_field", 4, "white", 4)
    assert (err.data["field"], err.data["token"]) == ("b7", "c1—b7")


def test_reader_alone_stops_at_the_unreadable_field() -> None:
    with pytest.raises(AznError) as info:
        parse_azn(read("nauka_short_raw.azn"), SHORT)
    assert where(info.value) == ("bad_field", 4, "white", 4)


def test_article_game_corrected_replays_to_the_position_it_describes() -> None:
    clean = read("nauka_short_clean.azn")
    raw = read("nauka_short_raw.azn")
    fixes = [("d6—d1.", "d6—d5."), ("2c1—d3", "2c1—b3"), ("c1—b7", "c1—b1")]
    for old, new in fixes:
        raw = raw.replace(old, new)
    assert raw == clean  # the clean file differs by exactly the three slips
    result = replay_azn(clean, SHORT)
    assert (result["turns"], result["finished"], result["to_act"]) == (8, False, "white")
    # After 3... c5:d5 the white blot on d5 is on the bar; 4. d6 brings it back.
    white = {"d6": 2, "b3": 2, "b2": 1, "b1": 3, "a6": 5, "a4": 2}
    black = {"a1": 2, "b6": 2, "c5": 3, "d1": 5, "d5": 3}
    assert fields_of(result["final"], SHORT, WHITE) == white
    assert fields_of(result["final"], SHORT, BLACK) == black
    assert result == replay(to_replay_text(parse_azn(clean, SHORT)), g.GameRules(SHORT)).to_dict()


def test_long_opening_by_hand() -> None:
    result = replay_azn(read("long_opening.azn"), LONG)
    assert fields_of(result["final"], LONG, WHITE) == {
        "a1": 11,
        "a6": 1,
        "b1": 1,
        "b2": 1,
        "b4": 1,
    }
    assert fields_of(result["final"], LONG, BLACK) == {
        "c1": 11,
        "c5": 1,
        "d1": 1,
        "d4": 1,
        "d6": 1,
    }


@pytest.mark.parametrize(
    ("text", "code", "rule", "number", "side"),
    [
        # a second head checker after the first turn
        (
            "1. 6/6 2a1—b1. 6/6 2c1—d1.\n2. 5/3 a1—a6, a1—a4.",
            "illegal_move",
            "head_rule",
            2,
            "white",
        ),
        # b1 + 6 is c1, Black's head
        (
            "1. 6/6 2a1—b1. 6/6 2c1—d1.\n2. 6/2 b1—c1, a1—a3.",
            "illegal_move",
            "point_closed",
            2,
            "white",
        ),
        ("1. 6/6 2a1—b1. 6/6 2c1—d1.\n2. 5/3 a1—a6.", "illegal_move", "must_play_both", 2, "white"),
        ("1. 6/6 2a1—b1. 6/6 Z.", "illegal_move", "must_play", 1, "black"),
    ],
)
def test_long_nardy_rules_through_the_engine(
    text: str, code: str, rule: str, number: int, side: str
) -> None:
    err = azn_error(text, LONG)
    assert where(err)[:3] == (code, number, side)
    assert err.data["rule"] == rule


def test_engine_examples_and_points_are_given_in_fields() -> None:
    err = azn_error("1. 6/6 2a1—b1. 6/6 2c1—d1.\n2. 5/3 a1—a6.", LONG)
    assert err.data["example"] == "a1—a6, a6—b3"  # 24/19 19/16
    assert "(in fields: a1—a6, a6—b3)" in err.reason
    closed = azn_error("1. 6/6 2a1—b1. 6/6 2c1—d1.\n2. 6/2 b1—c1, a1—a3.", LONG)
    assert (closed.data["field"], closed.data["token"]) == ("c1", "b1—c1")


def test_opening_dice_cannot_be_a_double_in_short_nardy() -> None:
    err = azn_error("1. 4/4 2c1—b3, 2b2—a4.")
    assert where(err) == ("illegal_turn", 1, "white", 1)
    assert err.data["rule"] == "opening_double"


def test_illegal_move_after_a_legal_start_names_its_line() -> None:
    text = "1. 5/1 c1—b2, d6—d5.\n   4/3 b6—d1.\n2. 4/4 2c1—b3,\n   2b2—a3. 3/2 b6—c5."
    err = azn_error(text)  # b2 to a3 is 5 points: no 4 does that
    assert where(err) == ("dice_mismatch", 2, "white", 4)
    assert err.data["token"] == "2b2—a3"
    assert err.data["text"] == "2b2—a3. 3/2 b6—c5."


def test_earlier_illegal_move_is_reported_before_later_unreadable_text() -> None:
    err = azn_error("1. 5/1 c1—b3. 4/3 b6—d1.\n2. 4/4 2c1—ab.")
    assert where(err) == ("dice_mismatch", 1, "white", 1)


# Positions for the end of a game and a closed board (own numbering).
BEAR_OFF_START = Position.from_points({1: 3, 7: 1}, {1: 15})
CLOSED_OUT = Position.from_points({BAR: 1, 6: 14}, {q: 2 for q in range(1, 7)} | {13: 3})


def test_star_is_checked_in_written_order() -> None:
    ok = replay_azn("1. 2/1 b1—a6*, a6—a4.", SHORT, start=BEAR_OFF_START)
    assert ok["final"]["white"]["points"] == {"4": 1, "1": 3}
    err = azn_error("1. 2/1 a6—a4 *, b1—a6.", start=BEAR_OFF_START)
    assert where(err) == ("false_home_mark", 1, "white", 1)
    assert err.data["token"] == "a6—a4"


def test_x_is_checked() -> None:
    start = Position.from_points({1: 2}, {1: 15})
    won = replay_azn("1. 2/1 2a1 X.", SHORT, start=start)
    assert (won["winner"], won["result"], won["end"]) == ("white", "mars", "bearoff")
    err = azn_error("1. 2/1 2a1 X.", start=Position.from_points({1: 3}, {1: 15}))
    assert where(err) == ("false_win_mark", 1, "white", 1)
    after = azn_error("1. 2/1 2a1 X. 6/5 a1—b6.", start=start)
    assert where(after) == ("game_over", 1, "black", 1)


def test_z_without_dice_is_a_turn_nobody_could_play() -> None:
    text = "1. ... 6/5 b6—c6, b6—c5.\n2. Z 2/1 c6—d1, c5—d1.\n3. Z"
    result = replay_azn(text, SHORT, start=CLOSED_OUT)
    assert result["turns"] == 4
    assert result["to_act"] == "black"
    assert result["final"]["black"]["points"]["6"] == 4
    with_dice = replay_azn("1. ... 6/5 b6—c6, b6—c5.\n2. 6/6 Z.", SHORT, start=CLOSED_OUT)
    assert with_dice["turns"] == 2
    refused = azn_error("1. 5/1 c1—b2, d6—d5. Z")
    assert where(refused) == ("illegal_turn", 1, "black", 1)
    assert refused.data["rule"] == "turn_playable"


def test_z_when_a_play_exists() -> None:
    err = azn_error("1. 5/1 Z.")
    assert where(err) == ("illegal_move", 1, "white", 1)
    assert err.data["rule"] == "must_play"


def test_annotations_do_not_change_the_game() -> None:
    plain = replay_azn(read("nauka_short_clean.azn"), SHORT)
    noted = replay_azn(
        read("nauka_short_clean.azn").replace("c5:d5", "c5:d5 (?)").replace("2b2—a4", "2b2—a4(!?)"),
        SHORT,
    )
    assert noted == plain
    game = parse_azn(read("nauka_short_clean.azn").replace("c5:d5", "c5:d5 (?)"), SHORT)
    assert game.turns[5].moves[0].annotations == ("(?)",)


# --- complete games in both notations ---------------------------------------------


@pytest.mark.parametrize("variant", [SHORT, LONG], ids=lambda v: v.name)
def test_complete_game_same_result_in_both_notations(variant: Variant) -> None:
    azn = read(f"{variant.name}_game.azn")
    std = read(f"{variant.name}_game.txt")
    result = replay_azn(azn, variant)
    assert result["finished"] is True
    assert result == replay(std, g.GameRules(variant)).to_dict()


def test_scoring_preset_is_applied() -> None:
    preset = get_preset("short-nauka-1980")
    azn = replay_azn(read("short_game.azn"), SHORT, preset)
    std = replay(read("short_game.txt"), g.GameRules(SHORT, scoring=preset)).to_dict()
    assert azn == std
    assert azn["multiplier"] != replay_azn(read("short_game.azn"), SHORT)["multiplier"]


# --- writing ---------------------------------------------------------------------


def test_format_writes_the_articles_style() -> None:
    game = parse_azn(read("nauka_short_clean.azn"), SHORT)
    assert format_azn(game, SHORT) == (
        "1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.\n"
        "2. 4/4 2c1—b3, 2b2—a4. 3/2 b6—c5.\n"
        "3. 6/1 c1—b1, b2—b1. 6/4 c5:d5, d1—d5.\n"
        "4. 1/6 d6, c1—b1. 6/5 b6—d5.\n"
    )


@pytest.mark.parametrize(
    ("name", "variant"),
    [
        ("nauka_short_clean.azn", SHORT),
        ("long_opening.azn", LONG),
        ("short_game.azn", SHORT),
        ("long_game.azn", LONG),
    ],
)
def test_round_trip_parse_format_parse(name: str, variant: Variant) -> None:
    game = parse_azn(read(name), variant)
    again = parse_azn(format_azn(game, variant), variant)
    assert again == game
    assert format_azn(again, variant) == format_azn(game, variant)


def test_round_trip_keeps_every_mark() -> None:
    text = "1. ... 6/6 (!) Z(?)\n2. Z 3/1 c1:b6—a6—a1*(?), 2a1 X"
    game = parse_azn(text, SHORT)
    assert parse_azn(format_azn(game, SHORT), SHORT) == game
    assert game != parse_azn(text.replace("(?), 2a1", ", 2a1"), SHORT)


def test_play_with_entry_continued_and_bear_off_split() -> None:
    # White enters on d5 with the 2 and goes on with the 6 to c5: written as
    # the entry and then the move from d5, since a lone field is the entry.
    before = Position.from_points({BAR: 1, 6: 14}, {24: 15})
    play = movegen.find_play(SHORT, before, WHITE, (6, 2), [Move(BAR, 23), Move(23, 17)])
    turn = azn_turn(SHORT, before, WHITE, (6, 2), play, 1)
    assert turn.format() == "6/2 d5, d5—c5."
    home = Position.from_points({8: 1, 2: 1}, {24: 15})
    play = movegen.find_play(SHORT, home, WHITE, (6, 2), [Move(8, 2), Move(2, OFF)])
    turn = azn_turn(SHORT, home, WHITE, (6, 2), play, 1)
    assert turn.format() == "6/2 b2—a2*, a2."


# --- random games: written in AZN, replayed, same end as the standard replay -----


def random_game(variant: Variant, seed: int) -> tuple[int, list[tuple[Any, Play]], str]:
    """A random legal game: (first mover, (dice, play) per turn, standard record)."""
    dice = SeededDice(seed)
    rng = random.Random(seed)
    state = g.opening_roll(g.new_game(g.GameRules(variant)), dice)
    assert state.turn is not None
    first = state.turn
    played: list[tuple[Any, Play]] = []
    lines = []
    while not state.finished:
        side = state.turn
        assert side is not None
        if state.phase is g.Phase.ROLL:
            state = g.roll(state, dice)
        plays = movegen.legal_plays(
            variant, state.position, side, state.dice, first_turn=state.first_turn[side]
        )
        chosen = rng.choice(plays)
        played.append((state.dice, chosen))
        lines.append(format_line(side, state.dice, chosen))
        state = g.choose_play(state, chosen)
    return first, played, "\n".join(lines) + "\n"


@pytest.mark.parametrize("variant", [SHORT, LONG], ids=lambda v: v.name)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_in_azn_replay_like_the_standard_record(variant: Variant, seed: int) -> None:
    first, played, standard = random_game(variant, seed)
    text = format_azn(played, variant, first=first)
    expected = replay(standard, g.GameRules(variant)).to_dict()
    assert expected["finished"] is True
    assert replay_azn(text, variant) == expected
    game = parse_azn(text, variant)
    assert parse_azn(format_azn(game, variant), variant) == game
    assert isinstance(game, AznGame) and len(game.turns) == len(played)
    assert game.turns[-1].won and sum(m.home for t in game.turns for m in t.moves) >= 1


def test_azn_error_is_an_engine_error() -> None:
    err = azn_error("1. 5/1 c1—ab.")
    assert isinstance(err, EngineError)
    assert err.as_dict()["code"] == "bad_field"
    assert set(err.as_dict()) >= {"code", "reason", "move_number", "side", "line", "text"}


# --- An entry that hits: its field on both sides of the colon (RULES.md §8) --------

# White on the bar; a Black blot on Black's 3, which is White's 22 (field d4).
ENTRY_HIT_START = Position.from_points({BAR: 1, 6: 14}, {3: 1, 1: 14})


def test_entry_that_hits_reads_as_its_field_on_both_sides_of_the_colon() -> None:
    (turn,) = parse_azn("1. 3/1 d4:d4, a6—a5.", SHORT).turns
    entry, move = turn.moves
    assert move.kind == MOVE
    assert (entry.kind, entry.fields, entry.hit_marks) == (ENTER, ("d4", "d4"), (True,))
    assert turn.journeys == [Move(BAR, 22, hits=(22,)), Move(6, 5)]
    assert entry.format() == "d4:d4"
    # Black enters in zone A: its a4:a4 is its own 21.
    (_, black) = parse_azn("1. 3/1 d4:d4, a6—a5. 4/2 a4:a4, a2.", SHORT).turns
    assert black.journeys[0] == Move(BAR, 21, hits=(21,))


def test_entry_that_hits_replays_and_its_mark_is_checked() -> None:
    out = replay_azn("1. 3/1 d4:d4, a6—a5.", SHORT, start=ENTRY_HIT_START)
    assert out["final"]["white"]["points"]["22"] == 1
    assert out["final"]["black"]["bar"] == 1
    # The same entry written as a lone field is the same play (an unmarked hit).
    assert replay_azn("1. 3/1 d4, a6—a5.", SHORT, start=ENTRY_HIT_START) == out
    # No blot there: the mark is false.
    no_blot = Position.from_points({BAR: 1, 6: 14}, {1: 15})
    err = azn_error("1. 3/1 d4:d4, a6—a5.", start=no_blot)
    assert (err.code, err.data["rule"]) == ("illegal_move", "false_hit")


@pytest.mark.parametrize(
    ("text", "variant"),
    [
        ("1. 3/1 b2:b2, a6—a5.", SHORT),  # b2 is not in White's entry zone
        ("1. 6/1 a1:a1.", LONG),  # long nardy has no bar
    ],
)
def test_field_on_both_sides_outside_the_entry_zone_is_refused(text: str, variant: Variant) -> None:
    err = azn_error(text, variant)
    assert err.code == "bad_lone_field"
    assert "entry that hits" in err.reason


def test_writer_marks_an_entry_that_hits_and_it_round_trips() -> None:
    play = movegen.find_play(SHORT, ENTRY_HIT_START, WHITE, (3, 1), [Move(BAR, 22), Move(6, 5)])
    assert any(step.hit for step in play.steps)
    turn = azn_turn(SHORT, ENTRY_HIT_START, WHITE, (3, 1), play, 1)
    assert turn.format() == "3/1 d4:d4, a6—a5."
    text = format_azn([((3, 1), play)], SHORT, start=ENTRY_HIT_START)
    assert text == "1. 3/1 d4:d4, a6—a5.\n"
    game = parse_azn(text, SHORT)
    assert parse_azn(format_azn(game, SHORT), SHORT) == game
    out = replay_azn(text, SHORT, start=ENTRY_HIT_START)
    assert out["final"]["black"]["bar"] == 1
    # An entry that does not hit is still a lone field.
    quiet = Position.from_points({BAR: 1, 6: 14}, {1: 15})
    plain = movegen.find_play(SHORT, quiet, WHITE, (3, 1), [Move(BAR, 22), Move(6, 5)])
    assert azn_turn(SHORT, quiet, WHITE, (3, 1), plain, 1).format() == "3/1 d4, a6—a5."
