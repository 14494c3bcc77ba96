"""Results: reports, their confirmation or dispute, the arbiter's decision and overrides.

A result becomes official only when it is confirmed: by the opponent of the
player who reported it (or, for a player without an account, by an official
who manages them), by an arbiter's decision, by an override, or on its own
when nobody answered by the deadline (``confirm_overdue_reports``, a
periodic task).  An arbiter or organizer of the match who does not play in it
enters a result official at once.  Each change locks the match row first,
then the report (base.locking).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from base import locking
from clubs import permissions
from clubs.models import Player
from games import adapters, scorecheck
from games.events import result_confirmed, result_withdrawn
from games.models import (
    Match,
    MatchState,
    ReportResponse,
    ReportSource,
    ReportStatus,
    ResponseKind,
    ResultReport,
    ResultStatus,
)
from games.permissions import side_of
from games.services.matches import clear_result


def _deadline() -> datetime.datetime:
    return timezone.now() + datetime.timedelta(hours=settings.RESULT_CONFIRMATION_HOURS)


def enters_officially(user: Any, match: Match) -> bool:
    """Whether a result ``user`` enters for ``match`` is official at once: an arbiter
    or organizer of the match (games and tournaments rules), or the system
    (``None``).  An official who plays in the match reports as a player: their
    opponent confirms, as for anyone else."""
    if user is None:
        return True
    if not user.is_authenticated or side_of(user, match) is not None:
        return False
    return permissions.can(user, "match.arbitrate", match) or permissions.can(
        user, "match.override", match
    )


def _sides_to_answer(report: ResultReport) -> set[int]:
    """Player sides whose confirmation ``report`` still waits for."""
    return {1, 2} - _confirmers(report)


def absent_players(report: ResultReport) -> list[Player]:
    """Players whose confirmation a pending ``report`` waits for but who have no
    account to give it: a club or federation official answers for them."""
    if report.status != ReportStatus.PENDING:
        return []
    match = report.match
    return [
        match.player(side)
        for side in sorted(_sides_to_answer(report))
        if match.player(side).user_id is None
    ]


def awaits_official(report: ResultReport) -> bool:
    """The report counts only once an official confirms it (its opponent cannot)."""
    return bool(absent_players(report))


def answers_for_absent(user: Any, report: ResultReport) -> bool:
    """Whether ``user`` may confirm or dispute ``report`` for the players who cannot:
    an official who manages each of them (or arbitrates the match), who neither
    plays in the match nor reported the result."""
    if user is None or not user.is_authenticated:
        return False
    match = report.match
    if side_of(user, match) is not None or report.reported_by_id == user.pk:
        return False
    return awaits_official(report) and permissions.can(user, "match.answer_for_absent", match)


def file_report(
    match: Match,
    *,
    source: str,
    by: Any,
    reporter_side: int | None,
    score1: int,
    score2: int,
    games: list[dict[str, Any]],
    mat_text: str = "",
    reason: str = "",
) -> ResultReport:
    """A new report of the match's result, waiting for its answer (the open ones are superseded)."""
    match.reports.filter(status__in=[ReportStatus.PENDING, ReportStatus.DISPUTED]).update(
        status=ReportStatus.SUPERSEDED, decided_at=timezone.now()
    )
    # Nobody answers for a player without an account when the deadline passes: the
    # report waits for an official instead (no deadline).
    answering = {1, 2} - {reporter_side}
    silent = any(match.player(side).user_id is None for side in answering)
    report = ResultReport.objects.create(
        match=match,
        source=source,
        reported_by=by if by is not None and by.is_authenticated else None,
        reporter_side=reporter_side,
        score1=score1,
        score2=score2,
        games=games,
        mat_text=mat_text,
        reason=reason,
        deadline=None if silent else _deadline(),
    )
    match.result_status = ResultStatus.PENDING
    match.save(update_fields=["result_status"])
    return report


