"""Recording a game costs one engine step per turn, not a replay of the game so far
(games.adapters.replay continues from the state it kept for the same start and
the same first turns), and what it keeps never stands for other turns."""

from __future__ import annotations

from typing import Any

import pytest

from games import adapters
from games.models import Game, Turn
from tests.factories import MatchFactory
from tests.games.helpers import play_out

pytestmark = pytest.mark.django_db


@pytest.fixture
def engine_steps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts every action the engine applies through the games adapter."""
    steps: list[int] = []
    apply = adapters.apply_turn

    def counted(state: Any, turn: Any) -> Any:
        steps.append(1)
        return apply(state, turn)

    monkeypatch.setattr(adapters, "apply_turn", counted)
    return steps


def test_recording_a_game_costs_steps_in_proportion_to_its_turns(engine_steps: list[int]) -> None:
    match = MatchFactory(length=1)
    turns = play_out(match, seed=5)
    assert turns > 60  # long enough that a replay per turn would cost thousands of steps
    # Per turn: the test's own look at the state, the service's replay and its step.
    assert len(engine_steps) <= 3 * turns + 10, (len(engine_steps), turns)


def full_replay(match: Any, game: Game, turns: list[Turn]) -> Any:
    adapters._replays.clear()
    return adapters.replay(match, game, turns)


def test_a_kept_state_is_used_only_for_the_same_start_and_first_turns() -> None:
    match = MatchFactory(length=3)
    play_out(match, seed=7)
    game = Game.objects.filter(match=match).order_by("number").first()
    assert game is not None
    turns = list(game.turns.filter(undone_at__isnull=True).order_by("number"))
    half = len(turns) // 2
    # Kept after the whole game; asked for its first half: not the kept state.
    adapters.replay(match, game, turns)
    assert adapters.replay(match, game, turns[:half]) == full_replay(match, game, turns[:half])
    # Kept after the first half; a record that differs inside it replays from the start.
    adapters.replay(match, game, turns[:half])
    changed = list(turns)
    changed[1] = Turn(pk=changed[1].pk, kind=changed[1].kind, dice=[6, 6], moves="x")
    with pytest.raises(RuntimeError, match="does not replay"):
        adapters.replay(match, game, changed)
    # Another start (the same game asked under another score) is not continued either.
    adapters.replay(match, game, turns[:half])
    game.score1_before = 1
    assert adapters.replay(match, game, turns[:half]) == full_replay(match, game, turns[:half])
