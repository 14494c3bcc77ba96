from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gnubg_nn
import pytest

from engine import movegen
from engine.cli import main
from engine.records.gnubgid import decode_position_id, encode_position_id
from engine.records.notation import format_play, parse_moves
from engine.records.replay import position_dict
from engine.rules import game as g
from engine.rules.board import BAR, WHITE, Position
from engine.rules.dice import SeededDice
from engine.rules.scoring import PRESETS
from engine.rules.variants import HYPERGAMMON, LONG, SHORT, VARIANTS, Variant
from tests.engine.test_replay import random_record

START_ID = "4HPwATDgc/ABMA"
ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> tuple[int, Any]:
    """``python -m engine ARGS``: exit status and the JSON it printed (stdout only)."""
    proc = subprocess.run(
        [sys.executable, "-m", "engine", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        check=False,
    )
    assert proc.stderr == ""
    return proc.returncode, json.loads(proc.stdout)


def run_inline(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    code = main(list(args))
    out = capsys.readouterr()
    assert out.err == ""
    return code, json.loads(out.out)


def gnubg_ids(pid: str, dice: tuple[int, int]) -> set[str]:
    """GNU Backgammon's Position IDs after every legal play (mover kept on roll)."""
    board = gnubg_nn.board_from_position_id(pid)
    keys = gnubg_nn.moves(board, dice[0], dice[1])
    if not keys:
        return {pid}
    return {
        gnubg_nn.position_id([list(half) for half in gnubg_nn.board_from_position_key(k)])
        for k in keys
    }


def test_plays_from_the_start() -> None:
    code, plays = run("plays", "--variant", "short", "--position", START_ID, "--dice", "3-1")
    assert code == 0
    by_notation = {p["notation"]: p["position"] for p in plays}
    assert "8/5 6/5" in by_notation
    assert by_notation["8/5 6/5"] == "4HPwATCwZ/ABMA"
    assert len(by_notation) == len(plays)
    assert {p["position"] for p in plays} == gnubg_ids(START_ID, (3, 1))


def test_plays_match_gnubg_along_random_games(capsys: pytest.CaptureFixture[str]) -> None:
    for variant in (SHORT, HYPERGAMMON):
        rng = random.Random(5)
        dice = SeededDice(5)
        compared = 0
        for _ in range(4):
            state = g.opening_roll(g.new_game(g.GameRules(variant)), dice)
            while not state.finished:
                if state.phase is g.Phase.ROLL:
                    state = g.roll(state, dice)
                side = state.turn
                assert side is not None
                # The position as seen by the mover: it becomes WHITE in the ID.
                pid = encode_position_id(state.position, mover=side)
                roll = (state.dice[0], state.dice[1])
                code, plays = run_inline(
                    capsys,
                    "plays",
                    "--variant",
                    variant.name,
                    "--position",
                    pid,
                    "--dice",
                    f"{roll[0]}-{roll[1]}",
                )
                assert code == 0
                assert {p["position"] for p in plays} == gnubg_ids(pid, roll), (pid, roll)
                compared += 1
                state = g.choose_play(state, rng.choice(g.legal_plays(state)))
        assert compared > 50


def test_nothing_playable(capsys: pytest.CaptureFixture[str]) -> None:
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 3}
    pid = encode_position_id(Position.from_points({BAR: 1, 6: 14}, closed), mover=WHITE)
    code, plays = run_inline(
        capsys, "plays", "--variant", "short", "--position", pid, "--dice", "6-6"
    )
    assert code == 0
    assert plays == [{"notation": "Ø", "position": pid}]


def test_long_first_turn_from_an_id(capsys: pytest.CaptureFixture[str]) -> None:
    pid = encode_position_id(LONG.start_position(), mover=WHITE)
    code, plays = run_inline(
        capsys, "plays", "--variant", "long", "--position", pid, "--dice", "6-6"
    )
    assert code == 0
    # RULES §5: on the first roll 6-6 takes two checkers off the head to 18.
    assert [p["notation"] for p in plays] == ["24/18(2)"]
    # Later in a game (not all 15 on the head) one checker leaves the head.
    later = Position.from_points({24: 14, 23: 1}, {24: 15})
    pid = encode_position_id(later, mover=WHITE)
    code, plays = run_inline(
        capsys, "plays", "--variant", "long", "--position", pid, "--dice", "6-6"
    )
    assert code == 0
    assert plays
    assert all(decode_position_id(p["position"]).side(WHITE)[24] == 13 for p in plays)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (
            ["plays", "--variant", "short", "--position", "4HPwATDgc/ABM", "--dice", "3-1"],
            "bad_id_length",
        ),
        (
            ["plays", "--variant", "short", "--position", "4HPwATDgc/AB!A", "--dice", "3-1"],
            "bad_character",
        ),
        (["plays", "--variant", "short", "--position", START_ID, "--dice", "3-7"], "invalid_dice"),
        (["plays", "--variant", "short", "--position", START_ID, "--dice", "3"], "invalid_dice"),
        (
            ["plays", "--variant", "shortish", "--position", START_ID, "--dice", "3-1"],
            "unknown_variant",
        ),
        (["plays", "--variant", "short", "--position", START_ID], "usage"),
        (["moves"], "usage"),
        ([], "usage"),
        (["replay", "/nonexistent/game.txt", "--variant", "short"], "unreadable_file"),
    ],
)
def test_bad_input_exits_2_with_json(args: list[str], code: str) -> None:
    status, out = run(*args)
    assert status == 2
    assert set(out) == {"error"}
    assert out["error"]["code"] == code
    assert out["error"]["reason"]