@transaction.atomic
def submit_report(
    match: Match,
    *,
    by: Any,
    score1: int,
    score2: int,
    games: list[dict[str, Any]] | None = None,
    mat_text: str = "",
) -> ResultReport:
    """Report the final score (optionally with the game log or a .mat file).

    A player's report waits for the opponent's confirmation.  An arbiter or
    organizer of the match who does not play in it enters the result: it is
    official at once, recorded as theirs (``ReportSource.OFFICIAL``)."""
    match = locking.row(
        Match.objects.select_related("player1", "player2", "discipline"), pk=match.pk
    )
    permissions.require(by, "match.report", match)
    if match.result_status == ResultStatus.CONFIRMED:
        raise ValidationError(_("The result is confirmed; only an override can change it."))
    if match.recorded and match.games.exists():
        raise ValidationError(
            _("This match is recorded move by move; its record gives the result.")
        )
    official = enters_officially(by, match)
    if official and match.result_status == ResultStatus.DISPUTED:
        raise ValidationError(
            _("The reported result is disputed: decide the dispute, giving the reason.")
        )
    log = list(games or [])
    if mat_text.strip():
        log, final = adapters.log_from_mat(match, mat_text)
        if (score1, score2) != final:
            raise ValidationError(
                _("The match file ends %(a)d–%(b)d, not %(c)d–%(d)d as reported.")
                % {"a": final[0], "b": final[1], "c": score1, "d": score2}
            )
    adapters.check_report(match, score1, score2, log)
    report = file_report(
        match,
        source=ReportSource.OFFICIAL if official else ReportSource.PLAYER,
        by=by,
        reporter_side=None if official else side_of(by, match),
        score1=score1,
        score2=score2,
        games=log,
        mat_text=mat_text,
    )
    if official:
        report.deadline = None
        report.save(update_fields=["deadline"])
        make_official(report, match)
    elif match.state == MatchState.SCHEDULED:
        match.state = MatchState.FINISHED
        match.finished_at = timezone.now()
        match.save(update_fields=["state", "finished_at"])
    return report


def _lock_open_report(report: ResultReport) -> tuple[ResultReport, Match]:
    # The match first, then the report (base.locking): an override locks them so too.
    match_id = ResultReport.objects.values_list("match_id", flat=True).get(pk=report.pk)
    match = locking.row(Match.objects.select_related("player1", "player2"), pk=match_id)
    report = locking.row(ResultReport.objects, pk=report.pk)
    report.match = match
    return report, match


def _confirmers(report: ResultReport) -> set[int]:
    """Player sides that have confirmed (the reporter counts for their side)."""
    sides: set[int] = set()
    match = report.match
    # All responses, filtered here: a page or the API may have prefetched them.
    for response in report.responses.all():
        side = side_of(response.by, match) if response.kind == ResponseKind.CONFIRM else None
        if side:
            sides.add(side)
    if report.reporter_side:
        sides.add(report.reporter_side)
    return sides


@transaction.atomic
def confirm_report(report: ResultReport, *, by: Any) -> ResultReport:
    """The opponent of the reporter confirms (a record with both sides to answer
    needs both players).  For a player without an account, an official who
    manages them confirms instead, and the result is official at once."""
    report, match = _lock_open_report(report)
    if report.status != ReportStatus.PENDING:
        raise ValidationError(
            _("This result can no longer be confirmed (it is %(status)s).")
            % {"status": report.get_status_display()}
        )
    # Nobody confirms a result they reported, whichever side (or none) it was filed for.
    if report.reported_by_id is not None and report.reported_by_id == by.pk:
        raise ValidationError(_("You reported this result; only someone else can confirm it."))
    side = side_of(by, match)
    if side is None and answers_for_absent(by, report):
        ReportResponse.objects.create(report=report, kind=ResponseKind.OFFICIAL, by=by)
        make_official(report, match)
        return report
    if side is None or side == report.reporter_side:
        if awaits_official(report):
            raise ValidationError(
                _(
                    "Only the opponent of the player who reported, or a club or federation "
                    "official who manages a player without an account, can confirm."
                )
            )
        raise ValidationError(_("Only the opponent of the player who reported can confirm."))
    if report.responses.filter(kind=ResponseKind.CONFIRM, by=by).exists():
        raise ValidationError(_("You have confirmed this result already."))
    ReportResponse.objects.create(report=report, kind=ResponseKind.CONFIRM, by=by)
    if _confirmers(report) >= {1, 2}:
        make_official(report, match)
    return report


