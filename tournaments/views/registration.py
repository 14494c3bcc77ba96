"""Registration at scale: entering a pasted list or a CSV of players (a preview
first, then one confirmation), checking in everyone or a list, and the self
check-in window with its link and QR code.

The preview page carries the list it showed and a digest of its answer
(``services.entries.preview_digest``); the confirmation matches the list again
and is refused when the answer changed, so a stale preview enters nobody.
"""

from __future__ import annotations

import json
from typing import Any

import segno
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from clubs.views.accounts import signed_in
from tournaments.forms import CheckInListForm, PlayerListForm, SelfCheckInWindowForm
from tournaments.models import Tournament
from tournaments.services import entries as entry_services
from tournaments.services.entries import BULK_MAX_LINES, ListLine
from tournaments.views.common import console_url, error_text, get_managed

MAX_NAME = 200


def _lines_json(lines: list[ListLine]) -> str:
    return json.dumps([[ln.number, ln.name, ln.club, ln.rating] for ln in lines])


def _lines_from_json(text: str) -> list[ListLine]:
    """The list the preview carried, checked as strictly as if it were typed: a
    tampered or truncated form is a bad request, never a 500."""
    try:
        rows = json.loads(text)
        if not isinstance(rows, list) or not rows or len(rows) > BULK_MAX_LINES:
            raise ValueError
        lines = []
        for number, name, club, rating in rows:
            if not (isinstance(number, int) and isinstance(name, str) and isinstance(club, str)):
                raise ValueError
            if rating is not None and not isinstance(rating, int | float):
                raise ValueError
            if not name.strip() or len(name) > MAX_NAME or len(club) > MAX_NAME:
                raise ValueError
            lines.append(ListLine(number, name, club, None if rating is None else float(rating)))
        return lines
    except (ValueError, TypeError) as error:
        raise ValidationError(_("The list sent back is damaged: paste it again.")) from error


def _choices(request: HttpRequest) -> dict[int, int]:
    chosen = {}
    for key, value in request.POST.items():
        if key.startswith("choice_") and key[7:].isdigit() and value.isdigit():
            chosen[int(key[7:])] = int(value)
    return chosen


def _preview_page(
    request: HttpRequest, tournament: Tournament, lines: list[ListLine], status: int = 200
) -> HttpResponse:
    previews = entry_services.preview_list(tournament, lines)
    counts = {kind: 0 for kind in ("match", "choose", "new", "entered", "twice")}
    for preview in previews:
        counts[preview.kind] += 1
    return render(
        request,
        "tournaments/registration_bulk.html",
        {
            "tournament": tournament,
            "previews": previews,
            "counts": counts,
            "errors": sum(1 for p in previews if p.error),
            "lines_json": _lines_json(lines),
            "digest": entry_services.preview_digest(tournament, previews),
            "chosen": _choices(request),
        },
        status=status,
    )


