"""Reading the stored analyses for pages: a player's PR over time, and PRs summed
over a set of matches (an event, a player's record).

A figure over several matches is the field's: the errors of all their decisions
over the number of those decisions (``/work/shared/ANALYSIS.md``: "PR = 500 x
errors / decisions, per game, match, event and over time"), which is each
match's PR weighted by its decisions, not the mean of the match PRs (a 13-point
match is not worth a 3-point one).  Only finished analyses count (``done``);
which matches a viewer may see is ``games.visibility``'s rule, applied here to
every list (a silent round's analysis stays hidden with its result).

Every function costs one query, whatever the number of matches.
"""

from __future__ import annotations

import datetime
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import F, Q, QuerySet
from django.db.models.functions import Coalesce

from analysis.models import AnalysisState, MatchAnalysis
from games import visibility


@dataclass(frozen=True)
class PRFigure:
    """A PR over some matches: ``pr`` over ``decisions`` counted in ``matches``."""

    key: Hashable
    pr: float
    decisions: int
    matches: int


@dataclass(frozen=True)
class PRPoint:
    """One analysed match of a player, from their side."""

    match_id: int
    when: datetime.datetime
    pr: float
    decisions: int
    doubtful: int
    errors: int
    blunders: int
    opponent: str


def done() -> QuerySet[MatchAnalysis]:
    """The finished analyses (a refused one has no PR)."""
    return MatchAnalysis.objects.filter(state=AnalysisState.DONE)


def visible_to(analyses: QuerySet[MatchAnalysis], user: Any) -> QuerySet[MatchAnalysis]:
    """``analyses`` of the matches whose result ``user`` may see: an analysis tells
    how a match went, so it is hidden exactly when the result is."""
    return analyses.exclude(match__in=visibility.hidden_matches(user))


def combine(figures: Iterable[tuple[float, int]]) -> tuple[float, int, int] | None:
    """(PR, decisions, matches) of several matches' (PR, decisions), weighted by the
    decisions; None when no decision is counted."""
    errors = 0.0
    decisions = matches = 0
    for pr, count in figures:
        if count <= 0:
            continue
        errors += pr * count
        decisions += count
        matches += 1
    if not decisions:
        return None
    return errors / decisions, decisions, matches


def prs_by(analyses: QuerySet[MatchAnalysis], side1: str, side2: str) -> dict[Hashable, PRFigure]:
    """Each side's PR over ``analyses``, summed by the key each side is counted under:
    ``side1``/``side2`` are lookups from the analysis to the keys of players 1 and 2
    (``"match__player1_id"``, or a higher app's own, such as its entries)."""
    rows = analyses.filter(state=AnalysisState.DONE).values_list(
        side1, side2, "pr1", "pr2", "decisions1", "decisions2"
    )
    per_key: dict[Hashable, list[tuple[float, int]]] = {}
    for key1, key2, pr1, pr2, decisions1, decisions2 in rows:
        if pr1 is not None and key1 is not None:
            per_key.setdefault(key1, []).append((pr1, decisions1))
        if pr2 is not None and key2 is not None:
            per_key.setdefault(key2, []).append((pr2, decisions2))
    return _figures(per_key)


def player_prs_by(
    analyses: QuerySet[MatchAnalysis], player_id: int, group: str
) -> dict[Hashable, PRFigure]:
    """The player's own PR over ``analyses``, summed by ``group`` (a lookup from the
    analysis, such as a higher app's event of the match)."""
    rows = (
        analyses.filter(state=AnalysisState.DONE)
        .filter(Q(match__player1_id=player_id) | Q(match__player2_id=player_id))
        .values_list(group, "match__player1_id", "pr1", "pr2", "decisions1", "decisions2")
    )
    per_key: dict[Hashable, list[tuple[float, int]]] = {}
    for key, player1, pr1, pr2, decisions1, decisions2 in rows:
        pr, decisions = (pr1, decisions1) if player1 == player_id else (pr2, decisions2)
        if pr is not None:
            per_key.setdefault(key, []).append((pr, decisions))
    return _figures(per_key)


def best(figures: Iterable[PRFigure], limit: int) -> list[PRFigure]:
    """The ``limit`` lowest PRs (lower is better), the one over more decisions first
    on equal PR."""
    return sorted(figures, key=lambda f: (f.pr, -f.decisions, str(f.key)))[:limit]


def player_points(player_id: int, user: Any) -> list[PRPoint]:
    """The player's analysed matches that ``user`` may see, oldest first, each with the
    player's own PR and counts (one query)."""
    rows = (
        visible_to(done(), user)
        .filter(Q(match__player1_id=player_id) | Q(match__player2_id=player_id))
        .annotate(
            played_at=Coalesce(
                F("match__finished_at"), F("match__started_at"), F("match__created_at")
            )
        )
        .select_related("match__player1", "match__player2")
        .order_by("played_at", "match_id")
    )
    points = []
    for analysis in rows:
        match = analysis.match
        side = 1 if match.player1_id == player_id else 2
        pr = analysis.pr1 if side == 1 else analysis.pr2
        if pr is None:
            continue  # no decision of theirs counted (a match of forced plays)
        opponent = match.player2 if side == 1 else match.player1
        points.append(
            PRPoint(
                match_id=match.pk,
                when=analysis.played_at,  # type: ignore[attr-defined]
                pr=pr,
                decisions=analysis.decisions1 if side == 1 else analysis.decisions2,
                doubtful=analysis.doubtful1 if side == 1 else analysis.doubtful2,
                errors=analysis.errors1 if side == 1 else analysis.errors2,
                blunders=analysis.blunders1 if side == 1 else analysis.blunders2,
                opponent=str(opponent),
            )
        )
    return points


def _figures(per_key: dict[Hashable, list[tuple[float, int]]]) -> dict[Hashable, PRFigure]:
    """Each key's matches combined into one figure (keys without one left out)."""
    out = {}
    for key, figures in per_key.items():
        combined = combine(figures)
        if combined is not None:
            out[key] = PRFigure(key, *combined)
    return out
