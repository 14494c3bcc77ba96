"""What the core asks an analyser, and what it answers.

The core finds the decisions of a match; an analyser only evaluates
positions.  Every equity crossing this boundary is from the view of the
player on roll (the mover), in points of the current cube, normalised so that
a double the opponent passes is worth +1.0 ("EMG" equity): match-winning
chances are converted at the current cube and score by the analyser, so that
errors at every score and in money play compare.

Queries come in lists so that an analyser can evaluate a whole match in one
call (bgsage's C++ batch functions do).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

from engine.rules.board import Position
from engine.rules.variants import Variant

CubeOwner = Literal["centred", "mover", "opponent"]

CENTRED: Final = "centred"
MOVER: Final = "mover"
OPPONENT: Final = "opponent"


class AnalysisError(Exception):
    """A match or a setting the analysis refuses: a stable code plus the data a
    message needs (the Django side translates the code, like engine errors)."""

    def __init__(self, code: str, reason: str, **data: Any) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.data: dict[str, Any] = data

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "reason": self.reason, **self.data}


@dataclass(frozen=True, slots=True)
class CubeContext:
    """The cube and the score from the mover's view.

    ``away`` is (points the mover needs, points the opponent needs), (0, 0) in
    money play; ``crawford`` marks the Crawford game itself.  ``jacoby`` and
    ``beaver`` are money-play options and always False in a match.
    """

    value: int
    owner: CubeOwner
    away: tuple[int, int]
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False

    @property
    def money(self) -> bool:
        return self.away == (0, 0)


@dataclass(frozen=True, slots=True)
class CheckerQuery:
    """Evaluate every candidate play of one roll.

    ``candidates`` are the positions after each legal play (engine positions,
    mover still ``side``); ``played`` is the index of the one the player chose,
    which an analyser searching deeper than its first ply must evaluate at the
    full depth, like the best one.
    """

    variant: Variant
    position: Position
    side: int
    dice: tuple[int, int]
    candidates: tuple[Position, ...]
    played: int
    cube: CubeContext


@dataclass(frozen=True, slots=True)
class CubeQuery:
    """Evaluate the cube decision of ``side``, on roll in ``position`` before rolling."""

    variant: Variant
    position: Position
    side: int
    cube: CubeContext


@dataclass(frozen=True, slots=True)
class CubeEquities:
    """No double, double/take and double/pass, from the would-be doubler's view."""

    no_double: float
    double_take: float
    double_pass: float


class Analyser(Protocol):
    """An evaluator of positions; ``analysis.analysers`` looks them up by name."""

    @property
    def name(self) -> str: ...

    @property
    def depth(self) -> int:
        """Plies searched, XG's numbering: 1 is the network's own evaluation
        (GNU Backgammon calls that 0-ply)."""
        ...

    def check_variant(self, variant: Variant) -> None:
        """Raise ``AnalysisError("not_analysable", ...)`` for a variant whose
        positions this analyser cannot honestly evaluate."""
        ...

    def evaluate_plays(self, queries: Sequence[CheckerQuery]) -> list[tuple[float, ...]]:
        """Per query, the mover's equity after each candidate, in their order."""
        ...

    def evaluate_cubes(self, queries: Sequence[CubeQuery]) -> list[CubeEquities]:
        """Per query, the three cube equities from the mover's view."""
        ...
