"""Match pages: a player's matches, the match page, arranging a match, loss on
time, the .mat/.sgf downloads and the .mat upload.

Views stay thin: they read through games.queries, ask clubs.permissions what
to offer, and hand every change to games.services.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from base.engine_messages import warning_message
from clubs import permissions
from clubs.forms import add_service_errors
from clubs.views.accounts import signed_in
from games import adapters, belonging, exports, match_extras, queries, services, visibility
from games import permissions as side_rules
from games.forms import (
    CancelForm,
    ConfirmForm,
    DecideForm,
    DisputeForm,
    ImportMatForm,
    MatchForm,
    OverrideForm,
    ReportForm,
    TimeoutForm,
    game_rows,
)
from games.models import ClockMode, Match, MatchState, ReportStatus, ResultStatus
from games.views.archives import may_import_archives
from games.views.board import physical_clock_text


def get_match(request: HttpRequest, pk: int) -> Match:
    try:
        return queries.match_page(request.user, pk)
    except Match.DoesNotExist:
        raise Http404(_("No such match.")) from None


def get_match_with_result(request: HttpRequest, pk: int) -> Match:
    """The match, refused (403) when its result is hidden from the user (games.visibility):
    its files tell the result."""
    match = get_match(request, pk)
    if not visibility.result_visible(request.user, match):
        raise PermissionDenied(visibility.hidden_message())
    return match


def _games_table(match: Match) -> list[dict[str, Any]]:
    rows = []
    for game in match.games.all():
        after = None
        if game.winner is not None:
            points = game.points or 0
            after = (
                game.score1_before + (points if game.winner == 1 else 0),
                game.score2_before + (points if game.winner == 2 else 0),
            )
        turns = [
            {
                "turn": turn,
                "player": match.player(turn.side),
                "clock1": queries.clock_reading(turn.clock1_ms),
                "clock2": queries.clock_reading(turn.clock2_ms),
                "clock_source": physical_clock_text(turn),
            }
            for turn in game.turns.all()
        ]
        rows.append(
            {
                "game": game,
                "winner": match.player(game.winner) if game.winner else None,
                "after": after,
                "turns": turns,
                "clocked": any(t["clock1"] or t["clock2"] for t in turns),
            }
        )
    return rows


def _history(match: Match) -> list[dict[str, Any]]:
    rows = []
    for report in match.reports.all():
        reporter = match.player(report.reporter_side) if report.reporter_side else None
        rows.append({"report": report, "reporter": reporter, "responses": report.responses.all()})
    return rows


def _newest_report_id(match: Match) -> int:
    reports = list(match.reports.all())
    return reports[0].pk if reports else 0


def _answered(report: Any, user: Any) -> bool:
    return any(response.by_id == user.pk for response in report.responses.all())


def match_context(request: HttpRequest, match: Match, **bound: Any) -> dict[str, Any]:
    """Everything the match page shows, with the forms this user may use."""
    user = request.user
    if not visibility.result_visible(user, match):
        # A silent round's match: who plays whom is public, its result, games and
        # reports are not (and nobody who may not see them may act on them).
        return {
            "match": match,
            "side": None,
            "clock": queries.clock_label(match),
            "clocked": match.clock_mode != ClockMode.NONE,
            "result_hidden": True,
        }
    side = side_rules.side_of(user, match)
    open_report = queries.open_report(match)
    confirmed = queries.confirmed_report(match)
    games = list(match.games.all())
    has_games = bool(games)
    versioned = {"report": open_report.pk, "status": open_report.status} if open_report else {}
    context: dict[str, Any] = {
        "match": match,
        "side": side,
        "clock": queries.clock_label(match),
        "clocked": match.clock_mode != ClockMode.NONE,
        "games": _games_table(match),
        "history": _history(match),
        "open_report": open_report,
        "confirmed": confirmed,
        "last_game": games[-1] if games else None,
        "can_download": match.recorded and has_games and exports.mat_supported(match),
        "sgf": match.recorded and has_games and exports.sgf_supported(match),
        # Soldiers: the project's own record (games:match_record), classes and pins kept.
        "record_json": match.recorded and has_games and exports.record_supported(match),
        # What higher apps know of the match (its analysis), as blocks they render.
        "extras": match_extras.blocks(request, match),
        "extra_styles": match_extras.stylesheets(),
    }
    # A result is reported once; while it awaits an answer only its reporter may
    # correct it, or an arbiter or organizer enter the official one instead (a
    # disputed one is for the arbiter to decide).
    official = user.is_authenticated and services.enters_officially(user, match)
    context["enters_officially"] = official
    if open_report is not None and open_report.status == ReportStatus.PENDING:
        context["absent_players"] = services.absent_players(open_report)
    may_report = (
        permissions.can(user, "match.report", match)
        and match.result_status != ResultStatus.CONFIRMED
        and match.state != MatchState.CANCELLED
        and not (match.recorded and has_games)
        and (
            open_report is None
            or (
                open_report.status == ReportStatus.PENDING
                and (official or open_report.reported_by_id == user.pk)
            )
        )
    )
    if may_report:
        context["report_form"] = bound.get("report_form") or ReportForm(
            match, initial={"current": open_report.pk if open_report else None}
        )
        context["game_rows"] = bound.get("game_rows") or game_rows(match)
    if (
        open_report is not None
        and open_report.status == ReportStatus.PENDING
        and not _answered(open_report, user)
        and (
            (side is not None and side != open_report.reporter_side)
            or (side is None and services.answers_for_absent(user, open_report))
        )
    ):
        context["confirm_form"] = ConfirmForm(initial=versioned)
        context["dispute_form"] = bound.get("dispute_form") or DisputeForm(initial=versioned)
    if (
        open_report is not None
        and open_report.status == ReportStatus.DISPUTED
        and permissions.can(user, "match.arbitrate", match)
    ):
        context["decide_form"] = bound.get("decide_form") or DecideForm(initial=versioned)
    if permissions.can(user, "match.override", match):
        # A cancelled match may be given a result again (an override restores it).
        current = confirmed or open_report
        initial = {"version": _newest_report_id(match)}
        if current is not None:
            initial |= {"score1": current.score1, "score2": current.score2}
        context["override_form"] = bound.get("override_form") or OverrideForm(initial=initial)
        if match.state != MatchState.CANCELLED:
            context["cancel_form"] = bound.get("cancel_form") or CancelForm(
                initial={"version": _newest_report_id(match)}
            )
    if (
        match.clock_mode != ClockMode.NONE
        and match.state in (MatchState.SCHEDULED, MatchState.PLAYING)
        and permissions.can(user, "match.record", match)
    ):
        context["timeout_version"] = _newest_report_id(match)
        context["timeout_arbiter"] = permissions.can(user, "match.arbitrate", match)
        context["timeout_player"] = side is not None
    return context


def render_match(request: HttpRequest, match: Match, status: int = 200, **bound: Any) -> Any:
    context = match_context(request, match, **bound)
    # Where the match was played (a tournament's round and table), from the app it belongs to.
    context["trail"] = belonging.trail(request.user, match)
    # Long nardy and other variants without the cube have no cube value to show.
    context["has_cube"] = adapters.rules_for(match).cube_enabled
    # Where each game's opening names the colours (Nauka), a seat has none of its own.
    context["colours_by_opening"] = adapters.colours_by_opening(match)
    # An imported file's warnings, in the viewer's language (stored as code and data).
    context["import_warnings"] = [warning_message(w) for w in match.import_warnings]
    return render(request, "games/match_detail.html", context, status=status)


# --- Pages


@signed_in
def match_list(request: HttpRequest) -> HttpResponse:
    """The user's matches: those waiting for their confirmation first."""
    matches = list(queries.my_matches(request.user))
    arrange = MatchForm(request.user)
    return render(
        request,
        "games/match_list.html",
        {
            "matches": matches,
            "waiting": [match for match in matches if match.waiting == 0],
            "may_arrange": arrange.may_arrange,
            "may_import_archives": may_import_archives(request.user),
        },
    )