def test_hypergammon_ids_hold_three_checkers(capsys: pytest.CaptureFixture[str]) -> None:
    pid = encode_position_id(HYPERGAMMON.start_position(), mover=WHITE)
    code, plays = run_inline(
        capsys, "plays", "--variant", "hypergammon", "--position", pid, "--dice", "2-1"
    )
    assert code == 0
    assert {p["position"] for p in plays} == gnubg_ids(pid, (2, 1))
    code, out = run_inline(
        capsys, "plays", "--variant", "hypergammon", "--position", START_ID, "--dice", "2-1"
    )
    assert code == 2
    assert out["error"]["code"] == "too_many_checkers"


def expected_json(state: g.GameState, turns: int) -> dict[str, Any]:
    result = state.result
    assert result is not None
    return {
        "winner": ("white", "black")[result.winner],
        "result": result.result_name,
        "multiplier": result.multiplier,
        "cube": result.cube,
        "points": result.points,
        "turns": turns,
        "final": position_dict(state.position),
    }


@pytest.mark.parametrize(
    ("variant", "seed", "cube"),
    [(SHORT, 11, False), (SHORT, 11, True), (LONG, 12, False)],
    ids=["short", "short-cube", "long"],
)
def test_replay_full_games(tmp_path: Path, variant: Variant, seed: int, cube: bool) -> None:
    rules = g.GameRules(variant)
    text, state, turns = random_record(rules, seed, cube=cube)
    path = tmp_path / "game.txt"
    path.write_text(text, encoding="utf-8")
    code, out = run("replay", str(path), "--variant", variant.name)
    assert code == 0
    expected = expected_json(state, turns)
    assert {k: out[k] for k in expected} == expected
    assert state.result is not None and out["end"] == state.result.end
    if not cube:  # played to the last checker
        assert out["end"] == "bearoff"
        assert out["final"][out["winner"]]["off"] == variant.checkers


def test_replay_with_another_ruleset(tmp_path: Path) -> None:
    rules = g.GameRules(LONG)
    for seed in range(40):
        text, state, _ = random_record(rules, seed)
        assert state.result is not None
        if state.result.multiplier > 1:  # the loser bore off nothing
            break
    else:
        pytest.fail("no mars in 40 random long games")
    path = tmp_path / "long.txt"
    path.write_text(text, encoding="utf-8")
    code, out = run("replay", str(path), "--variant", "long")
    assert code == 0
    assert (out["result"], out["multiplier"]) == (state.result.result_name, state.result.multiplier)
    code, out = run("replay", str(path), "--variant", "long", "--ruleset", "single")
    assert code == 0
    assert (out["result"], out["multiplier"], out["points"]) == ("single", 1, 1)
    code, out = run("replay", str(path), "--variant", "long", "--ruleset", "no-such")
    assert code == 2 and out["error"]["code"] == "unknown_preset"


