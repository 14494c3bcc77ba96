"""GNU Backgammon Position ID and Match ID, checked against the gnubg package."""

from __future__ import annotations

import base64
import random
from dataclasses import replace

import gnubg
import gnubg_nn
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.errors import PositionIdError
from engine.records.gnubgid import (
    GameState,
    MatchKey,
    Resign,
    decode_match_id,
    decode_position_id,
    encode_match_id,
    encode_position_id,
)
from engine.rules.board import BAR, BLACK, OFF, SLOTS, WHITE, Position
from engine.rules.variants import HYPERGAMMON, LONG, NACKGAMMON, SHORT

GnubgBoard = tuple[list[int], list[int]]


def random_backgammon_board(rng: random.Random, checkers: int = 15) -> GnubgBoard:
    """A valid backgammon board in gnubg's layout: [0] the opponent, [1] the
    side on roll, index 0..23 = points 1..24, 24 = bar; no point holds both,
    and not both sides are borne off (gnubg's module reads that empty board,
    which no game reaches; decode_position_id refuses it)."""
    while True:
        board = ([0] * 25, [0] * 25)
        for side in (0, 1):
            for _ in range(rng.randint(0, checkers)):
                while True:
                    i = 24 if rng.random() < 0.06 else rng.randrange(24)
                    if i == 24 or not board[1 - side][23 - i]:
                        board[side][i] += 1
                        break
        if any(board[0]) or any(board[1]):
            return board


def to_position(board: GnubgBoard, checkers: int = 15) -> Position:
    """Our Position of a gnubg board: WHITE is gnubg's side on roll."""
    rows = []
    for counts in (board[1], board[0]):
        row = [0] * SLOTS
        row[1:SLOTS] = counts
        row[OFF] = checkers - sum(counts)
        rows.append(tuple(row))
    return Position((rows[0], rows[1]))


def swapped(position: Position) -> Position:
    return Position((position.sides[BLACK], position.sides[WHITE]), position.extra)


