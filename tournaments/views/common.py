"""What the console's views share: finding a tournament the user manages,
running a service and reporting its answer on the page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from clubs import permissions
from tournaments import permissions as tournament_permissions
from tournaments.formats import flights, registry
from tournaments.models import Tournament


def managed_tournaments(user: Any) -> QuerySet[Tournament]:
    """Tournaments ``user`` manages (``tournaments.permissions.managed_tournaments_q``)."""
    return Tournament.objects.select_related("federation", "club", "discipline").filter(
        tournament_permissions.managed_tournaments_q(user)
    )


def manageable(user: Any, tournaments: QuerySet[Tournament]) -> list[Tournament]:
    return [t for t in tournaments if permissions.can(user, "tournament.manage", t)]


def get_managed(request: HttpRequest, pk: int) -> Tournament:
    """The tournament, if the user may manage it (403 otherwise, 404 when missing)."""
    tournament = (
        Tournament.objects.select_related("federation", "club", "discipline", "qualifies_from")
        .filter(pk=pk)
        .first()
    )
    if tournament is None:
        raise Http404(_("No such tournament."))
    if not permissions.can(request.user, "tournament.manage", tournament):
        raise PermissionDenied(_("You do not manage this tournament."))
    return tournament


def console_url(tournament: Tournament, section: str = "") -> str:
    url = reverse("tournaments:console", args=[tournament.pk])
    return f"{url}#{section}" if section else url


def error_text(error: ValidationError | PermissionDenied) -> str:
    if isinstance(error, ValidationError):
        return " ".join(error.messages)
    return str(error) or _("You are not allowed to do this.")


def perform(
    request: HttpRequest,
    tournament: Tournament,
    action: Callable[[], Any],
    done: str,
    section: str = "",
) -> HttpResponse:
    """Run a service; its answer becomes a message on the console page."""
    try:
        action()
    except (ValidationError, PermissionDenied) as error:
        messages.error(request, error_text(error))
    else:
        messages.success(request, done)
    return redirect(console_url(tournament, section))


def stale(
    request: HttpRequest, tournament: Tournament, text: str, section: str = ""
) -> HttpResponse:
    """A form from a page that no longer shows the truth: nothing is done."""
    again = _("Nothing was done; check the page and try again.")
    messages.warning(request, f"{text} {again}")
    return redirect(console_url(tournament, section))


def stale_entry(request: HttpRequest, tournament: Tournament, entry: Any) -> HttpResponse | None:
    """The answer to a form about ``entry`` sent while it had another status than it
    has now (another tab, a second click), or None when the form is still true."""
    if request.POST.get("status") == entry.status:
        return None
    return stale(
        request,
        tournament,
        _("%(player)s is now %(status)s.")
        % {"player": entry.player, "status": entry.get_status_display()},
        "entries",
    )


def clock_text(tournament: Tournament) -> str:
    """The time control in words: "18 min + 2 min per point, delay 8 s per move"."""
    if tournament.clock_mode == "none":
        return _("no clock")
    parts = []
    reserve = tournament.clock_reserve_seconds // 60
    per_point = tournament.clock_per_point_seconds // 60
    if reserve:
        parts.append(_("%(minutes)d min") % {"minutes": reserve})
    if per_point:
        parts.append(_("%(minutes)d min per point") % {"minutes": per_point})
    text = " + ".join(parts) or _("no reserve")
    if tournament.clock_move_seconds:
        if tournament.clock_mode == "delay":
            move = _("delay %(seconds)d s per move")
        else:
            move = _("increment %(seconds)d s per move")
        text = f"{text}, {move % {'seconds': tournament.clock_move_seconds}}"
    return text


# --- Standings for display (console and public pages share them)


def tiebreak_text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        if value.is_integer():
            return str(int(value))
        return f"{value:.2f}".rstrip("0")
    return str(value)


def standings_tables(
    tournament: Tournament, snapshot: Any, rows: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """A snapshot's rows (or ``rows`` of it, a page) as tables: one for a Swiss, round
    robin or cup; one per flight of a bracket (places, wins and losses); one per group
    of a group stage."""
    fmt = registry.for_tournament(tournament)
    tables: dict[tuple[str, str], dict[str, Any]] = {}
    for row in (snapshot.rows or []) if rows is None else rows:
        flight = row.get("flight") or flights.MAIN
        group = row.get("group") or ""
        key = (flight, group)
        if key not in tables:
            bracket = fmt.is_knockout(flight)
            codes = [] if bracket else list(snapshot.tie_breaks or [])
            title = _("Group %(name)s") % {"name": group} if group else flights.title(flight)
            tables[key] = {
                "flight": flight,
                "group": group,
                "title": title,
                "bracket": bracket,
                "codes": codes,
                "rows": [],
            }
        table = tables[key]
        values = row.get("tiebreaks") or {}
        table["rows"].append(
            {
                "place": row.get("place") or "",
                "name": row.get("name") or "",
                "player_id": row.get("player"),
                "entry": row.get("entry"),
                "score": row.get("score"),
                "wins": row.get("wins", 0),
                "losses": row.get("losses", 0),
                "withdrawn": row.get("withdrawn", False),
                "by_lot": row.get("by_lot", False),
                "tiebreaks": [tiebreak_text(values.get(code)) for code in table["codes"]],
            }
        )
    out = list(tables.values())
    if len(out) == 1 and not out[0]["group"] and out[0]["flight"] == flights.MAIN:
        out[0]["title"] = ""
    return out


def in_play_text(title: str, official: int, pairings: int, *, show_count: bool) -> str:
    """ "Round 6 in progress: 3 of 8 results", of a started round the standings do not
    count yet; without the count where its results are hidden (a silent round)."""
    if not show_count:
        return _("%(round)s in progress") % {"round": title}
    return ngettext(
        "%(round)s in progress: %(official)d of %(count)d result",
        "%(round)s in progress: %(official)d of %(count)d results",
        pairings,
    ) % {"round": title, "official": official, "count": pairings}


# --- Pages of a long list (public pages): ``?page=N``


@dataclass(frozen=True)
class PageWindow:
    """Page ``number`` of ``count`` rows shown ``per_page`` at a time (from 1)."""

    number: int
    count: int
    per_page: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.count // self.per_page))

    @property
    def start(self) -> int:
        return (self.number - 1) * self.per_page

    @property
    def stop(self) -> int:
        return min(self.start + self.per_page, self.count)

    @property
    def previous(self) -> int | None:
        return self.number - 1 if self.number > 1 else None

    @property
    def next(self) -> int | None:
        return self.number + 1 if self.number < self.pages else None

    @property
    def links(self) -> list[int | None]:
        """The page numbers to link: the first, the last and two either side of this
        one, None where some are skipped (so a page of 20 pages stays short)."""
        near = {1, self.pages, *range(self.number - 2, self.number + 3)}
        out: list[int | None] = []
        for n in sorted(k for k in near if 1 <= k <= self.pages):
            if out and out[-1] is not None and n > out[-1] + 1:
                out.append(None)
            out.append(n)
        return out


def page_window(number: int, count: int, per_page: int) -> PageWindow:
    """Page ``number`` of ``count`` rows; a page past the last is a 404 (page 1 always
    exists, empty when there are no rows)."""
    last = max(1, -(-count // per_page))
    if number > last:
        raise Http404(
            _("There is no page %(page)d: the pages are 1 to %(last)d.")
            % {"page": number, "last": last}
        )
    return PageWindow(number, count, per_page)
