"""Printable sheets of a round: the pairing sheet (one page) and a scoresheet
per match (one page each), for the organizer (``tournament.manage``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from clubs.views.accounts import signed_in
from tournaments.models import Round
from tournaments.views.common import clock_text, get_managed
from tournaments.views.console import _round
from tournaments.views.console_steps import round_name

MAX_SHEET_ROWS = 21


def _sheet_context(request: HttpRequest, pk: int, rid: int) -> dict:  # type: ignore[type-arg]
    tournament = get_managed(request, pk)
    rnd: Round = _round(tournament, rid)
    pairings = list(
        rnd.pairings.select_related("entry1__player", "entry2__player", "match").order_by("table")
    )
    return {
        "tournament": tournament,
        "round": rnd,
        "round_label": round_name(rnd),
        "pairings": pairings,
        "clock": clock_text(tournament),
    }


@signed_in
def pairings_sheet(request: HttpRequest, pk: int, rid: int) -> HttpResponse:
    return render(request, "tournaments/print_pairings.html", _sheet_context(request, pk, rid))


@signed_in
def scoresheets(request: HttpRequest, pk: int, rid: int) -> HttpResponse:
    context = _sheet_context(request, pk, rid)
    length = context["round"].match_length
    # Enough rows for the longest usual match (every game a single point), capped
    # so a sheet stays one page; a longer match continues on the back.
    context["rows"] = range(1, min(max(2 * length - 1, 5), MAX_SHEET_ROWS) + 1)
    context["sheets"] = [p for p in context["pairings"] if not p.is_bye]
    # The cube's column (cube, Crawford) only where the discipline plays with the cube.
    context["cube"] = context["tournament"].discipline.has_cube
    return render(request, "tournaments/print_scoresheets.html", context)
