"""The shortcut for two different dice (engine.soldiers.fastpath) against the
search: wherever it answers, the same plays with the same steps in the same
order."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.soldiers.fastpath import two_dice_plays
from engine.soldiers.movegen import (
    ATTACK,
    CAPTURE,
    HIT,
    PIN,
    SoldierPlay,
    searched_plays,
)
from engine.soldiers.plays import legal_plays
from engine.soldiers.state import SoldiersPosition
from tests.engine.soldiers.helpers import pos
from tests.engine.soldiers.test_properties import _random_position, game

ROLLS = tuple((a, b) for a in range(2, 7) for b in range(1, a))


def _same(position: SoldiersPosition, a: int, b: int, seen: Counter[str]) -> bool | None:
    """None where the shortcut declines; else whether it gives exactly what
    the search gives (and `legal_plays` gives it)."""
    fast = two_dice_plays(position, a, b)
    if fast is None:
        return None
    searched = searched_plays(position, (a, b))
    for play in fast:
        for step in play.steps:
            seen[step.effect or "plain"] += 1
            seen["entry"] += step.origin == 25
            seen["general back"] += step.dest > step.origin
    return _rows(fast) == _rows(searched) == _rows(legal_plays(position, (b, a)))


def _rows(plays: list[SoldierPlay]) -> list[tuple[object, str]]:
    return [(play.steps, play.position.text()) for play in plays]


def test_the_shortcut_gives_what_the_search_gives_on_game_positions() -> None:
    seen: Counter[str] = Counter()
    compared = declined = 0
    differences = []
    # the default army, and one with five guards (one general: the shortcut's case)
    for seed, army in ((1, 0), (3, 3), (4, 4)):
        for turn, (position, _) in enumerate(game(2000 + seed, army)):
            if turn % 4:
                continue
            for a, b in ROLLS:
                same = _same(position, a, b, seen)
                if same is None:
                    declined += 1
                    continue
                compared += 1
                if not same:
                    differences.append((position.text(), (a, b)))
    assert differences == []
    assert compared > 2 * declined  # it answers for most positions
    for effect in ("plain", HIT, PIN, "entry", "general back"):
        assert seen[effect] > 0, effect


def test_the_shortcut_gives_what_the_search_gives_on_made_up_positions() -> None:
    # few checkers anywhere, pins both ways, lone guards, the bar
    rng = random.Random(21)
    seen: Counter[str] = Counter()
    compared = 0
    differences = []
    for _ in range(250):
        position = _random_position(rng)
        if position is None:
            continue
        for a, b in ROLLS:
            same = _same(position, a, b, seen)
            compared += same is not None
            if same is False:
                differences.append((position.text(), (a, b)))
    assert differences == []
    assert compared > 1000
    for effect in (HIT, PIN, ATTACK, CAPTURE, "entry", "general back"):
        assert seen[effect] > 0, effect


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32))
def test_the_shortcut_agrees_with_the_search_on_any_made_up_position(seed: int) -> None:
    position = _random_position(random.Random(seed))
    if position is None:
        return
    seen: Counter[str] = Counter()
    for a, b in ROLLS:
        assert _same(position, a, b, seen) is not False, (position.text(), (a, b))


def test_the_shortcut_declines_where_it_would_not_be_exact() -> None:
    rest = "P13x5 P8x3 P6x5 | B: P24x2 P13x5 P8x3 P6x5 | W"
    # a plain position: it answers
    assert two_dice_plays(pos(f"W: K24 P24 {rest}"), 6, 5) is not None
    # two checkers on the bar, two generals, a bear-off within reach
    assert two_dice_plays(pos(f"W: Kbar Pbar {rest}"), 6, 5) is None
    assert two_dice_plays(pos(f"W: K24x2 {rest}"), 6, 5) is None
    home = "P5x5 P4x3 | B: P24x2 P13x5 P8x3 P6x5 | W"
    assert two_dice_plays(pos(f"W: K8 P7 P6x5 {home}"), 6, 5) is not None
    assert two_dice_plays(pos(f"W: K8 P6x6 {home}"), 6, 5) is None
    # no play starts with the larger die: the smaller one's first steps
    # decide the order, except where the general's b back and a forward
    # (a = 2b) ends where its b forward does: there the search answers
    blocked = pos("W: K24 P24 P13x13 | B: P18x2 P7x2 P13x11 | W")
    assert _rows(two_dice_plays(blocked, 6, 1) or []) == _rows(searched_plays(blocked, (6, 1)))
    assert all([s.die for s in p.steps] == [1, 6] for p in legal_plays(blocked, (6, 1)))
    back_and_forth = pos(
        "W: K22 O20 O15 O8 P4 E2x3 P2x2 P1x5"
        " | B: O20x2 P20x2 O19 K15 E13 P13 E11 P8 P7x2 E2 P2x2 | W"
    )
    assert two_dice_plays(back_and_forth, 4, 2) is None
    first = legal_plays(back_and_forth, (4, 2))[0]
    assert [(s.origin, s.dest) for s in first.steps] == [(22, 24), (24, 20)]
