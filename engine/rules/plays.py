"""A play: the checker steps of one turn, and the position they lead to."""

from __future__ import annotations

from dataclasses import dataclass

from engine.rules.board import Position


@dataclass(frozen=True, slots=True)
class Step:
    """One checker moved by one die, in the mover's own numbering.

    ``origin`` 25 is the bar; ``dest`` 0 is borne off.  ``hit`` is true when
    the step lands on a lone opposing checker and sends it to the bar.
    """

    origin: int
    dest: int
    die: int
    hit: bool = False


@dataclass(frozen=True, slots=True)
class ClassStep(Step):
    """A step of a checker with a class (Soldiers, RULES.md §3.1).

    ``cls`` is the class, 0..5 for ``K G D E O P`` (general, guard, druid,
    wounded even, wounded odd, pawn); ``effect`` what the landing did (``""``,
    ``"hit"``, ``"pin"``, ``"attack"``: the first of two checkers onto a lone
    guard, ``"capture"``: the second).  ``dest > origin`` is a general's
    backward step.  ``hit`` is true for a hit and a capture."""

    cls: int = 5
    effect: str = ""


@dataclass(frozen=True, slots=True)
class Play:
    """The steps of a turn in the order played (empty: nothing could be played)
    and the resulting position, the mover still in its own slot."""

    steps: tuple[Step, ...]
    position: Position

    @property
    def dice_used(self) -> tuple[int, ...]:
        return tuple(s.die for s in self.steps)


@dataclass(frozen=True, slots=True)
class Move:
    """One checker's journey as written in notation: ``13/7*/5`` is
    ``Move(13, 5, via=(7,), hits=(7,))``; ``8/4(2)`` is two equal Moves.

    ``hits`` lists the points the writer marked with ``*`` (their absence is
    not a claim that nothing was hit: plain ``13/7`` may still hit).
    """

    origin: int
    dest: int
    via: tuple[int, ...] = ()
    hits: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ClassMove(Move):
    """A written journey of a class checker (Soldiers: ``G13/7``, ``K6/10`` for a
    general moving back, so ``dest`` may be above ``origin``); ``cls`` as in
    `ClassStep` (5: a pawn, written without a letter)."""

    cls: int = 5