@transaction.atomic
def dispute_report(report: ResultReport, *, by: Any, reason: str) -> ResultReport:
    report, match = _lock_open_report(report)
    if report.status != ReportStatus.PENDING:
        raise ValidationError(
            _("This result can no longer be disputed (it is %(status)s).")
            % {"status": report.get_status_display()}
        )
    side = side_of(by, match)
    for_absent = side is None and answers_for_absent(by, report)
    if not for_absent and (side is None or side == report.reporter_side):
        raise ValidationError(_("Only the opponent of the player who reported can dispute."))
    if not reason.strip():
        raise ValidationError(_("Say what is wrong with the reported result."))
    ReportResponse.objects.create(report=report, kind=ResponseKind.DISPUTE, by=by, reason=reason)
    report.status = ReportStatus.DISPUTED
    report.save(update_fields=["status"])
    match.result_status = ResultStatus.DISPUTED
    match.save(update_fields=["result_status"])
    return report


@transaction.atomic
def decide_dispute(
    report: ResultReport,
    *,
    by: Any,
    uphold: bool,
    reason: str,
    score1: int | None = None,
    score2: int | None = None,
) -> ResultReport:
    """The arbiter upholds the report or sets the result; the decision is official."""
    report, match = _lock_open_report(report)
    permissions.require(by, "match.arbitrate", match)
    if report.status != ReportStatus.DISPUTED:
        raise ValidationError(_("Only a disputed result is decided by the arbiter."))
    if not reason.strip():
        raise ValidationError(_("Give the reason for the decision."))
    if uphold:
        ReportResponse.objects.create(report=report, kind=ResponseKind.UPHOLD, by=by, reason=reason)
        make_official(report, match)
        return report
    if score1 is None or score2 is None:
        raise ValidationError(_("Give the score the arbiter decided."))
    adapters.check_report(match, score1, score2, [])
    ReportResponse.objects.create(report=report, kind=ResponseKind.OVERTURN, by=by, reason=reason)
    report.status = ReportStatus.REJECTED
    report.decided_at = timezone.now()
    report.save(update_fields=["status", "decided_at"])
    decision = ResultReport.objects.create(
        match=match,
        source=ReportSource.ARBITER,
        reported_by=by,
        score1=score1,
        score2=score2,
        reason=reason,
        status=ReportStatus.PENDING,
    )
    make_official(decision, match)
    return decision


@transaction.atomic
def override_result(
    match: Match, *, by: Any, score1: int, score2: int, reason: str, forfeit: bool = False
) -> ResultReport:
    """An organizer sets the result with a written reason (kept with every earlier version)."""
    # The match, then (by the update below) its reports: the order of base.locking.
    match = locking.row(Match.objects, pk=match.pk)
    permissions.require(by, "match.override", match)
    if not reason.strip():
        raise ValidationError(_("An override needs a written reason."))
    adapters.check_report(match, score1, score2, [])
    match.reports.filter(
        status__in=[ReportStatus.PENDING, ReportStatus.DISPUTED, ReportStatus.CONFIRMED]
    ).update(status=ReportStatus.SUPERSEDED, decided_at=timezone.now())
    report = ResultReport.objects.create(
        match=match,
        source=ReportSource.OVERRIDE,
        reported_by=by,
        score1=score1,
        score2=score2,
        reason=reason,
    )
    match.forfeit = forfeit
    match.save(update_fields=["forfeit"])
    make_official(report, match)
    return report


@transaction.atomic
def take_back_override(report: ResultReport, *, by: Any) -> Match:
    """Take back an override that is still the match's official result and its latest
    report (a forfeit recorded in error, a withdrawal undone): the match awaits its
    result again, as it did before (playing once it had begun).  The override and the
    reports it superseded stay on record, superseded; whatever was computed from the
    result is computed again (``result_withdrawn``)."""
    # The match, then its reports (base.locking).
    match = locking.row(Match.objects, pk=report.match_id)
    permissions.require(by, "match.override", match)
    report = locking.row(ResultReport.objects, pk=report.pk)
    latest = match.reports.order_by("-id").values_list("pk", flat=True).first()
    if (
        report.source != ReportSource.OVERRIDE
        or report.status != ReportStatus.CONFIRMED
        or match.result_status != ResultStatus.CONFIRMED
        or latest != report.pk
    ):
        raise ValidationError(
            _("The result of %(match)s has changed since: the override is no longer its result.")
            % {"match": match}
        )
    report.status = ReportStatus.SUPERSEDED
    report.decided_at = timezone.now()
    report.save(update_fields=["status", "decided_at"])
    began = match.started_at is not None or match.games.exists()
    match.state = MatchState.PLAYING if began else MatchState.SCHEDULED
    match.finished_at = None
    match.save(update_fields=["state", "finished_at", *clear_result(match)])
    result_withdrawn.send(match_id=match.pk)
    return match


