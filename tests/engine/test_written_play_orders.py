"""A play the legal plays hold is read back from its written form (long nardy).

Notation writes a play by journeys (GNU Backgammon's grouping): "19/9" for a
checker's 19/14 and another's 14/9.  Under long nardy's six-block rule, which holds
after every single step ("even in passing", RULES §3), the order of the steps can
matter: 14/9 first, then 20/15 leaves 14 empty, and no six-block is made; 20/15
while 14 is still held makes one.  The reader must find that order too, or a
legal play recorded as text is refused when it is replayed.
"""

from __future__ import annotations

import pytest

from engine import movegen
from engine.errors import IllegalPlay
from engine.records.notation import format_play, parse_moves
from engine.rules.board import Position
from engine.rules.variants import get_variant

LONG = get_variant("long")

# Found by an engine-driven player (games.demo_player) building blocks; side 0 to play.
POSITIONS = [
    (
        Position(
            sides=(
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 7, 0),
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 7, 0),
            ),
            extra=(),
        ),
        (5, 5),
    ),
    (
        Position(
            sides=(
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 6, 0),
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 2, 1, 5, 0),
            ),
            extra=(),
        ),
        (1, 1),
    ),
]


@pytest.mark.parametrize(("position", "dice"), POSITIONS)
def test_every_legal_play_reads_back_from_its_written_form(
    position: Position, dice: tuple[int, int]
) -> None:
    plays = movegen.legal_plays(LONG, position, 0, dice)
    assert plays
    for play in plays:
        written = format_play(play)
        found = movegen.find_play(LONG, position, 0, dice, parse_moves(written))
        assert found.position == play.position, written


def test_the_step_order_that_avoids_the_block_is_the_one_found() -> None:
    position, dice = POSITIONS[0]
    found = movegen.find_play(LONG, position, 0, dice, parse_moves("20/10 19/9"))
    steps = [(s.origin, s.dest) for s in found.steps]
    # The checker on 14 leaves before a checker lands on 15.
    assert steps.index((14, 9)) < steps.index((20, 15))


def test_a_written_play_that_ends_in_a_block_is_still_refused() -> None:
    position, dice = POSITIONS[0]
    # 13 to 18 held at the end, whatever the order: no order can avoid the block.
    with pytest.raises(IllegalPlay) as refused:
        movegen.find_play(LONG, position, 0, dice, parse_moves("14/9 19/14 20/15 22/17"))
    assert refused.value.code == "six_block"
