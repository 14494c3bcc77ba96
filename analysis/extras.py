"""The analysis on the games pages (``games.match_extras``, registered in
``AnalysisConfig.ready``): both players' PR and marks on the match page, and on
the replay each analysed decision by the turn it was made at.

``games.match_extras`` asks these only when the viewer may see the match's
result (a silent round's analysis stays hidden exactly as its score does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.formats import number_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from analysis import services
from analysis.core import scoring
from analysis.models import AnalysedDecision, AnalysisState, MatchAnalysis
from games import exports
from games.models import Game, Match

STYLESHEET = "analysis/analysis.css"

# The symbols annotators use, so that a mark reads without its colour.
SYMBOLS = {"doubtful": "?!", "error": "?", "blunder": "??"}
MARKS = {
    "doubtful": gettext_lazy("doubtful"),
    "error": gettext_lazy("error"),
    "blunder": gettext_lazy("blunder"),
}
# Cube choices as analysis.core names them.
CUBE_CHOICES = {
    "no_double": gettext_lazy("no double"),
    "double": gettext_lazy("double"),
    "double_take": gettext_lazy("double, take"),
    "double_pass": gettext_lazy("double, pass"),
    "take": gettext_lazy("take"),
    "pass": gettext_lazy("pass"),
}
KINDS = {"cube": gettext_lazy("Cube"), "take": gettext_lazy("Answer")}
# Why a match was not analysed (MatchAnalysis.refusal), for the match page.
REFUSALS = {
    "not_analysable": gettext_lazy("The analyser does not play this game."),
    "record_unreadable": gettext_lazy("The match's record does not replay."),
    "too_many_decisions": gettext_lazy("The match is longer than one analysis may take."),
}
REFUSED = gettext_lazy("The analyser could not analyse this match.")


def _equity(value: float) -> str:
    sign = "+" if value >= 0 else "−"
    return sign + number_format(abs(value), 3)


def _pr(value: float | None) -> str:
    return "—" if value is None else number_format(value, 1)


def match_block(request: HttpRequest, match: Match) -> SafeString | str:
    """Both players' PR and marks, or why the match is not analysed (one query; none
    for a match the analysis is not for, such as one still played)."""
    if not services.eligible(match):
        return ""
    analysis = MatchAnalysis.objects.filter(match_id=match.pk).first()
    if analysis is None:
        return ""
    done = analysis.state == AnalysisState.DONE
    players: list[dict[str, Any]] = []
    if done:
        for number, player in ((1, match.player1), (2, match.player2)):
            players.append(
                {
                    "number": number,
                    "player": player,
                    "pr": _pr(getattr(analysis, f"pr{number}")),
                    "decisions": getattr(analysis, f"decisions{number}"),
                    "doubtful": getattr(analysis, f"doubtful{number}"),
                    "errors": getattr(analysis, f"errors{number}"),
                    "blunders": getattr(analysis, f"blunders{number}"),
                }
            )
    return render_to_string(
        "analysis/_match_analysis.html",
        {
            "analysis": analysis,
            "done": done,
            "players": players,
            "games": [
                {
                    "number": g["game"],
                    "pr": [_pr(pr) for pr in g["pr"]],
                    "decisions": g["decisions"],
                }
                for g in analysis.per_game
            ]
            if done
            else [],
            "refusal": "" if done else REFUSALS.get(analysis.refusal, REFUSED),
            "thresholds": {
                "doubtful": number_format(scoring.DOUBTFUL, 3),
                "error": number_format(scoring.ERROR, 3),
                "blunder": number_format(scoring.BLUNDER, 3),
            },
        },
        request=request,
    )


def _choice(decision: AnalysedDecision, text: str) -> str:
    return text if decision.kind == "checker" else str(CUBE_CHOICES.get(text, text))


def _note(decisions: Sequence[AnalysedDecision]) -> SafeString:
    parts = []
    for d in decisions:
        mark = d.mark if d.mark in SYMBOLS else ""
        words = []
        if mark:
            words.append(
                format_html('<span class="mark-symbol">{}</span> {}', SYMBOLS[mark], MARKS[mark])
            )
        checker = d.kind == "checker"
        if d.played == d.best:
            # The play itself is the turn's text; a cube choice is not, so it is named.
            best = _("best") if checker else format_html("{}, {}", _choice(d, d.played), _("best"))
            words.append(format_html("{} ({})", best, _equity(d.best_equity)))
        else:
            words.append(
                format_html(
                    "{}; {}: {} ({})",
                    # The equity the decision gave away ("lost" alone is a lost game).
                    _("lost %(equity)s") % {"equity": number_format(d.error, 3)},
                    _("best"),
                    _choice(d, d.best),
                    _equity(d.best_equity),
                )
            )
            if not checker:
                words.append(
                    format_html(
                        "{}: {} ({})", _("played"), _choice(d, d.played), _equity(d.played_equity)
                    )
                )
        # A cube decision and a take are told apart from the play at the same turn.
        kind = format_html("{}: ", KINDS[d.kind]) if d.kind in KINDS else ""
        parts.append(
            format_html(
                '<span class="analysis-note mark-{}" data-mark="{}" data-kind="{}">{}{}</span>',
                mark or "none",
                mark,
                d.kind,
                kind,
                format_html_join(" · ", "{}", ((w,) for w in words)),
            )
        )
    return format_html_join(" ", "{}", ((p,) for p in parts))


def turn_notes(request: HttpRequest, match: Match, game: Game) -> dict[int, SafeString]:
    """Each counted decision of ``game`` as a note on the stored turn it was made at
    (two queries: the decisions, the game's turns; none for a match the analysis is
    not for)."""
    if not services.eligible(match):
        return {}
    decisions = list(
        AnalysedDecision.objects.filter(
            analysis__match_id=match.pk,
            analysis__state=AnalysisState.DONE,
            game=game.number,
            counted=True,
        ).order_by("action", "kind")
    )
    if not decisions:
        return {}
    turn_ids = exports.action_turn_ids(game)
    by_turn: dict[int, list[AnalysedDecision]] = {}
    for decision in decisions:
        # A record changed since it was analysed is analysed again (analysis.services);
        # meanwhile an action past the record's end has no turn to be shown at.
        if decision.action < len(turn_ids):
            by_turn.setdefault(turn_ids[decision.action], []).append(decision)
    # The cube decision before a roll comes before its play.
    order = {"cube": 0, "take": 0, "checker": 1}
    return {
        turn_id: _note(sorted(rows, key=lambda d: order.get(d.kind, 0)))
        for turn_id, rows in by_turn.items()
    }