def make_official(report: ResultReport, match: Match) -> None:
    """``report`` gives the match its official result (``result_confirmed`` says so)."""
    report.status = ReportStatus.CONFIRMED
    report.decided_at = timezone.now()
    report.save(update_fields=["status", "decided_at"])
    _give_result(report, match)


def official_at_once(
    match: Match,
    *,
    source: str,
    score1: int,
    score2: int,
    games: list[dict[str, Any]],
    also: tuple[str, ...] = (),
) -> ResultReport:
    """A result official as it is filed, for a match that has no report yet (one
    created in this transaction: ``matfiles.store_record``'s), with nothing to
    confirm: the rows ``file_report`` then ``make_official`` leave (the report
    confirmed, without deadline; the match's result), written as one insert and
    one update instead of six statements, and ``result_confirmed`` announced the
    same.  ``also``: fields the caller changed on ``match``, saved with it."""
    report = ResultReport.objects.create(
        match=match,
        source=source,
        reported_by=None,
        reporter_side=None,
        score1=score1,
        score2=score2,
        games=games,
        status=ReportStatus.CONFIRMED,
        deadline=None,
        decided_at=timezone.now(),
    )
    _give_result(report, match, also)
    return report


def _give_result(report: ResultReport, match: Match, also: tuple[str, ...] = ()) -> None:
    """The confirmed ``report``'s result on the match, saved (with ``also``) and announced."""
    match.score1, match.score2 = report.score1, report.score2
    match.winner = scorecheck.winner_of(match.length, report.score1, report.score2)
    match.result_status = ResultStatus.CONFIRMED
    match.state = MatchState.FINISHED
    match.finished_at = match.finished_at or timezone.now()
    match.cancelled_at = None  # an override gives a cancelled match its result
    match.save(
        update_fields=[
            "score1",
            "score2",
            "winner",
            "result_status",
            "state",
            "finished_at",
            "cancelled_at",
            *also,
        ]
    )
    result_confirmed.send(match_id=match.pk)


def _no_one_to_answer() -> Q:
    """Reports a side without an account must answer (for the periodic task: these
    wait for an official however old they are, reports made before that rule too)."""
    player1_absent = Q(match__player1__user__isnull=True)
    player2_absent = Q(match__player2__user__isnull=True)
    return (
        (Q(reporter_side=1) & player2_absent)
        | (Q(reporter_side=2) & player1_absent)
        | (Q(reporter_side__isnull=True) & (player1_absent | player2_absent))
    )


def confirm_overdue_reports(now: datetime.datetime | None = None) -> int:
    """Reports nobody answered by their deadline become official (a periodic task),
    except those against a player who has no account to answer with."""
    now = now or timezone.now()
    confirmed = 0
    due = Q(status=ReportStatus.PENDING, deadline__lt=now) & ~_no_one_to_answer()
    overdue = ResultReport.objects.filter(due).values_list("pk", flat=True)
    for pk in list(overdue):
        with transaction.atomic():
            # The match first, then the report (base.locking).
            match_id = ResultReport.objects.filter(pk=pk).values_list("match_id", flat=True).first()
            if match_id is None:
                continue
            match = locking.row(Match.objects, pk=match_id)
            report = next(iter(locking.rows(ResultReport.objects.filter(due, pk=pk))), None)
            if report is None:  # decided meanwhile, or by another run of this task
                continue
            ReportResponse.objects.create(report=report, kind=ResponseKind.AUTO)
            make_official(report, match)
            confirmed += 1
    return confirmed