def match_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render_match(request, get_match(request, pk))


@signed_in
@require_http_methods(["GET", "POST"])
def match_create(request: HttpRequest) -> HttpResponse:
    """A player challenges a player of their federation; staff arrange matches
    between players they manage."""
    form = MatchForm(request.user, request.POST or None)
    if not form.may_arrange:
        raise PermissionDenied(_("Link your account to your player profile to arrange matches."))
    if request.method == "POST" and form.is_valid():
        try:
            match = services.create_match(by=request.user, **form.service_arguments())
        except ValidationError as error:
            add_service_errors(form, error)
        except PermissionDenied:
            form.add_error(None, _("You may not arrange a match between these players."))
        else:
            messages.success(request, _("The match has been created."))
            return redirect("games:match", pk=match.pk)
    return render(request, "games/match_form.html", {"form": form})


@signed_in
@require_http_methods(["GET", "POST"])
def match_import(request: HttpRequest) -> HttpResponse:
    """Upload a .mat or .xg file: it becomes a recorded match, checked play by play."""
    form = ImportMatForm(request.user, request.POST or None, request.FILES or None)
    if not form.may_arrange:
        raise PermissionDenied(_("Link your account to your player profile to arrange matches."))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        # An .xg file arrives as bytes (ImportMatForm.clean_file), a .mat file as text.
        importer = services.import_xg if isinstance(data["file"], bytes) else services.import_mat
        try:
            match = importer(
                data["file"],
                by=request.user,
                player1=data["player1"],
                player2=data["player2"],
                discipline=data["discipline"],
                source_hash=form.source_hash,
            )
        except ValidationError as error:
            form.add_error("file", error)
        except PermissionDenied:
            form.add_error(None, _("You may not arrange a match between these players."))
        else:
            messages.success(
                request,
                _("The match file has been imported: %(games)d games.")
                % {"games": match.games.count()},
            )
            return redirect("games:match", pk=match.pk)
    return render(request, "games/match_import.html", {"form": form})


