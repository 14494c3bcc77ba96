"""Standard notation: parsing, formatting, and agreement with GNU Backgammon."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import gnubg
import gnubg_nn
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import NotationError
from engine.records.notation import (
    format_moves,
    format_play,
    format_turn,
    parse_moves,
    parse_turn,
    play_journeys,
)
from engine.rules.board import BAR, OFF, SLOTS, Position
from engine.rules.plays import Move, Play, Step

GnubgBoard = tuple[list[int], list[int]]
GnubgMove = tuple[tuple[int, int], ...]


# --- parsing -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8/4", [Move(8, 4)]),
        ("8/4 6/4", [Move(8, 4), Move(6, 4)]),
        ("8/4,6/4", [Move(8, 4), Move(6, 4)]),
        ("8/4(2)", [Move(8, 4), Move(8, 4)]),
        ("8/4*(2)", [Move(8, 4, hits=(4,))] * 2),
        ("13/7*", [Move(13, 7, hits=(7,))]),
        ("13/7*/5", [Move(13, 5, via=(7,), hits=(7,))]),
        ("24/18/13", [Move(24, 13, via=(18,))]),
        ("bar/22", [Move(BAR, 22)]),
        ("Bar/22", [Move(BAR, 22)]),
        ("BAR/22", [Move(BAR, 22)]),
        ("Бар/22", [Move(BAR, 22)]),
        ("бар/22*", [Move(BAR, 22, hits=(22,))]),
        ("b/22", [Move(BAR, 22)]),
        ("25/22", [Move(BAR, 22)]),
        ("6/off", [Move(6, OFF)]),
        ("6/Off 5/0", [Move(6, OFF), Move(5, OFF)]),
        ("Ø", []),
        ("ø", []),
        ("0", []),
        ("-", []),
        ("", []),
        ("   ", []),
        ("6/off Ø", [Move(6, OFF)]),
        ("  8 / 4 * ( 2 ) ,  6/2 ", [Move(8, 4, hits=(4,))] * 2 + [Move(6, 2)]),
        ("24/20/16/12/8", [Move(24, 8, via=(20, 16, 12))]),
        ("bar/20*/14", [Move(BAR, 14, via=(20,), hits=(20,))]),
    ],
)
def test_parse_moves(text: str, expected: list[Move]) -> None:
    assert parse_moves(text) == expected


@pytest.mark.parametrize(
    ("text", "code", "token", "offset"),
    [
        ("8/x", "bad_token", "8/x", 0),
        ("13/8 84", "bad_token", "84", 5),
        ("8/", "bad_token", "8/", 0),
        ("13*/7", "bad_token", "13*/7", 0),
        ("8/4)", "bad_token", "8/4)", 0),
        ("6/off*", "bad_token", "6/off*", 0),
        ("13/8 30/24", "point_out_of_range", "30/24", 5),
        ("off/3", "point_out_of_range", "off/3", 0),
        ("8/bar", "point_out_of_range", "8/bar", 0),
        ("8/4(7)", "bad_repeat", "8/4(7)", 0),
        ("8/4(0)", "bad_repeat", "8/4(0)", 0),
        ("6/2 8/4(x)", "bad_repeat", "8/4(x)", 4),
        ("8/4(2", "bad_repeat", "8/4(2", 0),
        ("6/2, 4/8", "backwards", "4/8", 5),
        ("8/8", "backwards", "8/8", 0),
        ("13/5/7", "backwards", "13/5/7", 0),
    ],
)
def test_parse_errors(text: str, code: str, token: str, offset: int) -> None:
    with pytest.raises(NotationError) as info:
        parse_moves(text)
    err = info.value
    assert (err.code, err.data["token"], err.data["offset"]) == (code, token, offset)
    assert repr(token) in err.reason and f"character {offset + 1}" in err.reason


@pytest.mark.parametrize(
    ("text", "dice", "moves"),
    [
        ("5-2: 13/8 6/4", (5, 2), [Move(13, 8), Move(6, 4)]),
        ("52: 13/8 6/4", (5, 2), [Move(13, 8), Move(6, 4)]),
        ("  3-1 :8/5 6/5", (3, 1), [Move(8, 5), Move(6, 5)]),
        ("?-?: 13/8", None, [Move(13, 8)]),
        ("6-6: Ø", (6, 6), []),
        ("6-5:", (6, 5), []),
    ],
)
def test_parse_turn(text: str, dice: tuple[int, ...] | None, moves: list[Move]) -> None:
    assert parse_turn(text) == (dice, moves)


@pytest.mark.parametrize(
    ("text", "code", "offset"),
    [
        ("5-2 13/8", "bad_turn", 0),
        ("7-2: 13/8", "bad_dice", 0),
        (" 5?: 13/8", "bad_dice", 1),
        ("five: 13/8", "bad_dice", 0),
        ("5-2: 13/8 6/x", "bad_token", 10),
    ],
)
def test_parse_turn_errors(text: str, code: str, offset: int) -> None:
    with pytest.raises(NotationError) as info:
        parse_turn(text)
    assert (info.value.code, info.value.data["offset"]) == (code, offset)


# --- formatting ----------------------------------------------------------------


def play_of(*steps: tuple[int, int, bool]) -> Play:
    empty = Position(((0,) * SLOTS, (0,) * SLOTS))
    return Play(tuple(Step(o, d, o - d if d else o, hit) for o, d, hit in steps), empty)


@pytest.mark.parametrize(
    ("play", "text"),
    [
        (play_of(), "Ø"),
        (play_of((8, 5, False), (6, 5, False)), "8/5 6/5"),
        (play_of((6, 5, False), (8, 5, False)), "8/5 6/5"),
        (play_of((24, 18, False), (18, 13, False)), "24/13"),
        (play_of((13, 7, True), (7, 5, False)), "13/7*/5"),
        (play_of((13, 7, True), (8, 7, False)), "13/7* 8/7"),
        (play_of((6, 4, False), (4, 2, False), (6, 4, False), (4, 2, False)), "6/2(2)"),
        (play_of((25, 22, True), (25, 20, False)), "bar/22* bar/20"),
        (play_of((6, 0, False), (5, 0, False)), "6/off 5/off"),
        (play_of((13, 9, False), (13, 9, False), (9, 5, False)), "13/5 13/9"),
    ],
)
def test_format_play(play: Play, text: str) -> None:
    assert format_play(play) == text


def test_format_turn() -> None:
    assert format_turn((3, 1), play_of((8, 5, False), (6, 5, False))) == "3-1: 8/5 6/5"
    assert format_turn(None, play_of()) == "?-?: Ø"


def test_format_moves_is_canonical() -> None:
    typed = parse_moves("6/5  Bar/22* 8/5,8/5 b/22*")
    assert format_moves(typed) == "bar/22*(2) 8/5(2) 6/5"
    assert format_moves([]) == "Ø"


@st.composite
def journeys(draw: st.DrawFn) -> Move:
    origin = draw(st.integers(1, BAR))
    dest = draw(st.integers(OFF, origin - 1))
    low, high = max(dest + 1, 1), min(origin - 1, 24)
    inner = st.sets(st.integers(low, high), max_size=3) if low <= high else st.just(set())
    via = sorted(draw(inner), reverse=True)
    hittable = [q for q in (*via, dest) if q != OFF]
    hits = tuple(q for q in hittable if draw(st.booleans()))
    return Move(origin, dest, via=tuple(via), hits=hits)


@given(st.lists(journeys(), max_size=6))
def test_format_moves_parses_back(moves: list[Move]) -> None:
    assert Counter(parse_moves(format_moves(moves))) == Counter(moves)


# --- GNU Backgammon agreement ----------------------------------------------------


def random_board(rng: random.Random, bear_off: bool) -> GnubgBoard:
    """A valid backgammon board in gnubg's layout ([0] opponent, [1] mover),
    with blots and bar checkers common; ``bear_off`` keeps the mover home."""
    board = ([0] * 25, [0] * 25)
    # The mover goes first when kept home, so the opponent cannot fill its home.
    for side in (1, 0) if bear_off else (0, 1):
        for _ in range(rng.randint(1, 15)):
            while True:
                if side == 1 and bear_off:
                    i = rng.randrange(6)
                else:
                    i = 24 if rng.random() < 0.05 else rng.randrange(24)
                if i == 24 or not board[1 - side][23 - i]:
                    board[side][i] += 1
                    break
    return board


def play_from_gnubg(board: GnubgBoard, move: GnubgMove, dice: tuple[int, int]) -> Play:
    """Our Play of a gnubg move tuple: hits, dice and the resulting position
    worked out by replaying the steps on the board."""
    mover = [0, *board[1]]  # own numbering, index 25 = bar
    opponent = [0, *board[0]]
    steps = []
    for origin, dest in move:
        hit = dest != OFF and opponent[25 - dest] == 1
        if hit:
            opponent[25 - dest] -= 1
            opponent[BAR] += 1
        mover[origin] -= 1
        mover[dest] += 1
        die = origin - dest if dest else min(d for d in dice if d >= origin)
        steps.append(Step(origin, dest, die, hit))
    off_mover = 15 - sum(board[1])
    off_opponent = 15 - sum(board[0])
    mover[OFF] += off_mover
    opponent[OFF] = off_opponent
    return Play(tuple(steps), Position((tuple(mover), tuple(opponent))))


def start_position(board: GnubgBoard) -> Position:
    rows = [(15 - sum(board[s]), *board[s]) for s in (1, 0)]
    return Position((rows[0], rows[1]))


def apply_moves(position: Position, moves: list[Move]) -> tuple[int, ...]:
    row = list(position.sides[0])
    for mv in moves:
        row[mv.origin] -= 1
        row[mv.dest] += 1
    return tuple(row)


def hops(moves: list[Move]) -> list[tuple[int, int]]:
    out = []
    for mv in moves:
        points = (mv.origin, *mv.via, mv.dest)
        out += list(itertools.pairwise(points))
    return sorted(out)


def test_format_play_agrees_with_gnubg() -> None:
    rng = random.Random(1)
    compared = agreed = 0
    features: Counter[str] = Counter()
    for n in range(1500):
        board = random_board(rng, bear_off=n % 5 == 0)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        for _key, move in gnubg_nn.moves(board, dice[0], dice[1], 1):
            play = play_from_gnubg(board, move, dice)
            ours = format_play(play)
            theirs = gnubg.move_tuple_to_string(move, board)
            compared += 1
            agreed += ours == theirs
            assert ours == theirs, (board, move)
            # The text describes the same checker journeys: applied to the
            # start it gives the play's result, it stars exactly the hit
            # points, and gnubg reads the same hops from it.
            parsed = parse_moves(ours)
            assert apply_moves(start_position(board), parsed) == play.position.sides[0]
            assert {q for mv in parsed for q in mv.hits} == {s.dest for s in play.steps if s.hit}
            assert hops(parsed) == sorted(gnubg.parse_move(ours))
            features.update(t for t in ("*", "*/", "bar", "off", "(") if t in ours)
    assert compared == agreed > 20000
    # The sample exercises every feature of the notation.
    assert min(features[t] for t in ("*", "*/", "bar", "off", "(")) >= 100, features


def test_empty_play_differs_from_gnubg_deliberately() -> None:
    start = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
    assert gnubg.move_tuple_to_string((), (start, start)) == ""
    assert format_play(play_of()) == "Ø"


def test_play_journeys_keep_only_hit_intermediates() -> None:
    play = play_of((24, 20, False), (20, 16, True), (16, 12, False), (12, 8, False))
    assert play_journeys(play) == [(24, 16, 8)]
    assert format_play(play) == "24/16*/8"


def test_three_dice_and_six_equal_moves_parse() -> None:
    dice, moves = parse_turn("3-3-3: 13/10(6)")
    assert dice == (3, 3, 3)
    assert len(moves) == 6 and all((m.origin, m.dest) == (13, 10) for m in moves)
