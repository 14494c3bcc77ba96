"""Read functions of the games app: which matches a user sees, and what pages show.

Pages and the API read through these, so both list the same matches and
state their joins once.  Nothing here writes.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Case, IntegerField, Prefetch, Q, QuerySet, Value, When
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from clubs import permissions
from games import permissions as permissions_of_games
from games import visibility

# A clock's reading in figures: the pages read it here, the services from games.clocks.
from games.clocks import clock_reading as clock_reading
from games.models import (
    ClockMode,
    Game,
    Match,
    ReportResponse,
    ReportStatus,
    ResultReport,
    Turn,
)
from games.services.results import answers_for_absent


def _signed_in(user: Any) -> bool:
    return user is not None and user.is_authenticated and user.is_active


def visible_matches(user: Any) -> QuerySet[Match]:
    """Matches ``user`` may read: those of the federations they may read, and their own."""
    condition = Q(federation__isnull=True) | Q(federation__in=permissions.visible_federations(user))
    if _signed_in(user):
        condition |= Q(player1__user=user) | Q(player2__user=user)
    return Match.objects.filter(condition)


def with_players(matches: QuerySet[Match]) -> QuerySet[Match]:
    return matches.select_related("player1", "player2", "discipline", "federation")


def my_matches(user: Any) -> QuerySet[Match]:
    """The user's own matches, those waiting for their answer first, then the newest."""
    if not _signed_in(user):
        return Match.objects.none()
    waiting = awaiting_answer(user)
    mine = Match.objects.filter(Q(player1__user=user) | Q(player2__user=user))
    return (
        with_players(mine)
        .annotate(
            waiting=Case(
                When(id__in=waiting.values("match_id"), result_status="pending", then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
        )
        .order_by("waiting", "-created_at", "-id")
    )


def awaiting_answer(user: Any) -> QuerySet[ResultReport]:
    """Pending reports ``user`` has still to confirm or dispute."""
    if not _signed_in(user):
        return ResultReport.objects.none()
    return ResultReport.objects.filter(pending_for(user)).exclude(responses__by=user)


def pending_for(user: Any) -> Q:
    """Reports waiting for ``user`` to answer (as a queryset filter)."""
    return (
        Q(status=ReportStatus.PENDING)
        & (Q(match__player1__user=user) | Q(match__player2__user=user))
        & ~Q(reported_by=user)
    )


def match_page(user: Any, pk: int) -> Match:
    """One match with everything its page shows (games, turns, reports, responses)."""
    turns = Turn.objects.select_related("recorded_by", "undone_by", "clock_entered_by").order_by(
        "number", "id"
    )
    games = Game.objects.order_by("number").prefetch_related(Prefetch("turns", queryset=turns))
    responses = ReportResponse.objects.select_related("by").order_by("at", "id")
    reports = (
        ResultReport.objects.select_related("reported_by")
        .prefetch_related(Prefetch("responses", queryset=responses))
        .order_by("-created_at", "-id")
    )
    # Marked for games.visibility in the same query (whether its result may be shown).
    matches = visibility.hide_results(with_players(visible_matches(user)), user)
    return matches.prefetch_related(
        Prefetch("games", queryset=games), Prefetch("reports", queryset=reports)
    ).get(pk=pk)


def open_report(match: Match) -> ResultReport | None:
    """The report waiting for an answer or a decision (from prefetched reports)."""
    for report in match.reports.all():
        if report.status in ("pending", "disputed"):
            return report
    return None


def confirmed_report(match: Match) -> ResultReport | None:
    for report in match.reports.all():
        if report.status == "confirmed":
            return report
    return None


def player_matches(user: Any, player_id: int) -> QuerySet[Match]:
    """The matches of a player that ``user`` may read, newest first (by when they
    finished, else started, else were arranged), with both players, each marked for
    ``visibility.result_visible`` (a page of them: one query, and one to count)."""
    theirs = visible_matches(user).filter(Q(player1_id=player_id) | Q(player2_id=player_id))
    return visibility.hide_results(with_players(theirs), user).order_by(
        Coalesce("finished_at", "started_at", "created_at").desc(), "-id"
    )


def disputes_for(user: Any) -> list[ResultReport]:
    """Disputed results ``user`` may decide (the ``match.arbitrate`` rule, per match)."""
    if not _signed_in(user):
        return []
    responses = ReportResponse.objects.select_related("by").order_by("at", "id")
    disputed = (
        ResultReport.objects.filter(status="disputed")
        .select_related(
            "reported_by",
            "match__player1",
            "match__player2",
            "match__discipline",
            "match__federation",
        )
        .prefetch_related(Prefetch("responses", queryset=responses))
        .order_by("created_at", "id")
    )
    return [report for report in disputed if permissions.can(user, "match.arbitrate", report.match)]


def disputes_count(user: Any) -> int:
    """How many disputed results ``user`` may decide: ``len(disputes_for(user))`` in
    one query (the ``match.arbitrate`` rule as a filter), for the header's count."""
    arbitrated = permissions_of_games.arbitrated_matches_q(user)
    if arbitrated is None:
        return 0
    matches = Match.objects.filter(arbitrated).values("id")
    return ResultReport.objects.filter(status=ReportStatus.DISPUTED, match_id__in=matches).count()


def awaiting_official(user: Any) -> list[ResultReport]:
    """Pending results against a player without an account that ``user`` may confirm
    for them (games.services.results.answers_for_absent), oldest first."""
    if not _signed_in(user):
        return []
    candidates = (
        ResultReport.objects.filter(status="pending")
        .filter(Q(match__player1__user__isnull=True) | Q(match__player2__user__isnull=True))
        .select_related(
            "reported_by",
            "match__player1",
            "match__player2",
            "match__discipline",
            "match__federation",
        )
        .prefetch_related(
            Prefetch("responses", queryset=ReportResponse.objects.select_related("by"))
        )
        .order_by("created_at", "id")
    )
    return [report for report in candidates if answers_for_absent(user, report)]


# --- Time control, in words


def duration(seconds: int) -> str:
    """``2 min``, ``90 s`` → ``1 min 30 s``, ``1 h 5 min``."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = []
    if hours:
        parts.append(_("%(n)d h") % {"n": hours})
    if minutes:
        parts.append(_("%(n)d min") % {"n": minutes})
    if secs or not parts:
        parts.append(_("%(n)d s") % {"n": secs})
    return " ".join(parts)


def clock_label(match: Match) -> str:
    """The time control in words: "2 min per point + 12 s delay", "18 min + 8 s"."""
    if match.clock_mode == ClockMode.NONE:
        return _("no clock")
    reserve = []
    if match.clock_reserve_seconds:
        reserve.append(duration(match.clock_reserve_seconds))
    if match.clock_per_point_seconds:
        reserve.append(_("%(time)s per point") % {"time": duration(match.clock_per_point_seconds)})
    text = " + ".join(reserve) or duration(0)
    if match.clock_move_seconds:
        move = duration(match.clock_move_seconds)
        if match.clock_mode == ClockMode.DELAY:
            text += " + " + _("%(time)s delay") % {"time": move}
        else:
            text += " + " + move
    return text