@signed_in
@require_POST
def match_timeout(request: HttpRequest, pk: int) -> HttpResponse:
    """A player's time ran out: the arbiter, or the player whose opponent flagged, records it."""
    match = get_match(request, pk)
    form = TimeoutForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Say which player ran out of time."))
        return redirect("games:match", pk=match.pk)
    loser = form.cleaned_data["loser"]
    # Who may claim it (the opponent, a scorer, an arbiter) is the service's rule:
    # it answers PermissionDenied, a 403, before anything is saved.
    if (form.cleaned_data["version"] or 0) != _newest_report_id(match):
        messages.error(request, _("The result changed meanwhile; check the match below."))
        return redirect("games:match", pk=match.pk)
    try:
        services.record_timeout(match, by=request.user, loser=loser)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, _("%(player)s lost on time.") % {"player": match.player(loser)})
    return redirect("games:match", pk=match.pk)


def _download(text: str, name: str, content_type: str) -> HttpResponse:
    response = HttpResponse(text, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _refused(match: Match, fmt: str) -> HttpResponse | None:
    """409 with the reason when the match's variant cannot go to ``fmt`` at all
    (Soldiers' classes and pins), in the reader's language."""
    reason = exports.refusal(match, fmt)
    if reason is None:
        return None
    return HttpResponse(reason, status=409, content_type="text/plain; charset=utf-8")


def export_mat(request: HttpRequest, pk: int) -> HttpResponse:
    match = get_match_with_result(request, pk)
    refused = _refused(match, "mat")
    if refused is not None:
        return refused
    if not (match.recorded and match.games.all() and exports.mat_supported(match)):
        raise Http404(_("This match cannot be written as .mat."))
    return _download(exports.mat_text(match), f"match-{match.pk}.mat", "text/plain")


def export_sgf(request: HttpRequest, pk: int) -> HttpResponse:
    match = get_match_with_result(request, pk)
    refused = _refused(match, "sgf")
    if refused is not None:
        return refused
    if not (match.recorded and match.games.all() and exports.sgf_supported(match)):
        raise Http404(_("This match cannot be written as .sgf."))
    return _download(exports.sgf_text(match), f"match-{match.pk}.sgf", "application/x-go-sgf")


def export_record(request: HttpRequest, pk: int) -> HttpResponse:
    """The project's own record of a Soldiers match (JSON): options, turns and the
    position text after each, so checker classes and pins are kept."""
    match = get_match_with_result(request, pk)
    if not (match.recorded and match.games.exists() and exports.record_supported(match)):
        raise Http404(_("This match has no record of its own format."))
    text = json.dumps(exports.soldiers_record(match), ensure_ascii=False, indent=1)
    return _download(text, f"match-{match.pk}.json", "application/json")
