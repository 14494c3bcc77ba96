"""Notation (§8 with classes), scoring (§6), the record and its refused
exports, and the CLI (RULES.md §3.1)."""

from __future__ import annotations

import json
import random

import pytest

from engine.cli import main
from engine.errors import EngineError, IllegalPlay, NotationError
from engine.rules.scoring import get_preset
from engine.soldiers import plays_json, result
from engine.soldiers.army import GENERAL, GUARD, PAWN
from engine.soldiers.notation import (
    SoldierMove,
    find_play,
    format_play,
    format_turn,
    parse_moves,
)
from engine.soldiers.plays import legal_plays
from engine.soldiers.record import (
    SoldiersRecordError,
    new_record,
    record_from_dict,
    refuse_export,
    with_turn,
)
from engine.soldiers.state import parse_position, start_position
from tests.engine.soldiers.helpers import pos

START_TEXT = start_position().text()


def test_class_letters_are_read_before_the_from_point() -> None:
    assert parse_moves("G13/7 K6/10 D8/5* 13/7*/5 Kbar/22 6/off(2)") == [
        SoldierMove(GUARD, (13, 7)),
        SoldierMove(GENERAL, (6, 10)),
        SoldierMove(2, (8, 5), (5,)),
        SoldierMove(PAWN, (13, 7, 5), (7,)),
        SoldierMove(GENERAL, (25, 22)),
        SoldierMove(PAWN, (6, 0)),
        SoldierMove(PAWN, (6, 0)),
    ]
    assert parse_moves("Ø") == [] and parse_moves("P13/8") == [SoldierMove(PAWN, (13, 8))]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("13/15", "backwards"),  # only a general moves up
        ("G6/10", "backwards"),
        ("X13/7", "bad_token"),
        ("13/7(9)", "bad_repeat"),
        ("off/3", "point_out_of_range"),
        ("13/bar", "point_out_of_range"),
        ("13/30", "point_out_of_range"),
        ("6/off*", "bad_token"),
    ],
)
def test_bad_notation_is_refused_with_a_code(text: str, code: str) -> None:
    with pytest.raises(NotationError) as err:
        parse_moves(text)
    assert err.value.code == code


def test_a_guard_capture_marks_only_the_capturing_landing() -> None:
    play = find_play(pos("W: P10 P8 | B: G19 P21x2 | W"), (4, 2), "8/6 10/6")
    assert format_play(play) == "10/6 8/6*"
    assert format_turn((4, 2), play) == "4-2: 10/6 8/6*"


def test_a_general_turning_keeps_its_turning_point() -> None:
    play = find_play(pos("W: K10 | B: P1 | W"), (3, 3), "K10/7/10/7/10")
    assert len(play.steps) == 4 and play.position.text().startswith("W: K10 ")
    assert format_play(play) == "K10/4/10"  # the stored path: 10/7/4/7/10, turning at 4


def test_a_play_that_is_not_legal_is_refused() -> None:
    with pytest.raises(IllegalPlay) as err:
        find_play(start_position(), (6, 5), "G13/1")
    assert err.value.code == "illegal_play"


def test_every_play_of_random_positions_reads_back_from_its_notation() -> None:
    rng = random.Random(21)
    position = start_position()
    checked = 0
    for _ in range(120):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        found = legal_plays(position, dice)
        for play in found[:25]:
            assert find_play(position, dice, format_play(play)) == play
            checked += 1
        position = rng.choice(found).position
        if position.off(0) == 15 or position.off(1) == 15:
            position = start_position()
    assert checked > 1000


def test_scoring_uses_the_short_standard_preset() -> None:
    assert result(pos("W: P6 | B: P1 | W")) is None
    # black has none off and a checker in white's home (its 19..24): koks
    assert result(pos("W: | B: P24 P13x14 | B")) == (0, "koks", 3)
    assert result(pos("W: | B: P13x15 | B")) == (0, "mars", 2)
    assert result(pos("W: | B: P13x14 | B")) == (0, "single", 1)
    assert result(pos("W: P13x14 | B: | W")) == (1, "single", 1)
    assert result(pos("W: | B: P13x15 | B"), get_preset("single")) == (0, "single", 1)


def test_the_record_keeps_classes_and_pins_and_replays() -> None:
    record = new_record()
    record = with_turn(record, (6, 5), "K24/13")
    record = with_turn(record, (3, 1), "D8/5 6/5")
    data = json.loads(json.dumps(record.to_dict()))
    assert data["start"] == START_TEXT
    assert data["turns"][0] == {
        "dice": [6, 5],
        "play": "K24/13",
        "position": "W: P24 K13 G13 P13x4 D8 P8x2 E6 O6 P6x3 | "
        "B: K24 P24 G13 P13x4 D8 P8x2 E6 O6 P6x3 | B",
    }
    again = record_from_dict(data)
    assert again == record
    assert again.positions()[-1].text() == data["turns"][-1]["position"]


def test_a_record_whose_position_does_not_follow_is_refused() -> None:
    data = with_turn(new_record(), (6, 5), "K24/13").to_dict()
    data["turns"][0]["position"] = START_TEXT
    with pytest.raises(SoldiersRecordError) as err:
        record_from_dict(data)
    assert err.value.code == "position_mismatch" and err.value.data["turn"] == 0


@pytest.mark.parametrize("fmt", ["position_id", "mat", "sgf"])
def test_exports_that_cannot_hold_classes_are_refused_with_the_reason(fmt: str) -> None:
    with pytest.raises(EngineError) as err:
        refuse_export(fmt)
    assert err.value.code == "export_unsupported"
    assert err.value.data == {"format": fmt, "variant": "soldiers", "lost": ["classes", "pins"]}


def test_the_cli_prints_every_play_with_its_canonical_position(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["plays", "--variant", "soldiers", "--position", START_TEXT, "--dice", "6-5"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out == plays_json(START_TEXT, (6, 5))
    plays = legal_plays(parse_position(START_TEXT), (6, 5))
    assert [p["notation"] for p in out] == [format_play(p) for p in plays]
    general_run = find_play(parse_position(START_TEXT), (6, 5), "K24/13")
    assert {"notation": "K24/13", "position": general_run.position.text()} in out
    for entry in out:
        assert parse_position(entry["position"]).text() == entry["position"]
        assert entry["position"].endswith("| B")


@pytest.mark.parametrize(
    ("position", "dice", "code"),
    [
        ("W: K24 | B: K24", "6-5", "bad_position_text"),
        (START_TEXT, "6-5-4", "invalid_dice"),
        (START_TEXT, "7-1", "invalid_dice"),
    ],
)
def test_the_cli_refuses_bad_input_with_a_code(
    capsys: pytest.CaptureFixture[str], position: str, dice: str, code: str
) -> None:
    status = main(["plays", "--variant", "soldiers", "--position", position, "--dice", dice])
    assert status == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == code
