"""Analysing a recorded match and keeping its analysis (``analysis.core`` does the
analysis; this is its one adapter to the stored matches).

``analyse(match_id)`` is idempotent: a match whose analysis is up to date (the
same record, analyser and depth) is left alone, so a task run twice, or owed
again by a result confirmed again, analyses once.  The evaluation runs outside
any transaction (seconds for a long match); the results are then written in one,
under the analysis row's lock, replacing what was there.  Only finished matches
recorded move by move, with an official result, are analysed; the work of one
match is bounded (``settings.ANALYSIS_MAX_DECISIONS``) and reported on its row
(decisions, positions evaluated, seconds).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

from analysis.analysers import get_analyser
from analysis.core import AnalysisError, Decision, analyse_match
from analysis.core import MatchAnalysis as Analysed
from analysis.events import analysis_changed
from analysis.models import AnalysedDecision, AnalysisState, MatchAnalysis
from base.tasks import owe
from clubs import permissions
from engine.records import matfile
from games import exports
from games.models import Match, MatchState, ResultStatus

UP_TO_DATE: Final = "up to date"


@dataclass(frozen=True)
class Setup:
    analyser: str
    depth: int
    max_decisions: int


def setup() -> Setup:
    return Setup(
        settings.ANALYSIS_ANALYSER, settings.ANALYSIS_DEPTH, settings.ANALYSIS_MAX_DECISIONS
    )


def eligible(match: Match) -> bool:
    """A match the analysis is for: recorded move by move, over, its result official."""
    return (
        match.recorded
        and match.state == MatchState.FINISHED
        and match.result_status == ResultStatus.CONFIRMED
    )


def analyse(match_id: int) -> str:
    """Analyse the match (if due); what was done, in a word or two, for the logs."""
    match = (
        Match.objects.select_related("discipline", "player1", "player2").filter(pk=match_id).first()
    )
    if match is None or not eligible(match):
        return "not analysed: no finished recorded match"
    chosen = setup()
    if not exports.mat_supported(match):
        return _refuse(match, chosen, "", "not_analysable")
    try:
        record = exports.mat_match(match)
    except exports.ExportError:
        return _refuse(match, chosen, "", "record_unreadable")
    record_hash = hashlib.sha256(matfile.export_mat(record).encode()).hexdigest()
    kept = MatchAnalysis.objects.filter(match=match).first()
    if kept is not None and (kept.record_hash, kept.analyser, kept.depth) == (
        record_hash,
        chosen.analyser,
        chosen.depth,
    ):
        return UP_TO_DATE
    started = time.perf_counter()
    try:
        analyser = get_analyser(chosen.analyser, depth=chosen.depth)
        result = analyse_match(record, analyser, max_decisions=chosen.max_decisions)
    except AnalysisError as error:
        return _refuse(match, chosen, record_hash, error.code)
    _store(match, record_hash, result, time.perf_counter() - started)
    return f"analysed: {len(result.decisions)} decisions"


def _refuse(match: Match, chosen: Setup, record_hash: str, code: str) -> str:
    _write(
        match,
        {
            "state": AnalysisState.REFUSED,
            "refusal": code,
            "analyser": chosen.analyser,
            "depth": chosen.depth,
            "record_hash": record_hash,
            "decisions": 0,
            "evaluations": 0,
            "seconds": 0.0,
            "per_game": [],
            **_totals(None),
        },
        [],
    )
    return f"not analysed: {code}"


def _totals(result: Analysed | None) -> dict[str, object]:
    values: dict[str, object] = {}
    for number in (1, 2):
        side = result.players[number - 1] if result is not None else None
        values[f"pr{number}"] = side.pr if side is not None else None
        values[f"decisions{number}"] = side.decisions if side is not None else 0
        values[f"doubtful{number}"] = side.doubtful if side is not None else 0
        values[f"errors{number}"] = side.errors if side is not None else 0
        values[f"blunders{number}"] = side.blunders if side is not None else 0
    return values


def _store(match: Match, record_hash: str, result: Analysed, seconds: float) -> None:
    _write(
        match,
        {
            "state": AnalysisState.DONE,
            "refusal": "",
            "analyser": result.analyser,
            "depth": result.depth,
            "record_hash": record_hash,
            "decisions": len(result.decisions),
            "evaluations": result.evaluations,
            "seconds": round(seconds, 3),
            "per_game": [
                {
                    "game": game.number,
                    "pr": [side.pr for side in game.sides],
                    "decisions": [side.decisions for side in game.sides],
                }
                for game in result.games
            ],
            **_totals(result),
        },
        result.decisions,
    )


def _write(match: Match, values: dict[str, object], decisions: Sequence[Decision]) -> None:
    """The match's analysis row and its decisions replaced, and announced."""
    with transaction.atomic():
        # update_or_create locks the row: two tasks for one match write one after
        # the other, the same analysis.
        analysis, _created = MatchAnalysis.objects.update_or_create(match=match, defaults=values)
        analysis.decision_rows.all().delete()
        AnalysedDecision.objects.bulk_create(
            [
                AnalysedDecision(
                    analysis=analysis,
                    game=decision.game,
                    action=decision.action,
                    side=decision.side + 1,
                    kind=decision.kind,
                    error=decision.error,
                    counted=decision.counted,
                    mark=decision.mark,
                    best=decision.best[:80],
                    best_equity=decision.best_equity,
                    played=decision.played[:80],
                    played_equity=decision.played_equity,
                )
                for decision in decisions
            ],
            batch_size=1000,
        )
        analysis_changed.send(match_id=match.pk)


@dataclass(frozen=True)
class Progress:
    """How far the analysis of all the finished recorded matches has come."""

    eligible: int
    analysed: int  # with today's analyser and depth (or refused by them)

    @property
    def backlog(self) -> int:
        return self.eligible - self.analysed

    @property
    def percent(self) -> int:
        return round(100 * self.analysed / self.eligible) if self.eligible else 100


def progress() -> Progress:
    """Two counts, whatever the number of matches."""
    chosen = setup()
    eligible = Match.objects.filter(
        recorded=True, state=MatchState.FINISHED, result_status=ResultStatus.CONFIRMED
    )
    analysed = eligible.filter(analysis__analyser=chosen.analyser, analysis__depth=chosen.depth)
    return Progress(eligible.count(), analysed.count())


def queue_backlog(*, by: Any) -> int:
    """Owe the analysis of every match of the backlog (``backlog``); how many."""
    permissions.require(by, "analysis.queue_backlog")
    with transaction.atomic():
        match_ids = list(backlog().values_list("pk", flat=True))
        for match_id in match_ids:
            owe("analysis.analyse_match", match_id)
    return len(match_ids)


def backlog(*, archive_id: int | None = None, federation_id: int | None = None) -> QuerySet[Match]:
    """The finished recorded matches with an official result and no analysis up to
    date with today's analyser and depth (a changed record is found by ``analyse``),
    oldest first."""
    chosen = setup()
    matches = Match.objects.filter(
        recorded=True, state=MatchState.FINISHED, result_status=ResultStatus.CONFIRMED
    ).exclude(analysis__analyser=chosen.analyser, analysis__depth=chosen.depth)
    if archive_id is not None:
        matches = matches.filter(archive_id=archive_id)
    if federation_id is not None:
        matches = matches.filter(federation_id=federation_id)
    return matches.order_by("finished_at", "pk")
