"""The walk for doubles (engine.soldiers.doubles) against the search: wherever
it answers, the same plays with the same steps in the same order (and
`legal_plays`, which asks the journeys first, the same positions)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.soldiers.doubles import doubles_plays
from engine.soldiers.movegen import (
    ATTACK,
    CAPTURE,
    HIT,
    PIN,
    SoldierPlay,
    can_enter,
    searched_plays,
)
from engine.soldiers.plays import legal_plays
from engine.soldiers.state import SoldiersPosition
from tests.engine.soldiers.helpers import against_search, pos
from tests.engine.soldiers.test_properties import _random_position, game

DICE = range(1, 7)


def _same(position: SoldiersPosition, die: int, seen: Counter[str]) -> bool | None:
    """None where the walk declines; else whether it gives exactly what the
    search gives (and `legal_plays` gives its positions)."""
    fast = doubles_plays(position, die)
    if fast is None:
        return None
    searched = searched_plays(position, (die, die))
    for play in fast:
        seen["plays"] += 1
        for step in play.steps:
            seen[step.effect or "plain"] += 1
            seen["general back"] += step.dest > step.origin
            seen["bear off"] += step.dest == 0
            seen["entry"] += step.origin == 25
        # a general that stepped back and forth: a play the search finds late
        seen["general back and forth"] += any(s.dest > s.origin for s in play.steps) and any(
            s.dest < s.origin and s.cls == 0 for s in play.steps
        )
    # legal_plays may answer by journeys first (tests/engine/soldiers/test_journeys.py):
    # the same positions, by other paths and in another order
    return _rows(fast) == _rows(searched) and {
        play.position.text() for play in legal_plays(position, (die, die))
    } == {text for _, text in _rows(searched)}


def _rows(plays: list[SoldierPlay]) -> list[tuple[object, str]]:
    return [(play.steps, play.position.text()) for play in plays]


def doubles_on_games(
    same: Callable[[SoldiersPosition, int, Counter[str]], bool | None],
    first_seed: int,
    seen: Counter[str],
) -> tuple[int, list[tuple[str, int]]]:
    """``same`` on every third position of three random games (the default
    army, and one with five guards: one general) with every double: how many
    it answered, and the positions where it differs."""
    positions = (
        position
        for seed, army in ((1, 0), (3, 3), (4, 4))
        for turn, (position, _) in enumerate(game(first_seed + seed, army))
        if turn % 3 == 0
    )
    return against_search(positions, DICE, lambda position, die: same(position, die, seen))


def test_the_walk_gives_what_the_search_gives_on_game_positions() -> None:
    seen: Counter[str] = Counter()
    compared, differences = doubles_on_games(_same, 3000, seen)
    assert differences == []
    assert compared > 250
    for effect in (
        "plain",
        HIT,
        PIN,
        "entry",
        "general back",
        "general back and forth",
        "bear off",
    ):
        assert seen[effect] > 0, effect


def test_the_walk_gives_what_the_search_gives_on_made_up_positions() -> None:
    # few checkers anywhere, pins both ways, lone guards, bear-offs
    rng = random.Random(22)
    seen: Counter[str] = Counter()
    compared, differences = against_search(
        (_random_position(rng) for _ in range(400)),
        DICE,
        lambda position, die: _same(position, die, seen),
    )
    assert differences == []
    assert compared > 100
    for effect in (HIT, PIN, ATTACK, CAPTURE, "general back", "bear off"):
        assert seen[effect] > 0, effect


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32))
def test_the_walk_agrees_with_the_search_on_any_made_up_position(seed: int) -> None:
    position = _random_position(random.Random(seed))
    if position is None:
        return
    seen: Counter[str] = Counter()
    for die in DICE:
        assert _same(position, die, seen) is not False, (position.text(), die)


def test_the_walk_declines_where_it_would_not_be_exact() -> None:
    rest = "P13x5 P8x3 P6x5 | B: P24x2 P13x5 P8x3 P6x5 | W"
    assert doubles_plays(pos(f"W: K24 P24 {rest}"), 3) is not None
    # checkers on the bar enter first: answered, as the search would
    on_bar = pos(f"W: Kbar Pbar {rest}")
    assert _rows(doubles_plays(on_bar, 3) or []) == _rows(searched_plays(on_bar, (3, 3)))
    # two generals: the search answers
    assert doubles_plays(pos(f"W: K24x2 {rest}"), 3) is None
    # a bear-off within reach (with the highest-checker rule): answered too
    home = "P5x5 P4x3 | B: P24x2 P13x5 P8x3 P6x5 | W"
    for text in (f"W: K9 P8 P7 P6x4 {home}", "W: P6 K5 P3x2 | B: P24x2 P13x5 | W"):
        for die in DICE:
            found = doubles_plays(pos(text), die)
            assert found is not None
            assert _rows(found) == _rows(searched_plays(pos(text), (die, die)))
    # the last checker borne off before the fourth die: a whole play
    last = pos("W: P2 | B: P24x2 P13x5 | W")
    assert _rows(doubles_plays(last, 3) or []) == _rows(searched_plays(last, (3, 3)))
    # nothing plays all four dice: the forced-move rules choose, the search answers
    blocked = pos("W: K24 P24 P13x13 | B: P2x2 P13x2 P6x11 | W")
    assert doubles_plays(blocked, 1) is None
    assert [p.steps for p in legal_plays(blocked, (1, 1))] == [()]


def test_an_entry_onto_a_lone_guard_needs_a_general_that_can_come_back() -> None:
    # With 1-1 the checker on the bar can only attack the lone guard on 24:
    # that stands only if a second attacker lands there this turn, here a
    # general walking back with the three dice left.
    rest = "P13x5 P8x4 P6x4 | B: G1 P20x2 P13x5 P8x3 P6x4 | W"
    far = pos(f"W: Pbar K4 {rest}")  # 20 points away: nothing enters, nothing moves
    assert not can_enter(far, 1)
    assert [p.steps for p in legal_plays(far, (1, 1))] == [()]
    assert [p.steps for p in searched_plays(far, (1, 1))] == [()]
    near = pos(f"W: Pbar K22 {rest}")  # two steps back onto 24: the capture
    assert can_enter(near, 1)
    plays = legal_plays(near, (1, 1))
    assert {p.position.text() for p in plays} == {
        p.position.text() for p in searched_plays(near, (1, 1))
    }
    assert all(any(s.effect == CAPTURE for s in p.steps) for p in plays)


def test_a_general_back_and_forth_keeps_the_search_s_first_path() -> None:
    # the general may step back and return; such a play ends on a board a
    # shorter play reached first, and keeps that place in the order
    position = pos("W: K20 P13x6 P8x4 P6x4 | B: P24x2 P13x5 P8x3 P6x5 | W")
    for die in DICE:
        found = doubles_plays(position, die)
        assert found is not None
        assert _rows(found) == _rows(searched_plays(position, (die, die)))


def test_a_general_within_a_die_of_off_steps_back_as_the_search_lets_it() -> None:
    # With nothing to bear off, a checker at most a die from off moves only
    # if it is the general, backwards: the walk lists that point after all
    # the others, where the search meets it.
    rest = "| B: P20x2 P13x5 P8x3 P6x5 | W"
    seen: Counter[str] = Counter()
    backs_from_low = 0
    for mine in (
        "K2 P13x6 P8x4 P6x4",
        "K1 D2 E3 O4 P13x5 P8x4 P6x2",
        "K4 P20 P13x5 P9x4 P7x2 P3x2",
        "K3 G2 P24x2 P13x5 P8x3 P7x3",
    ):
        position = pos(f"W: {mine} {rest}")
        for die in DICE:
            assert _same(position, die, seen) is True, (mine, die)
            plays = doubles_plays(position, die) or []
            backs_from_low += any(
                s.cls == 0 and s.origin <= die < s.dest for p in plays for s in p.steps
            )
    assert backs_from_low > 0
