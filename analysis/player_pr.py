"""The PR section of a player's public page (``clubs.player_page``, registered in
``AnalysisConfig.ready``): their PR over their analysed matches, as a figure and as
a chart over time (one point per match, linked to its page), counting only the
matches whose result the viewer may see (``analysis.queries``).  Nothing is shown
for a player without an analysed match.  One query."""

from __future__ import annotations

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from analysis import charts, queries
from clubs.models import Player
from clubs.player_page import Section


def _pr_text(pr: float) -> str:
    return formats.number_format(pr, 2)


def _point(point: queries.PRPoint) -> charts.ChartPoint:
    when = timezone.localtime(point.when) if timezone.is_aware(point.when) else point.when
    label = _("%(date)s: PR %(pr)s over %(decisions)d decisions · against %(opponent)s") % {
        "date": formats.date_format(when, "SHORT_DATE_FORMAT"),
        "pr": _pr_text(point.pr),
        "decisions": point.decisions,
        "opponent": point.opponent,
    }
    return charts.ChartPoint(when=when, rating=point.pr, match_id=point.match_id, label=label)


def render_section(request: HttpRequest, player: Player) -> SafeString | None:
    points = queries.player_points(player.pk, request.user)
    overall = queries.combine((p.pr, p.decisions) for p in points)
    if overall is None:
        return None
    pr, decisions, matches = overall
    chart_points = [_point(p) for p in points]
    title = _("PR of %(player)s over time") % {"player": player}
    description = _(
        "PR per analysed match (lower is better): %(count)d matches, from %(first)s to "
        "%(last)s; %(pr)s over all %(decisions)d decisions."
    ) % {
        "count": len(points),
        "first": formats.date_format(chart_points[0].when, "SHORT_DATE_FORMAT"),
        "last": formats.date_format(chart_points[-1].when, "SHORT_DATE_FORMAT"),
        "pr": _pr_text(pr),
        "decisions": decisions,
    }
    chart = charts.pr_chart(
        chart_points,
        title=title,
        description=description,
        link=lambda match_id: reverse("games:match", args=[match_id]),
    )
    html: SafeString = render_to_string(
        "analysis/player_pr.html",
        {
            "pr": pr,
            "decisions": decisions,
            "matches": matches,
            "doubtful": sum(p.doubtful for p in points),
            "errors": sum(p.errors for p in points),
            "blunders": sum(p.blunders for p in points),
            "chart": mark_safe(chart),  # escaped by ratings.charts.render
        },
        request=request,
    )
    return html


SECTION = Section(name="pr", order=15, render=render_section)
