"""GNU Backgammon's Position ID and Match ID.

Position ID: 14 base64 characters of an 80-bit key.  For each side in turn,
for its points 1..24 and then its bar, as many 1 bits as it has checkers
there followed by a 0 bit; bits fill each byte from the least significant
end.  The first half of the key is the side *not* on roll, the second half
the side on roll: that is how GNU Backgammon's code and evaluator read it
(its manual's worked example calls the first half "player on roll", but
the start position is symmetric and the program itself treats the second
half as the mover).

Match ID: 12 base64 characters of a 72-bit key laid out as the manual's
"A technical description of the Match ID" describes, plus bit 67 (set when
the Jacoby rule is *off*) that newer GNU Backgammon versions write.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from engine.errors import PositionIdError
from engine.rules.board import BAR, OFF, OPPOSITE, SLOTS, WHITE, Position, other
from engine.rules.variants import SHORT, Variant

_ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_INDEX: Final = {c: i for i, c in enumerate(_ALPHABET)}

POSITION_ID_LENGTH: Final = 14
MATCH_ID_LENGTH: Final = 12
_POSITION_KEY_BITS: Final = 80
_MATCH_KEY_BITS: Final = 72
MAX_CHECKERS: Final = 15  # per side: more would not fit in the 80-bit key


def _to_base64(key: int, key_bits: int, chars: int) -> str:
    """The little-endian ``key`` as GNU Backgammon writes it: standard base64
    of its bytes, padding dropped."""
    # The C encoder: every stored turn's position is written this way.
    return base64.b64encode(key.to_bytes(key_bits // 8, "little")).decode("ascii")[:chars]


def _from_base64(text: str, key_bits: int, chars: int, what: str) -> int:
    text = text.strip()
    if len(text) != chars:
        raise PositionIdError(
            "bad_id_length",
            f"a {what} has {chars} characters, not {len(text)}",
            expected=chars,
            length=len(text),
        )
    n = 0
    for i, c in enumerate(text):
        if c not in _INDEX:
            raise PositionIdError(
                "bad_character",
                f"character {c!r} at position {i + 1} of the {what} is not base64",
                character=c,
                offset=i,
            )
        n = n << 6 | _INDEX[c]
    spare = chars * 6 - key_bits
    if n & ((1 << spare) - 1):
        raise PositionIdError(
            "trailing_bits", f"the {what} has bits set past the end of its key", id=text
        )
    return int.from_bytes((n >> spare).to_bytes(key_bits // 8, "big"), "little")


# --- Position ID -----------------------------------------------------------


def encode_position_id(position: Position, mover: int = WHITE) -> str:
    """GNU Backgammon's Position ID of ``position`` with ``mover`` on roll."""
    key = 0
    bit = 0
    for side in (other(mover), mover):
        row = position.sides[side]
        if sum(row[1:SLOTS]) > MAX_CHECKERS:
            raise PositionIdError(
                "too_many_checkers",
                f"{sum(row[1:SLOTS])} checkers on the board for one side; a Position ID holds at most {MAX_CHECKERS}",
                side=side,
            )
        for q in range(1, BAR + 1):
            key |= ((1 << row[q]) - 1) << bit
            bit += row[q] + 1
    return _to_base64(key, _POSITION_KEY_BITS, POSITION_ID_LENGTH)


def decode_position_id(
    pid: str, checkers: int | None = None, *, variant: Variant = SHORT
) -> Position:
    """The position a Position ID describes: WHITE is the side on roll.

    ``checkers`` is each side's total (default the variant's: 15, or 3 for
    Hypergammon); those not on the board are borne off.  A key that is not
    a possible position of ``variant`` is refused (``_check_possible``).
    """
    if checkers is None:
        checkers = variant.checkers
    if not 1 <= checkers <= MAX_CHECKERS:
        raise ValueError(f"checkers must be 1..{MAX_CHECKERS}, not {checkers}")
    key = _from_base64(pid, _POSITION_KEY_BITS, POSITION_ID_LENGTH, "Position ID")
    rows: list[tuple[int, ...]] = []
    bit = 0
    for half in range(2):
        row = [0] * SLOTS
        for q in range(1, BAR + 1):
            while key >> bit & 1:
                row[q] += 1
                bit += 1
                # With at most 15 per side the walk never leaves the 80 bits.
                if sum(row) > checkers:
                    raise PositionIdError(
                        "too_many_checkers",
                        f"the Position ID puts more than {checkers} checkers of one side on the board",
                        checkers=checkers,
                        on_roll=half == 1,
                    )
            bit += 1
        row[OFF] = checkers - sum(row)
        rows.append(tuple(row))
    if key >> bit:
        raise PositionIdError(
            "trailing_bits",
            "the Position ID has bits set past the end of the position",
            id=pid.strip(),
        )
    # The second half is the side on roll: it becomes WHITE.
    position = Position(sides=(rows[1], rows[0]))
    _check_possible(position, variant)
    return position


