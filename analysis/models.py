"""A recorded match's analysis as stored: the totals per player, each decision.

One ``MatchAnalysis`` per match (``analysis.services.analyse`` keeps it up to
date with the match's record); ``AnalysedDecision`` rows are its decisions,
located by game number and the index of the action in that game of the
engine's record (``games.exports.mat_match``), as ``analysis.core`` gives them.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Match


class AnalysisState(models.TextChoices):
    DONE = "done", _("analysed")
    REFUSED = "refused", _("not analysed")


class MatchAnalysis(models.Model):
    match = models.OneToOneField(
        Match, on_delete=models.CASCADE, related_name="analysis", verbose_name=_("match")
    )
    state = models.CharField(_("state"), max_length=10, choices=AnalysisState.choices)
    # Why a match is not analysed (a code the pages translate): its variant, its size.
    refusal = models.CharField(_("why not analysed"), max_length=40, blank=True)
    analyser = models.CharField(_("analyser"), max_length=20)
    depth = models.PositiveSmallIntegerField(_("depth (plies)"))
    # The record analysed (the SHA-256 of its .mat export): a changed record
    # (a result overridden, a game undone) is analysed again.
    record_hash = models.CharField(_("record analysed (SHA-256)"), max_length=64)
    decisions = models.PositiveIntegerField(_("decisions"), default=0)
    evaluations = models.PositiveIntegerField(_("positions evaluated"), default=0)
    seconds = models.FloatField(_("seconds"), default=0.0)
    analysed_at = models.DateTimeField(_("analysed at"), auto_now=True)
    # Per player (1 and 2): PR over the counted decisions, and the counts.
    pr1 = models.FloatField(_("PR of player 1"), null=True, blank=True)
    pr2 = models.FloatField(_("PR of player 2"), null=True, blank=True)
    decisions1 = models.PositiveIntegerField(_("decisions of player 1"), default=0)
    decisions2 = models.PositiveIntegerField(_("decisions of player 2"), default=0)
    doubtful1 = models.PositiveIntegerField(_("doubtful moves of player 1"), default=0)
    doubtful2 = models.PositiveIntegerField(_("doubtful moves of player 2"), default=0)
    errors1 = models.PositiveIntegerField(_("errors of player 1"), default=0)
    errors2 = models.PositiveIntegerField(_("errors of player 2"), default=0)
    blunders1 = models.PositiveIntegerField(_("blunders of player 1"), default=0)
    blunders2 = models.PositiveIntegerField(_("blunders of player 2"), default=0)
    # Each game's PR and decisions per player: [{"game": n, "pr": [p1, p2],
    # "decisions": [d1, d2]}] (a PR is null for a player without a decision).
    per_game = models.JSONField(_("per game"), default=list, blank=True)

    class Meta:
        verbose_name = _("match analysis")
        verbose_name_plural = _("match analyses")

    def __str__(self) -> str:
        return f"{self.match} ({self.get_state_display()})"


class AnalysedDecision(models.Model):
    analysis = models.ForeignKey(
        MatchAnalysis,
        on_delete=models.CASCADE,
        related_name="decision_rows",
        verbose_name=_("match analysis"),
    )
    game = models.PositiveSmallIntegerField(_("game"))
    action = models.PositiveIntegerField(_("action"))  # index in the record's game
    side = models.PositiveSmallIntegerField(_("player"))  # 1 or 2
    kind = models.CharField(_("kind"), max_length=10)  # checker, cube, take
    error = models.FloatField(_("equity lost"))
    counted = models.BooleanField(_("counted in PR"), default=True)
    mark = models.CharField(_("mark"), max_length=10, blank=True)
    best = models.CharField(_("best"), max_length=80)
    best_equity = models.FloatField(_("equity of the best"))
    played = models.CharField(_("played"), max_length=80)
    played_equity = models.FloatField(_("equity of the played"))

    class Meta:
        ordering = ["analysis", "game", "action"]
        constraints = [
            models.UniqueConstraint(
                # A roll's action holds two: the cube decision before it, the play after.
                fields=["analysis", "game", "action", "kind"],
                name="one_decision_per_action_and_kind",
            )
        ]
        verbose_name = _("analysed decision")
        verbose_name_plural = _("analysed decisions")

    def __str__(self) -> str:
        return f"game {self.game}, action {self.action}: {self.kind} {self.error:.3f}"
