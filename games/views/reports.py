"""Result reports: a player reports, the opponent confirms or disputes, the
arbiter decides disputes (``/staff/disputes/``), an organizer overrides.

Each answer carries the version of the result the page showed; an answer to a
result that changed meanwhile is refused with a message (no error page).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs import permissions
from clubs.forms import add_service_errors
from clubs.views.accounts import signed_in
from games import queries, services
from games.forms import (
    CancelForm,
    ConfirmForm,
    DecideForm,
    DisputeForm,
    OverrideForm,
    ReportForm,
    game_rows,
)
from games.models import ReportStatus, ResultReport
from games.views.matches import _newest_report_id, get_match, render_match


def _stale(request: HttpRequest, report: ResultReport | None) -> HttpResponse:
    if report is None:
        text = _("This result no longer exists; check the match below.")
    else:
        text = _(
            "The result changed while you were looking at it (it is now %(status)s). "
            "Check the current version below."
        ) % {"status": report.get_status_display()}
    messages.error(request, text)
    target = report.match_id if report is not None else None
    return redirect("games:match", pk=target) if target else redirect("games:match_list")


def _back(request: HttpRequest, match_id: int) -> HttpResponse:
    target = request.POST.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect("games:match", pk=match_id)


def _versioned_report(request: HttpRequest, pk: int, form: Any) -> ResultReport | None:
    """The report, when it is still the version the page showed; else None."""
    report = ResultReport.objects.select_related("match").filter(pk=pk).first()
    if report is None or not queries.visible_matches(request.user).filter(pk=report.match_id):
        return None
    shown = form.cleaned_data
    if (shown.get("report") not in (None, report.pk)) or (
        shown.get("status") and shown["status"] != report.status
    ):
        return None
    return report


def _submitted_message(report: ResultReport) -> str:
    if report.status == ReportStatus.CONFIRMED:
        return _("The result has been entered; it is official.")
    if services.awaits_official(report):
        return _(
            "The result has been reported. Your opponent has no account, so it counts "
            "once a club or federation official confirms it."
        )
    return _("The result has been reported; your opponent is asked to confirm it.")


@signed_in
@require_POST
def submit(request: HttpRequest, pk: int) -> HttpResponse:
    """A player reports the final score of a match not recorded move by move; an
    arbiter or organizer enters it (official at once)."""
    match = get_match(request, pk)
    form = ReportForm(match, request.POST, request.FILES)
    # The game rows are optional (API-like clients may post the score alone).
    with_rows = "games-TOTAL_FORMS" in request.POST
    rows = game_rows(match, request.POST if with_rows else None)
    if form.is_valid() and (not with_rows or rows.is_valid()):
        open_report = queries.open_report(match)
        if (form.cleaned_data.get("current") or None) != (open_report.pk if open_report else None):
            messages.error(
                request,
                _("Another result was reported meanwhile; check it below before reporting again."),
            )
            return redirect("games:match", pk=match.pk)
        data = form.cleaned_data
        try:
            report = services.submit_report(
                match,
                by=request.user,
                score1=data["score1"],
                score2=data["score2"],
                games=rows.log() if with_rows and not form.mat_text else None,
                mat_text=form.mat_text,
            )
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, _submitted_message(report))
            return redirect("games:match", pk=match.pk)
    return render_match(request, match, status=400, report_form=form, game_rows=rows)


@signed_in
@require_POST
def confirm(request: HttpRequest, pk: int) -> HttpResponse:
    form = ConfirmForm(request.POST)
    form.is_valid()
    report = _versioned_report(request, pk, form)
    if report is None:
        return _stale(request, ResultReport.objects.filter(pk=pk).first())
    try:
        report = services.confirm_report(report, by=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        if report.status == ReportStatus.CONFIRMED:
            messages.success(request, _("You confirmed the result; it is now official."))
        else:
            messages.success(request, _("You confirmed the result."))
    return redirect("games:match", pk=report.match_id)


@signed_in
@require_POST
def dispute(request: HttpRequest, pk: int) -> HttpResponse:
    form = DisputeForm(request.POST)
    if not form.is_valid():
        report = ResultReport.objects.filter(pk=pk).first()
        if report is None:
            return _stale(request, None)
        match = get_match(request, report.match_id)
        return render_match(request, match, status=400, dispute_form=form)
    report = _versioned_report(request, pk, form)
    if report is None:
        return _stale(request, ResultReport.objects.filter(pk=pk).first())
    try:
        services.dispute_report(report, by=request.user, reason=form.cleaned_data["reason"])
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("You disputed the result; an arbiter will decide."))
    return redirect("games:match", pk=report.match_id)


@signed_in
@require_POST
def decide(request: HttpRequest, pk: int) -> HttpResponse:
    """The arbiter upholds a disputed result or sets the score, with a reason."""
    form = DecideForm(request.POST)
    report = ResultReport.objects.select_related("match").filter(pk=pk).first()
    if report is None:
        return _stale(request, None)
    if not form.is_valid():
        errors = "; ".join(" ".join(messages_) for messages_ in form.errors.values())
        messages.error(
            request,
            _("The decision on %(match)s was not saved: %(errors)s")
            % {"match": report.match, "errors": errors},
        )
        return _back(request, report.match_id)
    if _versioned_report(request, pk, form) is None:
        return _stale(request, report)
    data = form.cleaned_data
    try:
        services.decide_dispute(
            report,
            by=request.user,
            uphold=data["decision"] == "uphold",
            reason=data["reason"],
            score1=data.get("score1"),
            score2=data.get("score2"),
        )
    except ValidationError as error:
        messages.error(
            request,
            _("The decision on %(match)s was not saved: %(errors)s")
            % {"match": report.match, "errors": " ".join(error.messages)},
        )
    else:
        messages.success(
            request, _("The dispute over %(match)s is decided.") % {"match": report.match}
        )
    return _back(request, report.match_id)


@signed_in
@require_POST
def override(request: HttpRequest, pk: int) -> HttpResponse:
    """An organizer sets the result with a written reason."""
    match = get_match(request, pk)
    if not permissions.can(request.user, "match.override", match):
        raise PermissionDenied(_("Only the organizer may override a result."))
    form = OverrideForm(request.POST)
    if not form.is_valid():
        return render_match(request, match, status=400, override_form=form)
    data = form.cleaned_data
    if (data.get("version") or 0) != _newest_report_id(match):
        messages.error(request, _("The result changed meanwhile; check the current version below."))
        return redirect("games:match", pk=match.pk)
    try:
        services.override_result(
            match,
            by=request.user,
            score1=data["score1"],
            score2=data["score2"],
            reason=data["reason"],
            forfeit=data["forfeit"],
        )
    except ValidationError as error:
        add_service_errors(form, error)
        return render_match(request, match, status=400, override_form=form)
    messages.success(request, _("The result has been overridden."))
    return redirect("games:match", pk=match.pk)


@signed_in
@require_POST
def cancel(request: HttpRequest, pk: int) -> HttpResponse:
    """An organizer voids the match with a written reason."""
    match = get_match(request, pk)
    if not permissions.can(request.user, "match.override", match):
        raise PermissionDenied(_("Only the organizer may cancel a match."))
    form = CancelForm(request.POST)
    if not form.is_valid():
        return render_match(request, match, status=400, cancel_form=form)
    if (form.cleaned_data.get("version") or 0) != _newest_report_id(match):
        messages.error(request, _("The result changed meanwhile; check the current version below."))
        return redirect("games:match", pk=match.pk)
    try:
        services.cancel_match(match, by=request.user, reason=form.cleaned_data["reason"])
    except ValidationError as error:
        add_service_errors(form, error)
        return render_match(request, match, status=400, cancel_form=form)
    messages.success(request, _("The match has been cancelled."))
    return redirect("games:match", pk=match.pk)


@signed_in
def disputes(request: HttpRequest) -> HttpResponse:
    """Disputed results the user may decide, and results awaiting their confirmation
    as an official for a player without an account; oldest first."""
    reports = queries.disputes_for(request.user)
    rows = [
        {
            "report": report,
            "reporter": report.match.player(report.reporter_side) if report.reporter_side else None,
            "form": DecideForm(
                initial={"report": report.pk, "status": report.status},
                auto_id=f"id_decide{report.pk}_%s",
            ),
        }
        for report in reports
    ]
    # Results against players without an account, which this official confirms for them.
    waiting = [
        {
            "report": report,
            "reporter": report.match.player(report.reporter_side) if report.reporter_side else None,
            "form": ConfirmForm(
                initial={"report": report.pk, "status": report.status},
                auto_id=f"id_confirm{report.pk}_%s",
            ),
        }
        for report in queries.awaiting_official(request.user)
    ]
    return render(request, "games/disputes.html", {"rows": rows, "awaiting_official": waiting})