def _check_possible(position: Position, variant: Variant) -> None:
    """Refuse what no game of ``variant`` can reach, as GNU Backgammon's
    ``CheckPosition`` does for backgammon (which also counts checkers, done
    while decoding): both colours on one point, both sides on the bar
    against closed home boards (nobody could ever move); checkers on the
    bar where nothing is hit (the long family, plakoto: pinned checkers
    share a point there, so only hitting variants are checked for that);
    and both sides borne off (the game ends when the first side is)."""
    white, black = position.sides
    if not variant.hitting and (white[BAR] or black[BAR]):
        raise PositionIdError(
            "bar_not_allowed",
            f"the Position ID puts checkers on the bar, which {variant.name} does not have",
            variant=variant.name,
        )
    if not variant.pinning:
        cross = variant.geometry.cross[WHITE]
        for q in range(1, BAR):
            if white[q] and black[cross[q]]:
                raise PositionIdError(
                    "shared_point",
                    f"the Position ID puts checkers of both colours on point {q} "
                    "(numbered for the side on roll)",
                    point=q,
                )
    if white[OFF] == black[OFF] == sum(white):
        raise PositionIdError(
            "both_borne_off", "the Position ID has both sides with every checker borne off"
        )
    if (
        variant.geometry is OPPOSITE
        and white[BAR]
        and black[BAR]
        and all(
            white[q] >= variant.closes_at and black[q] >= variant.closes_at for q in range(1, 7)
        )
    ):
        raise PositionIdError(
            "both_closed_out",
            "the Position ID has both sides on the bar against closed home boards",
        )


# --- Match ID --------------------------------------------------------------


class GameState(IntEnum):
    NONE = 0  # no game started
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4  # ended by a passed double


class Resign(IntEnum):
    NONE = 0
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


_MAX_15_BITS: Final = (1 << 15) - 1


@dataclass(frozen=True, slots=True)
class MatchKey:
    """Everything a GNU Backgammon Match ID holds.

    Players are 0 and 1 as in GNU Backgammon.  ``on_roll`` is the player who
    rolls or rolled (bit 7); ``turn`` the player who must act now (bit 12:
    after a double, the player deciding on it).  ``dice`` is ``(0, 0)``
    before the roll.  ``length`` 0 is a money game.
    """

    cube: int = 1
    cube_owner: int | None = None  # None: centred
    on_roll: int = 0
    crawford: bool = False
    state: GameState = GameState.PLAYING
    turn: int = 0
    doubled: bool = False
    resigned: Resign = Resign.NONE
    dice: tuple[int, int] = (0, 0)
    length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = True

    def __post_init__(self) -> None:
        if self.cube < 1 or self.cube & (self.cube - 1) or self.cube > 1 << 15:
            raise PositionIdError(
                "bad_cube",
                f"cube value {self.cube} is not a power of two up to 32768",
                cube=self.cube,
            )
        if self.cube_owner not in (None, 0, 1):
            raise PositionIdError(
                "bad_cube_owner",
                f"cube owner {self.cube_owner} is not centred, player 0 or player 1",
                cube_owner=self.cube_owner,
            )
        if self.on_roll not in (0, 1) or self.turn not in (0, 1):
            raise PositionIdError(
                "bad_player",
                "the player on roll and the player to act must each be 0 or 1",
                on_roll=self.on_roll,
                turn=self.turn,
            )
        d1, d2 = self.dice
        if not (0 <= d1 <= 6 and 0 <= d2 <= 6) or (d1 == 0) != (d2 == 0):
            raise PositionIdError(
                "bad_dice",
                f"dice {d1}-{d2} are neither two values 1..6 nor not rolled (0-0)",
                dice=self.dice,
            )
        if not 0 <= self.length <= _MAX_15_BITS:
            raise PositionIdError(
                "bad_match_length",
                f"match length {self.length} is not 0 (money) .. {_MAX_15_BITS}",
                length=self.length,
            )
        if not all(0 <= s <= _MAX_15_BITS for s in self.score):
            raise PositionIdError(
                "bad_score", f"score {self.score} is outside 0..{_MAX_15_BITS}", score=self.score
            )