def id_from_bits(bits: list[int], chars: int) -> str:
    """An ID built straight from its bit string, with the base64 module:
    bits fill bytes from the least significant end, padding dropped."""
    data = bytearray(chars * 6 // 8)
    for i, bit in enumerate(bits):
        data[i // 8] |= bit << (i % 8)
    return base64.b64encode(bytes(data)).decode()[:chars]


def unary_bits(rows: list[list[int]]) -> list[int]:
    bits: list[int] = []
    for row in rows:
        for n in row:
            bits += [1] * n + [0]
    return bits


# --- Position ID -----------------------------------------------------------


def test_start_position_of_short_nardy() -> None:
    start = SHORT.start_position()
    assert encode_position_id(start) == "4HPwATDgc/ABMA"
    assert encode_position_id(start, BLACK) == "4HPwATDgc/ABMA"
    assert decode_position_id("4HPwATDgc/ABMA") == start


def test_known_ids_of_other_starts() -> None:
    # Values gnubg writes for these starts (nackgammon: gnubg's own variant).
    assert encode_position_id(NACKGAMMON.start_position()) == "4Dl4ADbgOXgANg"
    assert encode_position_id(HYPERGAMMON.start_position()) == "AACgAgAAKgAAAA"
    assert decode_position_id("AACgAgAAKgAAAA", checkers=3) == HYPERGAMMON.start_position()


def test_side_on_roll_is_the_second_half_of_the_key() -> None:
    # White on roll: one checker on its 1; Black: two on its 23.
    position = Position.from_points({1: 1}, {23: 2})
    pid = encode_position_id(position, WHITE)
    assert pid == gnubg.position_id(([0] * 22 + [2, 0, 0], [1] + [0] * 24))
    assert decode_position_id(pid) == position
    assert decode_position_id(encode_position_id(position, BLACK)) == swapped(position)
    # gnubg's evaluator agrees on who is on roll: the side with 1 checker left wins.
    assert gnubg.evaluate(gnubg.position_from_id(pid))[0] > 0.99


def test_long_nardy_positions_round_trip() -> None:
    # Each side in its own numbering; both on their 24 is fine here, and so
    # is a point that would hold both colours under backgammon's geometry
    # (White's 1 and Black's 24).
    start = LONG.start_position()
    assert decode_position_id(encode_position_id(start), variant=LONG) == start
    crossing = Position.from_points({1: 3, 24: 12}, {24: 10, 14: 5})
    for mover in (WHITE, BLACK):
        pid = encode_position_id(crossing, mover)
        got = decode_position_id(pid, variant=LONG)
        assert (got if mover == WHITE else swapped(got)) == crossing
    with pytest.raises(PositionIdError) as info:
        decode_position_id(encode_position_id(crossing))
    assert info.value.code == "shared_point"


def rows(
    checkers: int, blocked: frozenset[int] = frozenset()
) -> st.SearchStrategy[tuple[int, ...]]:
    """One side: up to ``checkers`` spread over the bar and points not in
    ``blocked``, the rest off."""
    places = [q for q in range(1, BAR + 1) if q not in blocked]

    @st.composite
    def build(draw: st.DrawFn) -> tuple[int, ...]:
        row = [0] * SLOTS
        for _ in range(draw(st.integers(0, checkers))):
            row[draw(st.sampled_from(places))] += 1
        row[OFF] = checkers - sum(row)
        return tuple(row)

    return build()


@st.composite
def backgammon_positions(draw: st.DrawFn, checkers: int) -> Position:
    """A position GNU Backgammon accepts: no point holds both colours, not
    both sides borne off, not both on the bar against closed boards."""
    white = draw(rows(checkers))
    taken = frozenset(25 - q for q in range(1, BAR) if white[q])
    black = draw(rows(checkers, taken))
    position = Position((white, black))
    closed = all(white[q] >= 2 and black[q] >= 2 for q in range(1, 7))
    assume(not (white[OFF] == black[OFF] == checkers))
    assume(not (closed and white[BAR] and black[BAR]))
    return position


@pytest.mark.parametrize("checkers", [15, 3])
@given(data=st.data())
def test_round_trip(checkers: int, data: st.DataObject) -> None:
    position = data.draw(backgammon_positions(checkers))
    pid = encode_position_id(position)
    assert len(pid) == 14
    assert decode_position_id(pid, checkers) == position
    assert decode_position_id(encode_position_id(position, BLACK), checkers) == swapped(position)


def test_against_gnubg_on_random_boards() -> None:
    rng = random.Random(20240611)
    compared = 0
    for _ in range(3000):
        board = random_backgammon_board(rng)
        position = to_position(board)
        pid = encode_position_id(position)
        assert pid == gnubg.position_id(board), board
        assert pid == gnubg_nn.position_id([list(board[0]), list(board[1])])
        back = gnubg.position_from_id(pid)
        assert decode_position_id(pid) == to_position((list(back[0]), list(back[1])))
        compared += 1
    assert compared == 3000


def test_hypergammon_against_gnubg() -> None:
    rng = random.Random(3)
    for _ in range(500):
        board = random_backgammon_board(rng, checkers=3)
        pid = gnubg.position_id(board)
        assert decode_position_id(pid, checkers=3) == to_position(board, checkers=3)
        assert encode_position_id(to_position(board, checkers=3)) == pid


@pytest.mark.parametrize(
    ("pid", "checkers", "code"),
    [
        ("4HPwATDgc/ABM", 15, "bad_id_length"),
        ("4HPwATDgc/ABMAA", 15, "bad_id_length"),
        ("4HPwATDgc/AB!A", 15, "bad_character"),
        ("4HPwATDgc/ABMA", 3, "too_many_checkers"),
        # The last character's low four bits lie past the 80-bit key.
        ("4HPwATDgc/ABMB", 15, "trailing_bits"),
        # 16 checkers on one point of the first side.
        (id_from_bits(unary_bits([[16] + [0] * 24, [0] * 25]), 14), 15, "too_many_checkers"),
        # A 1 bit after both sides' 25 points: not a position.
        (id_from_bits([*unary_bits([[0] * 25, [0] * 25]), 1], 14), 15, "trailing_bits"),
    ],
)
def test_malformed_position_ids(pid: str, checkers: int, code: str) -> None:
    with pytest.raises(PositionIdError) as info:
        decode_position_id(pid, checkers)
    assert info.value.code == code
    assert info.value.reason


def test_bad_character_names_its_place() -> None:
    with pytest.raises(PositionIdError) as info:
        decode_position_id("4HPwATDgc?ABMA")
    assert info.value.data == {"character": "?", "offset": 9}


def test_unary_helper_agrees_with_encoder() -> None:
    # The test's own bit builder reproduces the start ID, so the malformed
    # cases above are built the same way the real IDs are.
    start = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
    assert id_from_bits(unary_bits([start, start]), 14) == "4HPwATDgc/ABMA"


def test_encoding_too_many_checkers_is_refused() -> None:
    crowded = Position.from_points({6: 16}, {}, total=16)
    with pytest.raises(PositionIdError) as info:
        encode_position_id(crowded)
    assert info.value.code == "too_many_checkers"


# --- Match ID --------------------------------------------------------------


def test_manual_example_match_id() -> None:
    # GNU Backgammon manual, "A technical description of the Match ID":
    # "assume the score is 2-4 in a 9 point match with player 0 holding a
    # 2-cube, and player 1 has just rolled 52" -> QYkqASAAIAAA.  The manual
    # predates bit 67, which is 0 while the Jacoby rule is on.
    key = MatchKey(
        cube=2,
        cube_owner=0,
        on_roll=1,
        turn=1,
        state=GameState.PLAYING,
        dice=(5, 2),
        length=9,
        score=(2, 4),
    )
    assert encode_match_id(key) == "QYkqASAAIAAA"
    assert decode_match_id("QYkqASAAIAAA") == key


def test_money_game_before_the_first_roll() -> None:
    assert encode_match_id(MatchKey(state=GameState.NONE)) == "MAAAAAAAAAAA"
    assert decode_match_id("MAAAAAAAAAAA") == MatchKey(state=GameState.NONE)


def random_match_key(rng: random.Random) -> MatchKey:
    # gnubg's match equity table stops at 64 points: longer matches crash it.
    length = rng.choice([0, 0, 1, 2, 3, 5, 7, 9, 11, 13, 15, 17, 21, 25, 64])
    score = (rng.randrange(length), rng.randrange(length)) if length else (0, 0)
    # Only keys a match can reach (decode_match_id refuses the others): the
    # Crawford game has a player one point away and an untouched cube; a
    # double is offered before rolling and never with a resignation; a
    # cube at 1 is centred.
    crawford = bool(length) and rng.random() < 0.3
    if crawford:
        score = (length - 1, score[1]) if rng.random() < 0.5 else (score[0], length - 1)
    cube = 1 if crawford else 1 << rng.randrange(16)
    doubled = not crawford and rng.random() < 0.3
    rolled = not doubled and rng.random() < 0.6
    return MatchKey(
        cube=cube,
        cube_owner=None if cube == 1 else rng.choice([None, 0, 1]),
        on_roll=rng.randrange(2),
        crawford=crawford,
        state=GameState(rng.randrange(5)),
        turn=rng.randrange(2),
        doubled=doubled,
        resigned=Resign.NONE if doubled else Resign(rng.randrange(4)),
        dice=(rng.randint(1, 6), rng.randint(1, 6)) if rolled else (0, 0),
        length=length,
        score=score,
        jacoby=rng.random() < 0.5,
    )


def gnubg_match_id(key: MatchKey) -> str:
    cube = gnubg.cubeinfo(
        key.cube,
        -1 if key.cube_owner is None else key.cube_owner,
        key.on_roll,
        key.length,
        key.score,
        int(key.crawford),
        0,
    )
    cube["jacoby"] = int(key.jacoby)
    pos = gnubg.posinfo(key.turn, int(key.resigned), int(key.doubled), int(key.state), key.dice)
    result: str = gnubg.match_id(cube, pos)
    return result


def test_match_ids_against_gnubg() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        key = random_match_key(rng)
        expected = gnubg_match_id(key)
        assert encode_match_id(key) == expected, key
        # gnubg writes the larger die first.
        assert decode_match_id(expected) == replace(key, dice=(max(key.dice), min(key.dice)))


def test_larger_die_is_written_first() -> None:
    rolled = MatchKey(dice=(1, 2))
    assert encode_match_id(rolled) == encode_match_id(MatchKey(dice=(2, 1))) == "MAEFAAAAAAAA"
    assert decode_match_id("MAEFAAAAAAAA").dice == (2, 1)


def test_widest_fields_follow_the_documented_layout() -> None:
    # Beyond what the gnubg oracle accepts: build the key from the manual's
    # bit layout (each field least significant bit first).
    key = MatchKey(
        cube=1 << 15,
        cube_owner=1,
        on_roll=1,
        crawford=True,
        state=GameState.DROPPED,
        turn=0,
        doubled=True,
        resigned=Resign.GAMMON,
        dice=(6, 6),
        length=32767,
        score=(32766, 1000),
        jacoby=False,
    )

    def lsb_first(value: int, width: int) -> list[int]:
        return [value >> i & 1 for i in range(width)]

    bits = (
        lsb_first(15, 4)
        + lsb_first(1, 2)
        + [1, 1]
        + lsb_first(4, 3)
        + [0, 1]
        + lsb_first(2, 2)
        + lsb_first(6, 3) * 2
        + lsb_first(32767, 15)
        + lsb_first(32766, 15)
        + lsb_first(1000, 15)
        + [1]
    )
    assert encode_match_id(key) == id_from_bits(bits, 12)
    # That key turns the cube in the Crawford game and offers a double after
    # the roll: the decoder refuses it; the same widths without those read back.
    with pytest.raises(PositionIdError) as info:
        decode_match_id(encode_match_id(key))
    assert info.value.code == "cube_in_crawford"
    possible = replace(key, crawford=False, doubled=False)
    assert decode_match_id(encode_match_id(possible)) == possible


@pytest.mark.parametrize(
    ("mid", "code"),
    [
        ("QYkqASAAIAA", "bad_id_length"),
        ("QYkqASAAIAA=", "bad_character"),
        ("QYkqASAAIAAg", "trailing_bits"),  # bit 72 set
        (id_from_bits([0] * 4 + [0, 1], 12), "bad_cube_owner"),  # owner bits 10
        (id_from_bits([0] * 6 + [0, 0] + [1, 0, 1], 12), "bad_game_state"),  # state 5
        (id_from_bits([0] * 15 + [1, 1, 1] + [1, 0, 0], 12), "bad_dice"),  # a 7
        (id_from_bits([0] * 15 + [1, 0, 0] + [0, 0, 0], 12), "bad_dice"),  # 1 and not rolled
    ],
)
def test_malformed_match_ids(mid: str, code: str) -> None:
    with pytest.raises(PositionIdError) as info:
        decode_match_id(mid)
    assert info.value.code == code


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"cube": 3}, "bad_cube"),
        ({"cube": 1 << 16}, "bad_cube"),
        ({"cube_owner": 2}, "bad_cube_owner"),
        ({"on_roll": 2}, "bad_player"),
        ({"dice": (0, 4)}, "bad_dice"),
        ({"length": 1 << 15}, "bad_match_length"),
        ({"score": (0, -1)}, "bad_score"),
    ],
)
def test_invalid_match_keys(fields: dict[str, object], code: str) -> None:
    with pytest.raises(PositionIdError) as info:
        MatchKey(**fields)  # type: ignore[arg-type]
    assert info.value.code == code


