"""`movegen.plays_reaching` and `movegen.nothing_enters` against the full
generation, and `written_play` with and without them, on random positions:
the same plays, in the same order, whenever the short way answers; and it
answers for every play of every die where it says it does (two different
dice with fewer than two checkers on the bar; a doublet unless the variant
hits and a point takes three or more opposing checkers to close)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import movegen
from engine.errors import EngineError
from engine.movegen import legal_plays, nothing_enters, plays_reaching
from engine.records import match_builder
from engine.records.match_builder import written_play
from engine.records.notation import format_play, parse_moves
from engine.rules.board import BAR, OFF, POINTS, Position
from engine.rules.plays import Move, Play
from engine.rules.variants import CHASE, DUTCH, HYPERGAMMON, NACKGAMMON, SHORT, Variant

NO_HITTING = replace(SHORT, name="test-no-hitting", hitting=False, closes_at=1)
CLOSES_AT_THREE = replace(SHORT, name="test-closes-at-three", closes_at=3)
VARIANTS = [SHORT, NACKGAMMON, HYPERGAMMON, DUTCH, CHASE, NO_HITTING, CLOSES_AT_THREE]
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]


def random_position(variant: Variant, rng: random.Random) -> Position:
    """Checkers spread at random, with blots, the bar and borne-off checkers;
    often a side all home (bear-off) or nearly so."""
    rows: list[list[int]] = []
    taken: set[int] = set()  # absolute locations of the first side's checkers
    for side in (0, 1):
        row = [0] * (BAR + 1)
        left = variant.checkers
        row[BAR] = min(left, rng.choice((0, 0, 0, 0, 1, 1, 2, 3)))
        left -= row[BAR]
        style = rng.random()
        if style < 0.35 and left:
            row[OFF] = rng.randint(0, left - 1)
            left -= row[OFF]
            highest = rng.choice((6, 6, 7, 9))
        else:
            highest = POINTS
        path = variant.geometry.paths[side]
        free = [q for q in range(1, highest + 1) if path[q - 1] not in taken]
        chosen = rng.sample(free, min(len(free), rng.randint(2, 9))) or [BAR]
        for _ in range(left):
            row[rng.choice(chosen)] += 1
        taken.update(path[q - 1] for q in chosen if q != BAR and row[q])
        rows.append(row)
    return Position((tuple(rows[0]), tuple(rows[1])))


def _row_after(position: Position, side: int, journeys: list[Move]) -> tuple[int, ...]:
    row = list(position.sides[side])
    for move in journeys:
        row[move.origin] -= 1
        row[move.dest] += 1
    return tuple(row)


def _answers_for(variant: Variant, position: Position, side: int, dice: tuple[int, int]) -> bool:
    """Where `plays_reaching` promises an answer for a play of every die."""
    if dice[0] != dice[1]:
        return position.sides[side][BAR] < 2
    return variant.closes_at <= 2 or not variant.hitting


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_the_plays_on_a_row_are_those_of_the_full_generation(variant: Variant) -> None:
    rng = random.Random(f"reaching {variant.name}")
    answered = 0
    for _ in range(1000):
        position = random_position(variant, rng)
        side = rng.randint(0, 1)
        for dice in rng.sample(ROLLS, 9):
            legal = legal_plays(variant, position, side, dice)
            waiting = position.sides[side][BAR] > 0
            assert nothing_enters(variant, position, side, dice) == (
                waiting and legal == [Play((), position)]
            )
            every_die = 4 if dice[0] == dice[1] else 2
            tries = [[Move(s.origin, s.dest) for s in play.steps] for play in legal]
            for _ in range(3):  # journeys that are no play at all, or another play's
                tries.append(
                    [
                        Move(o, rng.randint(0, o - 1))
                        for o in rng.sample(range(1, BAR + 1), rng.randint(1, 4))
                    ]
                )
            for journeys in tries:
                target = _row_after(position, side, journeys)
                expected = [p for p in legal if p.position.sides[side] == target]
                got = plays_reaching(variant, position, side, dice, journeys)
                if got is None:
                    assert not (
                        expected
                        and len(expected[0].steps) == every_die
                        and _answers_for(variant, position, side, dice)
                    ), (position, side, dice, journeys)
                    continue
                answered += 1
                assert got == expected, (position, side, dice, journeys)
    assert answered > 10_000  # most of them


def test_the_other_variants_and_a_play_of_fewer_dice_are_left_to_the_generator() -> None:
    from engine.rules.variants import LONG, PLAKOTO

    start = LONG.start_position()
    assert plays_reaching(LONG, start, 0, (6, 5), [Move(24, 13)]) is None
    assert plays_reaching(PLAKOTO, PLAKOTO.start_position(), 0, (6, 5), [Move(24, 13)]) is None
    # White's last checker on the 2 point, 6-5: one die bears it off.
    last = Position((((14,) + (0, 1) + (0,) * 23), (0,) * 25 + (15,)))
    assert plays_reaching(SHORT, last, 0, (6, 5), [Move(2, OFF)]) is None
    with pytest.raises(ValueError):
        plays_reaching(SHORT, start, 0, (7, 1), [Move(24, 17)])


def _outcome(
    variant: Variant, position: Position, side: int, dice: tuple[int, int], moves: list[Move]
) -> Play | tuple[str, str, dict[str, object]]:
    try:
        return written_play(variant, position, side, dice, moves)
    except EngineError as error:
        return (error.code, error.reason, dict(error.data))


@pytest.mark.parametrize("variant", [SHORT, NACKGAMMON, CLOSES_AT_THREE], ids=lambda v: v.name)
def test_written_play_reads_the_same_without_the_short_way(
    variant: Variant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written forms (as GNU Backgammon writes each legal play, with its hits
    starred or not, and odd journeys) read to the same play or refusal."""
    rng = random.Random(f"written {variant.name}")
    cases = []
    for _ in range(250):
        position = random_position(variant, rng)
        side = rng.randint(0, 1)
        dice = rng.choice(ROLLS)
        legal = legal_plays(variant, position, side, dice)
        for play in rng.sample(legal, min(len(legal), 4)):
            text = format_play(play)
            cases.append((position, side, dice, parse_moves(text)))
            cases.append((position, side, dice, parse_moves(text.replace("*", ""))))
            cases.append((position, side, dice, [Move(s.origin, s.dest) for s in play.steps]))
        cases.append(
            (position, side, dice, [Move(o, max(0, o - rng.randint(1, 12))) for o in (24, 13)])
        )
        cases.append((position, side, dice, []))
    fast = [_outcome(variant, *case) for case in cases]
    monkeypatch.setattr(movegen, "plays_reaching", lambda *args: None)
    monkeypatch.setattr(movegen, "nothing_enters", lambda *args: False)
    monkeypatch.setattr(match_builder, "_plain_share", lambda *args: None)
    full = [_outcome(variant, *case) for case in cases]
    assert fast == full
    assert sum(isinstance(outcome, Play) for outcome in fast) > len(cases) // 2