_CUBE_OWNER_CENTRED: Final = 3  # the owner bits 11


def encode_match_id(key: MatchKey) -> str:
    """GNU Backgammon's Match ID of ``key``; like GNU Backgammon it writes the
    larger die first (a rolled 1-2 reads back as ``dice == (2, 1)``)."""
    fields = (
        (key.cube.bit_length() - 1, 4),
        (_CUBE_OWNER_CENTRED if key.cube_owner is None else key.cube_owner, 2),
        (key.on_roll, 1),
        (int(key.crawford), 1),
        (int(key.state), 3),
        (key.turn, 1),
        (int(key.doubled), 1),
        (int(key.resigned), 2),
        (max(key.dice), 3),
        (min(key.dice), 3),
        (key.length, 15),
        (key.score[0], 15),
        (key.score[1], 15),
        (int(not key.jacoby), 1),
    )
    n = 0
    bit = 0
    for value, width in fields:
        n |= value << bit
        bit += width
    return _to_base64(n, _MATCH_KEY_BITS, MATCH_ID_LENGTH)


def decode_match_id(mid: str) -> MatchKey:
    n = _from_base64(mid, _MATCH_KEY_BITS, MATCH_ID_LENGTH, "Match ID")
    bit = 0

    def take(width: int) -> int:
        nonlocal bit
        value = n >> bit & ((1 << width) - 1)
        bit += width
        return value

    cube = 1 << take(4)
    owner = take(2)
    on_roll = take(1)
    crawford = bool(take(1))
    state = take(3)
    turn = take(1)
    doubled = bool(take(1))
    resigned = Resign(take(2))
    dice = (take(3), take(3))
    length = take(15)
    score = (take(15), take(15))
    jacoby = not take(1)
    if n >> bit:
        raise PositionIdError(
            "trailing_bits", "the Match ID has bits set past the end of its key", id=mid.strip()
        )
    if owner == 2:
        raise PositionIdError(
            "bad_cube_owner", "the Match ID's cube owner bits are 10, which means nothing"
        )
    if state > max(GameState):
        raise PositionIdError(
            "bad_game_state", f"game state {state} in the Match ID is not 0..4", state=state
        )
    key = MatchKey(
        cube=cube,
        cube_owner=None if owner == _CUBE_OWNER_CENTRED else owner,
        on_roll=on_roll,
        crawford=crawford,
        state=GameState(state),
        turn=turn,
        doubled=doubled,
        resigned=resigned,
        dice=dice,
        length=length,
        score=score,
        jacoby=jacoby,
    )
    _check_possible_match(key)
    return key


def _check_possible_match(key: MatchKey) -> None:
    """Refuse field values that each fit their bits but no match reaches: a
    Crawford money game, a Crawford game where nobody needs one point or
    with the cube turned or offered, both players past the match length, a
    double pending after the roll or together with a resignation, a cube
    at 1 that somebody owns."""
    if key.crawford and not key.length:
        raise PositionIdError("crawford_in_money", "a money game has no Crawford game")
    if key.crawford and key.length - 1 not in key.score:
        raise PositionIdError(
            "crawford_score",
            f"a Crawford game where neither player needs one point "
            f"({key.score[0]}-{key.score[1]} to {key.length})",
            length=key.length,
            score=list(key.score),
        )
    if key.crawford and (key.cube > 1 or key.doubled):
        raise PositionIdError(
            "cube_in_crawford",
            "the cube cannot be turned or offered in the Crawford game",
            cube=key.cube,
            doubled=key.doubled,
        )
    if key.length and min(key.score) >= key.length:
        raise PositionIdError(
            "both_won",
            f"both players have reached the match length ({key.score[0]}-{key.score[1]} "
            f"to {key.length})",
            length=key.length,
            score=list(key.score),
        )
    if key.doubled and key.dice != (0, 0):
        raise PositionIdError(
            "double_after_roll",
            "a double is offered before the roll, but the dice are rolled",
            dice=list(key.dice),
        )
    if key.doubled and key.resigned is not Resign.NONE:
        raise PositionIdError(
            "double_and_resign", "a double and a resignation cannot both be pending"
        )
    if key.cube == 1 and key.cube_owner is not None:
        raise PositionIdError(
            "owned_cube_of_one",
            "a cube at 1 belongs to nobody: only a taken double gives it an owner",
            cube_owner=key.cube_owner,
        )