# --- Impossible positions and match keys (issue 12) ----------------------------


def gnubg_accepts(pid: str) -> bool:
    try:
        gnubg.position_from_id(pid)
    except ValueError:
        return False
    return True


CLOSED_HOME = {q: 2 for q in range(1, 7)}


@pytest.mark.parametrize(
    ("position", "code"),
    [
        # White's 6 is Black's 19: both colours on one point.
        (Position.from_points({6: 1}, {19: 1}), "shared_point"),
        (Position.from_points({24: 2}, {1: 1}), "shared_point"),
        # Both on the bar, both home boards closed: nobody can ever move.
        (
            Position.from_points({**CLOSED_HOME, BAR: 1}, {**CLOSED_HOME, BAR: 1}),
            "both_closed_out",
        ),
    ],
)
def test_positions_gnubg_refuses_are_refused(position: Position, code: str) -> None:
    pid = encode_position_id(position)
    assert not gnubg_accepts(pid)
    with pytest.raises(PositionIdError) as info:
        decode_position_id(pid)
    assert info.value.code == code
    assert info.value.reason


def test_more_than_fifteen_checkers_is_refused_like_gnubg() -> None:
    pid = id_from_bits(unary_bits([[8] + [0] * 23 + [8], [0] * 25]), 14)
    assert not gnubg_accepts(pid)
    with pytest.raises(PositionIdError) as info:
        decode_position_id(pid)
    assert info.value.code == "too_many_checkers"


