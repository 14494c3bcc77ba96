"""The analysis of a recorded match in plain Python (no Django, no I/O).

- ``model``: what the core asks an analyser (``CheckerQuery``, ``CubeQuery``
  with the cube and score as ``CubeContext``) and what it answers (equities,
  ``CubeEquities``); ``Analyser`` is the protocol; ``AnalysisError`` the refusals;
- ``decisions``: the decisions of a match record, found by replaying it;
- ``scoring``: errors, marks (``DOUBTFUL``, ``ERROR``, ``BLUNDER``) and PR;
- ``analyse``: ``analyse_match``, and its results (``Decision``,
  ``SideTotals``, ``GameAnalysis``, ``MatchAnalysis``).

It imports the standard library, the engine and itself only; the analysers
(``analysis.analysers``) are the only modules that touch an evaluator.
"""

from __future__ import annotations

from analysis.core.analyse import (
    Decision,
    GameAnalysis,
    MatchAnalysis,
    SideTotals,
    analyse_match,
    analyse_turns,
    totals,
)
from analysis.core.decisions import CheckerTurn, CubeTurn, TakeTurn, find_decisions
from analysis.core.model import (
    Analyser,
    AnalysisError,
    CheckerQuery,
    CubeContext,
    CubeEquities,
    CubeQuery,
)
from analysis.core.scoring import BLUNDER, DOUBTFUL, ERROR, mark, pr

__all__ = [
    "BLUNDER",
    "DOUBTFUL",
    "ERROR",
    "Analyser",
    "AnalysisError",
    "CheckerQuery",
    "CheckerTurn",
    "CubeContext",
    "CubeEquities",
    "CubeQuery",
    "CubeTurn",
    "Decision",
    "GameAnalysis",
    "MatchAnalysis",
    "SideTotals",
    "TakeTurn",
    "analyse_match",
    "analyse_turns",
    "find_decisions",
    "mark",
    "pr",
    "totals",
]
