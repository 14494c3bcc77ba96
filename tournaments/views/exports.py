"""A tournament's files and its printable results sheet.

For the director (``tournament.manage``, from the console): the standings as the
console shows them (the latest snapshot, published or not), a round's pairings
with every result, the entry list, each as CSV or XLSX; and the whole event's
results on A4 (every round, then the standings).

For the public (from the public pages): what those pages show and nothing more,
the latest *published* standings and a round's pairings while pairings are
published, each result blank where ``tournaments.services.visibility`` hides it
from the viewer (a silent round, results not published), as the pages do.

Every file costs a fixed number of queries whatever the field.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from clubs.views.accounts import signed_in
from tournaments import exports, queries
from tournaments.models import Round, StandingsSnapshot, Tournament, TournamentState
from tournaments.services import visibility as results_rule
from tournaments.views.common import clock_text, get_managed, standings_tables
from tournaments.views.console import _round
from tournaments.views.console_steps import round_name

# The most tables a round can have (``Pairing.table`` is a small positive integer).
MOST_TABLES = 32_767


def _download(sheet: exports.Sheet, fmt: str) -> HttpResponse:
    if fmt not in exports.FORMATS:
        raise Http404(_("No such file format."))
    response = HttpResponse(exports.file_bytes(sheet, fmt), content_type=exports.CONTENT_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="{sheet.stem}.{fmt}"'
    return response


def _standings_file(tournament: Tournament, snapshot: StandingsSnapshot | None, fmt: str) -> Any:
    if snapshot is None:
        raise Http404(_("No standings yet."))
    rows = list(snapshot.rows or [])
    sheet = exports.standings_sheet(
        f"{tournament.slug}-standings-{snapshot.after_round}",
        f"{_('Standings')} {snapshot.after_round}",
        standings_tables(tournament, snapshot, rows),
        rows,
    )
    return _download(sheet, fmt)


def _pairings_file(tournament: Tournament, rnd: Round, user: Any, fmt: str) -> HttpResponse:
    pairings = queries.round_pairings(rnd, 0, MOST_TABLES)
    sheet = exports.pairings_sheet(
        f"{tournament.slug}-round-{rnd.flight}-{rnd.number}",
        round_name(rnd),
        pairings,
        lambda pairing: results_rule.pairing_result_hidden(user, pairing),
    )
    return _download(sheet, fmt)


# --- The director's files (the console)


@signed_in
def console_standings(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    tournament = get_managed(request, pk)
    return _standings_file(tournament, queries.latest_standings(tournament, False), fmt)


@signed_in
def console_pairings(request: HttpRequest, pk: int, rid: int, fmt: str) -> HttpResponse:
    tournament = get_managed(request, pk)
    return _pairings_file(tournament, _round(tournament, rid), request.user, fmt)


@signed_in
def console_entries(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    tournament = get_managed(request, pk)
    sheet = exports.entries_sheet(
        f"{tournament.slug}-entries",
        _("Entries"),
        queries.entries(tournament),
        queries.entry_clubs(tournament),
    )
    return _download(sheet, fmt)


# --- The public's files (what the public pages show)


def public_standings(request: HttpRequest, federation: str, slug: str, fmt: str) -> HttpResponse:
    tournament = queries.tournament_page(federation, slug)
    return _standings_file(tournament, queries.latest_standings(tournament, True), fmt)


def public_pairings(
    request: HttpRequest, federation: str, slug: str, flight: str, number: int, fmt: str
) -> HttpResponse:
    tournament = queries.tournament_page(federation, slug)
    if not tournament.publish_pairings:
        raise Http404(_("The pairings of this tournament are not published."))
    rnd = queries.public_rounds(tournament).filter(flight=flight, number=number).first()
    if rnd is None:
        raise Http404(_("No such round."))
    rnd.tournament = tournament
    return _pairings_file(tournament, rnd, request.user, fmt)


# --- The printable results sheet of the whole event


def _round_results(rnd: Round, user: Any) -> dict[str, Any]:
    rows = []
    for pairing in rnd.pairings.all():
        pairing.round = rnd
        result = exports.pairing_result(
            pairing, hidden=results_rule.pairing_result_hidden(user, pairing)
        )
        rows.append({"pairing": pairing, "result": result})
    return {"round": rnd, "label": round_name(rnd), "rows": rows}


@signed_in
def results_sheet(request: HttpRequest, pk: int) -> HttpResponse:
    """Every round's results and the latest standings, to print on A4."""
    tournament = get_managed(request, pk)
    rounds = list(queries.rounds_with_pairings(tournament))
    for rnd in rounds:
        rnd.tournament = tournament
    snapshot = queries.latest_standings(tournament, published_only=False)
    # Final once the tournament is finished and the standings count every round played.
    counted = queries.standings_rounds(p for rnd in rounds for p in rnd.pairings.all()).counted
    context = {
        "tournament": tournament,
        "clock": clock_text(tournament),
        "rounds": [_round_results(rnd, request.user) for rnd in rounds],
        "snapshot": snapshot,
        "tables": standings_tables(tournament, snapshot) if snapshot is not None else [],
        "final": snapshot is not None
        and tournament.state == TournamentState.FINISHED
        and snapshot.after_round == len(counted),
    }
    return render(request, "tournaments/print_results.html", context)