def test_one_closed_board_or_one_side_on_the_bar_is_a_position() -> None:
    for position in (
        Position.from_points({**CLOSED_HOME, BAR: 1}, {**CLOSED_HOME}),
        Position.from_points({**CLOSED_HOME, BAR: 1}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, BAR: 1}),
    ):
        pid = encode_position_id(position)
        assert gnubg_accepts(pid)
        assert decode_position_id(pid) == position


def test_both_sides_borne_off_is_refused() -> None:
    # GNU Backgammon's module reads the empty board; no game reaches it (the
    # game ends when the first side bears off its last checker).
    assert gnubg_accepts("AAAAAAAAAAAAAA")
    with pytest.raises(PositionIdError) as info:
        decode_position_id("AAAAAAAAAAAAAA")
    assert info.value.code == "both_borne_off"
    # One side finished is the final position of a game: accepted.
    finished = Position.from_points({}, {6: 3})
    assert decode_position_id(encode_position_id(finished)) == finished


def test_checkers_on_the_bar_are_refused_in_long_nardy() -> None:
    on_bar = Position.from_points({24: 14, BAR: 1}, {24: 15})
    pid = encode_position_id(on_bar)
    assert decode_position_id(pid) == on_bar  # a backgammon position
    with pytest.raises(PositionIdError) as info:
        decode_position_id(pid, variant=LONG)
    assert info.value.code == "bar_not_allowed"
    assert info.value.data == {"variant": "long"}


