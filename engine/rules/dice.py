"""Dice sources the game state machine draws from.

A source is injected so that games are reproducible (``SeededDice``) or follow
a record (``RecordedDice``); the opening's tie rules live in ``engine.rules.game``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Protocol

from engine.errors import GameStateError


class DiceSource(Protocol):
    def roll(self, n: int = 2) -> tuple[int, ...]:
        """``n`` dice for one turn."""
        ...

    def opening(self) -> tuple[int, int]:
        """One die each for the opening: (white's, black's)."""
        ...


class SeededDice:
    """Pseudo-random dice from ``random.Random(seed)``: the same seed, the same game."""

    def __init__(self, seed: int | str | None = None) -> None:
        self._random = random.Random(seed)

    def roll(self, n: int = 2) -> tuple[int, ...]:
        return tuple(self._random.randint(1, 6) for _ in range(n))

    def opening(self) -> tuple[int, int]:
        return self._random.randint(1, 6), self._random.randint(1, 6)


class RecordedDice:
    """Dice read in order from a record.

    ``sequence`` holds die values, flat or grouped (``[(5, 1), (4, 3)]`` and
    ``[5, 1, 4, 3]`` are the same record); each call takes as many values as
    it needs.
    """

    def __init__(self, sequence: Iterable[int | Sequence[int]]) -> None:
        values: list[int] = []
        for item in sequence:
            group = (item,) if isinstance(item, int) else tuple(item)
            for value in group:
                if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
                    raise GameStateError(
                        "invalid_die", f"{value!r} is not a die value (1..6)", value=value
                    )
                values.append(value)
        self._values = tuple(values)
        self._next = 0

    @property
    def remaining(self) -> int:
        return len(self._values) - self._next

    def _take(self, n: int) -> tuple[int, ...]:
        if self.remaining < n:
            raise GameStateError(
                "dice_exhausted",
                f"the dice record has {self.remaining} value(s) left, {n} needed",
                needed=n,
                remaining=self.remaining,
            )
        taken = self._values[self._next : self._next + n]
        self._next += n
        return taken

    def roll(self, n: int = 2) -> tuple[int, ...]:
        return self._take(n)

    def opening(self) -> tuple[int, int]:
        white, black = self._take(2)
        return white, black