@signed_in
@require_http_methods(["GET", "POST"])
def bulk_entries(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the form; POST: the preview of what was pasted or uploaded."""
    tournament = get_managed(request, pk)
    form = PlayerListForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        if form.is_valid():
            try:
                return _preview_page(request, tournament, form.cleaned_data["lines"])
            except ValidationError as error:
                form.add_error(None, error_text(error))
        status = 400
    else:
        status = 200
    return render(
        request,
        "tournaments/registration_bulk.html",
        {
            "tournament": tournament,
            "form": form,
            "max_lines": BULK_MAX_LINES,
            **self_check_in_tools(request, tournament),
        },
        status=status,
    )


@signed_in
@require_POST
def bulk_entries_confirm(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    try:
        lines = _lines_from_json(request.POST.get("lines", ""))
    except ValidationError as error:
        messages.error(request, error_text(error))
        return redirect("tournaments:entries_bulk", pk=tournament.pk)
    try:
        added = entry_services.enter_list(
            tournament,
            lines,
            _choices(request),
            by=request.user,
            digest=request.POST.get("digest", ""),
        )
    except (ValidationError, PermissionDenied) as error:
        messages.error(request, error_text(error))
        # The preview again, as it is now: the organizer sees what changed.
        return _preview_page(request, tournament, lines, status=409)
    messages.success(
        request,
        ngettext("%(count)d player entered.", "%(count)d players entered.", len(added))
        % {"count": len(added)},
    )
    return redirect(console_url(tournament, "entries"))


@signed_in
@require_POST
def check_in_all(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    try:
        count = entry_services.check_in_all(tournament, by=request.user)
    except (ValidationError, PermissionDenied) as error:
        messages.error(request, error_text(error))
    else:
        messages.success(request, _checked_in_text(count))
    return redirect(console_url(tournament, "entries"))


def _checked_in_text(count: int) -> str:
    return ngettext("%(count)d player checked in.", "%(count)d players checked in.", count) % {
        "count": count
    }


def _tools_url(tournament: Tournament, section: str) -> str:
    return reverse("tournaments:entries_bulk", args=[tournament.pk]) + f"#{section}"


@signed_in
@require_POST
def check_in_list(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    form = CheckInListForm(request.POST)
    if not form.is_valid():
        for error in form.errors.values():
            messages.error(request, " ".join(error))
        return redirect(_tools_url(tournament, "check-in-list"))
    try:
        count = entry_services.check_in_all(
            tournament, by=request.user, lines=form.cleaned_data["lines"]
        )
    except (ValidationError, PermissionDenied) as error:
        messages.error(request, error_text(error))
    else:
        messages.success(request, _checked_in_text(count))
    return redirect(_tools_url(tournament, "check-in-list"))


@signed_in
@require_POST
def self_check_in_window(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = get_managed(request, pk)
    back = redirect(_tools_url(tournament, "self-check-in"))
    if "close" in request.POST:
        action, done = (
            lambda: entry_services.close_self_check_in(tournament, by=request.user),
            _("Self check-in is closed."),
        )
    else:
        form = SelfCheckInWindowForm(request.POST)
        if not form.is_valid():
            for error in form.errors.values():
                messages.error(request, " ".join(error))
            return back
        action, done = (
            lambda: entry_services.open_self_check_in(
                tournament,
                by=request.user,
                opens_at=form.cleaned_data["opens_at"],
                closes_at=form.cleaned_data["closes_at"],
            ),
            _("Self check-in is open for the set window."),
        )
    try:
        action()
    except (ValidationError, PermissionDenied) as error:
        messages.error(request, error_text(error))
    else:
        messages.success(request, done)
    return back


def self_check_in_url(request: HttpRequest, tournament: Tournament) -> str:
    return request.build_absolute_uri(
        reverse("tournaments:self_check_in", args=[tournament.self_check_in_token])
    )


def self_check_in_tools(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    """What the console's check-in block shows (the link only once a window was set)."""
    link = self_check_in_url(request, tournament) if tournament.self_check_in_token else ""
    return {
        "self_check_in_link": link,
        "self_check_in_open": entry_services.self_check_in_is_open(tournament),
        "self_check_in_form": SelfCheckInWindowForm(
            initial={
                "opens_at": tournament.self_check_in_opens_at,
                "closes_at": tournament.self_check_in_closes_at,
            }
        ),
        "check_in_list_form": CheckInListForm(),
    }


@signed_in
def self_check_in_qr(request: HttpRequest, pk: int) -> HttpResponse:
    """The link as a QR code (SVG), for the organizer to print or show on a screen."""
    tournament = get_managed(request, pk)
    if not tournament.self_check_in_token:
        raise Http404(_("Self check-in has no link yet: set its window first."))
    qr = segno.make(self_check_in_url(request, tournament), error="m")
    svg = qr.svg_inline(scale=6, title=_("Self check-in: %(name)s") % {"name": tournament.name})
    return HttpResponse(svg, content_type="image/svg+xml")


@signed_in
@require_http_methods(["GET", "POST"])
def self_check_in(request: HttpRequest, token: str) -> HttpResponse:
    """A player's own check-in, from the link or QR code."""
    tournament = (
        Tournament.objects.select_related("federation").filter(self_check_in_token=token).first()
        if token
        else None
    )
    if tournament is None:
        raise Http404(_("No such check-in link."))
    entry = (
        tournament.entries.filter(player__user_id=request.user.pk).select_related("player").first()
    )
    status = 200
    done = False
    if request.method == "POST":
        try:
            entry = entry_services.self_check_in(tournament, by=request.user)
        except (ValidationError, PermissionDenied) as error:
            messages.error(request, error_text(error))
            status = 400
        else:
            done = True
            messages.success(request, _("You are checked in. Good luck!"))
    return render(
        request,
        "tournaments/self_check_in.html",
        {
            "tournament": tournament,
            "entry": entry,
            "done": done,
            "is_open": entry_services.self_check_in_is_open(tournament),
        },
        status=status,
    )