def test_replay_errors_and_partial_records(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(
        "# a game\nW 3-1: 8/5 6/5\n\nB 6-4: 24/18 13/9\nW 5-2: 13/8 13/10\n", encoding="utf-8"
    )
    code, out = run("replay", str(path), "--variant", "short")
    assert code == 2
    error = out["error"]
    assert (error["turn"], error["line"], error["text"]) == (3, 5, "W 5-2: 13/8 13/10")
    assert error["code"] and error["reason"]

    path.write_text("W 3-1: 8/5 6/5\nB 6-4: 24/18 13/9\n", encoding="utf-8")
    code, out = run("replay", str(path), "--variant", "short")
    assert code == 0
    assert out["winner"] is None and out["finished"] is False
    assert out["turns"] == 2 and out["to_act"] == "white"
    assert out["final"]["white"]["points"] == {"24": 2, "13": 5, "8": 2, "6": 4, "5": 2}
    assert out["final"]["black"]["points"] == {"18": 1, "24": 1, "13": 4, "9": 1, "8": 3, "6": 5}


def test_replay_starts_with_whoever_moves_first(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "black.txt"
    path.write_text("B 4-2: 8/4 6/4\nW 6-6: 24/18(2) 13/7(2)\n", encoding="utf-8")
    code, out = run_inline(capsys, "replay", str(path), "--variant", "short")
    assert code == 0
    assert out["to_act"] == "black"
    assert out["final"]["black"]["points"]["4"] == 2
    assert out["final"]["white"]["points"]["7"] == 2


# --- every variant -----------------------------------------------------------------


def test_help_lists_every_variant_and_soldier_classes() -> None:
    for args in (["--help"], ["replay", "--help"], ["plays", "--help"]):
        proc = subprocess.run(
            [sys.executable, "-m", "engine", *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=ROOT,
            check=False,
        )
        assert proc.returncode == 0
        text = " ".join(proc.stdout.split())
        for name in VARIANTS:
            assert name in text
        # Soldiers' positions are texts, not IDs: the help says how to ask for its plays
        assert "Soldiers" in text and "--variant soldiers" in text


# Soldiers reads a position text, not a Position ID (its own tests below).
@pytest.mark.parametrize("name", sorted(n for n, v in VARIANTS.items() if not v.checker_classes))
def test_plays_in_every_variant(capsys: pytest.CaptureFixture[str], name: str) -> None:
    variant = VARIANTS[name]
    pid = encode_position_id(variant.start_position(), mover=WHITE)
    dice = "5-5-4" if variant.dice == 3 else "5-4"
    code, plays = run_inline(capsys, "plays", "--variant", name, "--position", pid, "--dice", dice)
    assert code == 0
    position = decode_position_id(pid, checkers=variant.checkers)
    first = movegen.is_first_turn(variant, position, WHITE)
    roll = tuple(int(d) for d in dice.split("-"))
    expected = movegen.legal_plays(variant, position, WHITE, roll, first_turn=first)
    assert sorted(p["notation"] for p in plays) == sorted(format_play(p) for p in expected)
    assert all(p["notation"] != "Ø" for p in plays)


def test_garanquet_needs_three_dice(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_inline(
        capsys, "plays", "--variant", "garanquet", "--position", START_ID, "--dice", "5-4"
    )
    assert (code, out["error"]["code"]) == (2, "invalid_dice")
    code, out = run_inline(
        capsys, "plays", "--variant", "short", "--position", START_ID, "--dice", "5-5-4"
    )
    assert (code, out["error"]["code"]) == (2, "invalid_dice")
    # 5-5-4: the fives count as a doublet (RULES §3): four fives and the four,
    # 24 pips; 5-5-6 does not: 16 pips.
    for dice, pips in (("5-5-4", 24), ("5-5-6", 16), ("2-2-2", 12)):
        code, plays = run_inline(
            capsys, "plays", "--variant", "garanquet", "--position", START_ID, "--dice", dice
        )
        assert code == 0 and plays
        for p in plays:
            # Six equal moves are written (5)/(6), beyond parse_moves' (4): spell them out.
            spelt = re.sub(
                r"(\S+)\(([56])\)", lambda m: " ".join([m[1]] * int(m[2])), p["notation"]
            )
            moved = sum(m.origin - m.dest for m in parse_moves(spelt))
            assert moved == pips, (dice, p["notation"])


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_replay_with_a_ruleset_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    game = write(tmp_path, "g.txt", "W 6-5: 24/13\nB resigns koks\nW accepts\n")
    preset = {
        "name": "fed",
        "rules": [{"name": "koks", "multiplier": 5, "conditions": ["on_start"]}],
    }
    fed = write(tmp_path, "fed.json", json.dumps(preset))
    code, out = run_inline(capsys, "replay", game, "--variant", "long", "--ruleset-file", fed)
    assert code == 0
    assert (out["result"], out["points"], out["end"]) == ("koks", 5, "resign")
    bad = write(tmp_path, "bad.json", json.dumps({**preset, "rules": [{"name": "k"}]}))
    code, out = run_inline(capsys, "replay", game, "--variant", "long", "--ruleset-file", bad)
    assert (code, out["error"]["code"], out["error"]["rule"]) == (2, "bad_multiplier", 0)
    broken = write(tmp_path, "broken.json", "{")
    code, out = run_inline(capsys, "replay", game, "--variant", "long", "--ruleset-file", broken)
    assert (code, out["error"]["code"]) == (2, "bad_preset_file")
    code, out = run_inline(
        capsys, "replay", game, "--variant", "long", "--ruleset", "single", "--ruleset-file", fed
    )
    assert (code, out["error"]["code"]) == (2, "usage")


def test_replay_needs_a_variant_except_for_mat(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    game = write(tmp_path, "g.txt", "W 6-5: 24/13\n")
    for fmt in ("std", "azn"):
        code, out = run_inline(capsys, "replay", game, "--format", fmt)
        assert (code, out["error"]["code"]) == (2, "usage")
        assert "--variant" in out["error"]["reason"]
    code, out = run_inline(capsys, "replay", game, "--format", "mat", "--variant", "short")
    assert (code, out["error"]["code"]) == (2, "usage")
    code, out = run_inline(capsys, "replay", game, "--variant", "short", "--format", "gnu")
    assert (code, out["error"]["code"]) == (2, "usage")


class _Calls:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def __call__(self, *args: Any) -> dict[str, Any]:
        self.calls.append(args)
        return {"ok": len(self.calls)}


def test_replay_dispatches_by_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    azn, mat = _Calls(), _Calls()
    monkeypatch.setitem(sys.modules, "engine.records.azn_replay", SimpleNamespace(replay_azn=azn))
    monkeypatch.setitem(sys.modules, "engine.records.matfile", SimpleNamespace(replay_mat=mat))
    record = write(tmp_path, "game.txt", "1. 5/1 c1-b2\n")
    code, out = run_inline(
        capsys, "replay", record, "--format", "azn", "--variant", "long", "--ruleset", "single"
    )
    assert (code, out) == (0, {"ok": 1})
    assert azn.calls == [("1. 5/1 c1-b2\n", VARIANTS["long"], PRESETS["single"])]
    match_file = write(tmp_path, "match.MAT", " 5 point match\n")
    code, out = run_inline(capsys, "replay", match_file)  # the name says mat
    assert (code, out) == (0, {"ok": 1})
    code, out = run_inline(capsys, "replay", record, "--format", "mat")
    assert (code, out) == (0, {"ok": 2})
    assert mat.calls == [(" 5 point match\n",), ("1. 5/1 c1-b2\n",)]


def test_a_missing_importer_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "engine.records.azn_replay", None)
    record = write(tmp_path, "game.txt", "1. 5/1 c1-b2\n")
    code, out = run_inline(capsys, "replay", record, "--format", "azn", "--variant", "long")
    assert (code, out["error"]["code"], out["error"]["module"]) == (
        2,
        "format_unavailable",
        "engine.records.azn_replay",
    )


def test_replay_formats_through_the_real_importers(tmp_path: Path) -> None:
    std = write(tmp_path, "g.txt", "W 5-1: 13/8 24/23\nB 4-3: 13/6\n")
    azn = write(tmp_path, "g.azn", "1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.\n")
    code, from_std = run("replay", std, "--variant", "short")
    assert code == 0
    code, from_azn = run("replay", azn, "--variant", "short", "--format", "azn")
    assert (code, from_azn) == (0, from_std)
    bad = write(tmp_path, "bad.azn", "1. 5/1 c1—b2, d6—d5. 4/3 b6—d1.\n2. 6/5 ab—b1.\n")
    code, out = run("replay", bad, "--variant", "short", "--format", "azn")
    assert (code, out["error"]["line"]) == (2, 2)

    mat = (
        " 1 point match\n\n Game 1\n Alice : 0                      Bob : 0\n"
        "  1) 31: 8/5 6/5                64: 24/18 13/9\n"
        "  2)                            Wins 1 point and the match\n"
    )
    code, out = run("replay", write(tmp_path, "m.mat", mat))
    assert code == 0
    assert (out["match_length"], out["players"], out["final_score"]) == (
        1,
        ["Alice", "Bob"],
        [0, 1],
    )
    illegal = mat.replace("8/5 6/5", "8/4 6/5")
    code, out = run("replay", write(tmp_path, "m.txt", illegal), "--format", "mat")
    assert (code, out["error"]["line"]) == (2, 5)


def test_replay_mat_prints_galaxys_dialects_as_warnings(tmp_path: Path) -> None:
    """Bob's account is gone (no name) and he left the match: the match imports,
    Alice wins it, and the JSON keeps each warning with its line, code and data."""
    mat = (
        " 5 point match\n\n Game 1\n Alice : 0                      : 0\n"
        "  1) 31: 8/5 6/5                64: 24/18 13/9\n"
        "  2)  Losses 5 point                                     Wins 5 point and the match\n"
    )
    code, out = run("replay", write(tmp_path, "galaxy.txt", mat), "--format", "mat")
    assert code == 0
    assert (out["players"], out["winner"], out["resigned"], out["final_score"]) == (
        ["Alice", ""],
        2,
        1,
        [0, 5],
    )
    assert [(w["line"], w["code"], w["data"]) for w in out["warnings"]] == [
        (4, "empty_name", {"player": 2}),
        (6, "wrong_points", {"written": 5, "expected": 3}),
        (6, "match_resigned", {"resigner": 1, "game": 1}),
    ]
    assert out["games"][0]["points"] == 3 and out["games"][0]["stated_points"] == 5