def test_long_nardy_geometry_decides_shared_points() -> None:
    # White's 1 is Black's 13 in long nardy (SAME_DIRECTION): one location.
    shared = Position.from_points({1: 1, 24: 14}, {13: 1, 24: 14})
    with pytest.raises(PositionIdError) as info:
        decode_position_id(encode_position_id(shared), variant=LONG)
    assert (info.value.code, info.value.data) == ("shared_point", {"point": 1})


def counts(slots: list[int]) -> list[int]:
    row = [0] * 25
    for i in slots:
        row[i] += 1
    return row


@settings(max_examples=300, deadline=None)
@given(
    white_slots=st.lists(st.integers(0, 24), max_size=16),
    black_slots=st.lists(st.integers(0, 24), max_size=14),
)
def test_refusals_agree_with_gnubg(white_slots: list[int], black_slots: list[int]) -> None:
    """Random keys, possible or not (up to 16 checkers on the first side, so
    that too many checkers occur, and the 80 bits never overflow): the
    decoder refuses exactly the IDs GNU Backgammon refuses, besides the
    empty board."""
    white, black = counts(white_slots), counts(black_slots)
    pid = id_from_bits(unary_bits([white, black]), 14)
    try:
        decode_position_id(pid)
    except PositionIdError as error:
        accepted = False
        code = error.code
    else:
        accepted, code = True, ""
    if code == "both_borne_off":
        return
    assert accepted == gnubg_accepts(pid), (white, black, code)


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"crawford": True}, "crawford_in_money"),
        ({"crawford": True, "length": 7, "score": (3, 4)}, "crawford_score"),
        ({"crawford": True, "length": 7, "score": (6, 4), "cube": 2}, "cube_in_crawford"),
        ({"crawford": True, "length": 7, "score": (6, 4), "doubled": True}, "cube_in_crawford"),
        ({"length": 7, "score": (7, 8)}, "both_won"),
        ({"doubled": True, "dice": (3, 1)}, "double_after_roll"),
        ({"doubled": True, "resigned": Resign.SINGLE}, "double_and_resign"),
        ({"cube_owner": 0}, "owned_cube_of_one"),
    ],
)
def test_impossible_match_ids_are_refused(fields: dict[str, object], code: str) -> None:
    mid = encode_match_id(MatchKey(**fields))  # type: ignore[arg-type]
    with pytest.raises(PositionIdError) as info:
        decode_match_id(mid)
    assert info.value.code == code
    assert info.value.reason


def test_possible_neighbours_of_the_refused_match_ids_read_back() -> None:
    for key in (
        MatchKey(crawford=True, length=7, score=(6, 4)),
        MatchKey(length=7, score=(7, 4), state=GameState.OVER),
        MatchKey(doubled=True, turn=1),
        MatchKey(cube=2, cube_owner=0),
    ):
        assert decode_match_id(encode_match_id(key)) == key
