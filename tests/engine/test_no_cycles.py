"""The engine leaves nothing for the garbage collector (engine/__init__.py):
a random game of every variant, its record replayed (written plays matched
to legal ones) and the other dice orders of plays along it free no object
through the collector, only by reference counts.  A self-calling closure
left holding itself would keep each call's plays alive until the
collector's next pass."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from engine.movegen import play_routes
from engine.records.replay import replay
from engine.rules import game as g
from engine.rules.dice import SeededDice
from tests.engine.test_variant_games import ALL, SEEDS, random_game, v


@pytest.fixture
def collector_paused() -> Iterator[None]:
    """The collector off (what it would find is counted by `gc.collect`)."""
    was_on = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


@pytest.mark.parametrize("name", ALL)
def test_a_game_its_replay_and_its_routes_leave_no_cycles(
    name: str, collector_paused: None
) -> None:
    variant = v(name)
    rules = g.GameRules(variant)
    text, state, turns, states = random_game(rules, SEEDS[name])
    replayed = replay(text, rules)
    assert replayed.turns == turns > 0
    assert replayed.state.position == state.position
    routes = 0
    for seed, passed in enumerate(states[1::3]):
        if passed.finished or passed.phase is not g.Phase.ROLL or passed.turn is None:
            continue
        if variant.mover_names_dice:
            rolled = g.set_dice(passed, (1 + seed % 6, 1 + seed // 6 % 6))
        else:
            rolled = g.roll(passed, SeededDice(seed))
        for play in g.legal_plays(rolled):
            routes += len(play_routes(variant, rolled.position, passed.turn, rolled.dice, play))
    assert routes > 0
    assert gc.collect() == 0
