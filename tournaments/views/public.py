"""Public pages: a federation's tournaments and a tournament's pages.

A tournament's page leads with what a visitor came for: the pairings of the
round in play (its first tables), the top of the standings and a box to find a
player; each round, the full standings, each flight's bracket, the entrants and
each player's own record have their own address, a page at a time where they
grow with the field.  Every page shows only what the organizer publishes:

* pairings when ``publish_pairings``;
* results when ``publish_results``, except those of a silent round (until
  the organizer publishes the standings, which releases it);
* the latest *published* standings snapshot (``publish_standings`` makes
  each snapshot public as it is computed; otherwise the organizer publishes
  it from the console); it counts only rounds closed or with every result
  official, and a line tells how far the round in play is ("Round 6 in
  progress: 3 of 8 results", without the count while its results are hidden);
* bracket trees for bracket formats, their scores under the same rules.

Whose results are hidden is ``games.visibility``'s one rule (the tournaments
app's part: ``tournaments.services.visibility``): its organizers and arbiters see them
here too, and each player their own match.
Each page costs a fixed number of queries whatever the field size, and is
rendered once per version: its content is a ``base.httpcache`` fragment keyed by
the tournament's ``public_version``, what the viewer may see of its results
(``visibility.viewer_key``) and the page asked for, and a reload whose ETag
still holds is answered 304.  Only the page's frame (the signed-in user's
header) is rendered for each request; for anonymous visitors the whole page is
kept (``base.pagecache``) until the tournament's services expire it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _

from base import httpcache, pagecache
from base.pagination import requested_page
from clubs.models import Federation
from tournaments import adapters, brackets, queries
from tournaments.formats import flights, registry
from tournaments.models import Entry, Pairing, Round, RoundState, Tournament, TournamentState
from tournaments.services import visibility as results_rule
from tournaments.views.common import (
    clock_text,
    in_play_text,
    page_window,
    standings_tables,
)

PAIRINGS_PER_PAGE = 50
STANDINGS_PER_PAGE = 100
ENTRIES_PER_PAGE = 100
# The tournament page's standings: the top of each table, of the first few tables.
STANDINGS_TOP = 10
STANDINGS_TOP_TABLES = 4
# The tournament page's best PRs (analysed matches): the lowest few.
BEST_PR_TOP = 10
FOUND_AT_MOST = 20
# The bound is the one the API splits by too (``brackets.SPLIT_MATCHES``).
BRACKET_SPLIT_MATCHES = brackets.SPLIT_MATCHES


def tournament_list(request: HttpRequest, federation: str) -> HttpResponse:
    found = Federation.objects.filter(slug=federation, is_public=True).first()
    if found is None:
        raise Http404(_("No such public federation."))
    tournaments = list(queries.public_tournaments(found))
    return render(
        request,
        "tournaments/public_list.html",
        {"federation": found, "tournaments": tournaments},
    )


# --- What the pages share


def _round_view(
    tournament: Tournament, rnd: Round, pairings: list[Pairing], user: Any
) -> dict[str, Any]:
    """A round's tables (``pairings``, a page of them) as rows, results ``user`` may not
    see hidden."""
    rows = []
    for pairing in pairings:
        hidden = results_rule.pairing_result_hidden(user, pairing)
        outcome = None if hidden else adapters.pairing_outcome(pairing)
        side, forfeit = outcome if outcome is not None else (None, False)
        match = pairing.match
        rows.append(
            {
                "table": pairing.table,
                "entry1": pairing.entry1_id,
                "entry2": pairing.entry2_id,
                "player1": pairing.entry1.player,
                "player2": pairing.entry2.player if pairing.entry2_id else None,
                "winner": side,
                "forfeit": forfeit,
                "score": (match.score1, match.score2)
                if outcome is not None and match is not None and match.score1 is not None
                else None,
                "match_id": pairing.match_id,
                "hidden": hidden,
            }
        )
    return {
        "round": rnd,
        "title": _round_title(tournament, rnd),
        "url": _round_url(tournament, rnd),
        "rows": rows,
        # The result column goes when no row may show one (a player of the round sees theirs).
        "results_hidden": all(row["hidden"] for row in rows)
        and results_rule.results_hidden(tournament, rnd, user),
    }


def _round_title(tournament: Tournament, rnd: Round) -> str:
    return _title_of_round(tournament, rnd.flight, rnd.number)


def _title_of_round(tournament: Tournament, flight: str, number: int) -> str:
    # The format names its rounds ("Round 3", "Semi-final"), the same on every page.
    return registry.for_tournament(tournament).round_title(tournament, flight, number)


def _round_url(tournament: Tournament, rnd: Round) -> str:
    return reverse(
        "tournaments:public_round",
        args=[tournament.federation.slug, tournament.slug, rnd.flight, rnd.number],
    )


def _round_links(tournament: Tournament, rounds: list[Round]) -> list[dict[str, Any]]:
    return [
        {"round": r, "title": _round_title(tournament, r), "url": _round_url(tournament, r)}
        for r in rounds
    ]


def _bracket_links(tournament: Tournament) -> list[dict[str, str]]:
    fmt = registry.for_tournament(tournament)
    if not (fmt.has_bracket and tournament.publish_pairings):
        return []
    return [
        {
            "flight": flight,
            "title": flights.title(flight),
            "url": reverse(
                "tournaments:public_bracket",
                args=[tournament.federation.slug, tournament.slug, flight],
            ),
        }
        for flight in fmt.bracket_flights(tournament)
    ]


def _current_rounds(rounds: list[Round]) -> list[Round]:
    """The round in play of each flight (its latest, while not closed); when every
    flight's latest round is closed, those latest rounds."""
    latest: dict[str, Round] = {}
    for rnd in rounds:
        latest[rnd.flight] = rnd
    open_rounds = [r for r in latest.values() if r.state != RoundState.CLOSED]
    return open_rounds or list(latest.values())


def _standings_caption(tournament: Tournament, snapshot: Any) -> str:
    if snapshot is None:
        return ""
    if registry.for_tournament(tournament).several_flights:
        return _("After %(count)d rounds played in all flights") % {"count": snapshot.after_round}
    return _("After round %(number)d") % {"number": snapshot.after_round}


def _in_play(tournament: Tournament, in_play: list[queries.RoundInPlay], user: Any) -> list[str]:
    """A line per started round the standings do not count yet ("Round 6 in progress:
    3 of 8 results"); how many results a round has is not told where its results are
    hidden (a silent round, results not published), though it names no one."""
    return [
        in_play_text(
            _round_title(tournament, r.round),
            r.official,
            r.pairings,
            show_count=not results_rule.results_hidden(tournament, r.round, user),
        )
        for r in in_play
    ]


def _standings_context(
    tournament: Tournament, rounds: list[Round], snapshot: Any, user: Any
) -> dict[str, Any]:
    """The standings' caption, whether they are final, and the rounds in play."""
    progress = queries.round_progress(rounds)
    return {
        "snapshot": snapshot,
        "standings_caption": _standings_caption(tournament, snapshot),
        "final": snapshot is not None
        and tournament.state == TournamentState.FINISHED
        and snapshot.after_round == len(progress.counted),
        "in_play": _in_play(tournament, progress.in_play, user),
    }


# Where each tournament's pages live, as this process last found it: (federation
# slug, slug) -> (tournament pk, federation pk).  Known, a page registers what it
# shows with the page cache before reading the tournament (one query); an address
# that moved is found again.  Bounded: cleared when full.
_addresses: dict[tuple[str, str], tuple[int, int]] = {}
_ADDRESSES_MOST = 5_000


def _public_tournament(request: HttpRequest, federation: str, slug: str) -> Tournament:
    """The tournament a page of it shows.  Its anonymous visitors may be served the
    page kept whole (base.pagecache), which must read what it shows after saying
    so: where this process knows the tournament's address that is one query; the
    first time, the tournament is read, then its version again (and the tournament,
    should it have moved)."""
    known = _addresses.get((federation, slug))
    if known is not None:
        pagecache.depends_on(request, "tournament", known[0])
        pagecache.depends_on(request, "federation", known[1])
        tournament = queries.tournament_page(federation, slug)
        if (tournament.pk, tournament.federation_id) == known:
            return tournament
        # Another tournament at this address now: not what the page said it shows.
        pagecache.not_kept(request)
        _addresses.pop((federation, slug), None)
        return tournament
    tournament = queries.tournament_page(federation, slug)
    if len(_addresses) >= _ADDRESSES_MOST:
        _addresses.clear()
    _addresses[(federation, slug)] = (tournament.pk, tournament.federation_id)
    if (
        pagecache.depends_on(request, "tournament", tournament.pk)
        and pagecache.depends_on(request, "federation", tournament.federation_id)
        and queries.public_version(tournament.pk) != tournament.public_version
    ):
        # Changed since it was read (every change moves the version): read it again.
        tournament = queries.tournament_page(federation, slug)
    return tournament


def _cached_page(
    request: HttpRequest,
    tournament: Tournament,
    key: tuple[Any, ...],
    title: str,
    body: Callable[[], str],
    *,
    bracket_styles: bool = False,
) -> HttpResponseBase:
    """A public page of the tournament rendered once per version: ``body()``, the
    page's content as the request's user may see it, is kept as a fragment under
    ``key`` with the tournament, its ``public_version`` and the viewer's key (equal
    for users who may see the same results), which also make the page's ETag (a
    reload is a 304).  ``key``: the page's name, then what else its content depends
    on (a round, the page number)."""
    viewer = results_rule.viewer_key(request.user, tournament)
    parts = (*key[:1], tournament.pk, tournament.public_version, viewer, *key[1:])

    def build() -> HttpResponse:
        context = {
            "page_title": f"{title} · {tournament.name}" if title else tournament.name,
            "body": httpcache.fragment(parts, body),
            "bracket_styles": bracket_styles,
        }
        return render(request, "tournaments/public_page.html", context)

    return httpcache.etag_response(request, parts, build)


def _page_context(tournament: Tournament, **extra: Any) -> dict[str, Any]:
    """What every page of the tournament shows above its own part."""
    return {
        "tournament": tournament,
        "federation": tournament.federation,
        "bracket_links": _bracket_links(tournament),
        **extra,
    }


# --- The tournament page


def _top_rows(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """The snapshot's rows the overview shows: the first ``STANDINGS_TOP`` of each of
    its first ``STANDINGS_TOP_TABLES`` tables (a flight, a group); and whether some
    are left out (the full standings are a link away)."""
    shown: dict[tuple[str, str], list[dict[str, Any]]] = {}
    cut = False
    for row in rows:
        key = (row.get("flight") or flights.MAIN, row.get("group") or "")  # as standings_tables
        table = shown.get(key)
        if table is None and len(shown) < STANDINGS_TOP_TABLES:
            table = shown[key] = []
        if table is None or len(table) >= STANDINGS_TOP:
            cut = True
            continue
        table.append(row)
    return [row for table in shown.values() for row in table], cut


def tournament_page(request: HttpRequest, federation: str, slug: str) -> HttpResponseBase:
    tournament = _public_tournament(request, federation, slug)
    return _cached_page(
        request, tournament, ("t-page",), "", lambda: _overview(tournament, request.user)
    )


def _overview(tournament: Tournament, user: Any) -> str:
    rounds = list(queries.public_rounds(tournament))
    snapshot = queries.latest_standings(tournament, published_only=True)
    entries_first = tournament.state in (TournamentState.REGISTRATION, TournamentState.CHECK_IN)
    current = []
    if tournament.publish_pairings:
        for rnd in reversed(_current_rounds(rounds)):
            pairings = queries.round_pairings(rnd, 0, PAIRINGS_PER_PAGE)
            view = _round_view(tournament, rnd, pairings, user)
            view["window"] = page_window(1, rnd.pairing_count, PAIRINGS_PER_PAGE)
            current.append(view)
    top, cut = _top_rows(list(snapshot.rows or []) if snapshot else [])
    fmt = registry.for_tournament(tournament)
    context = _page_context(
        tournament,
        entry_count=queries.entry_count(tournament),
        entries=queries.entries_slice(tournament, 0, ENTRIES_PER_PAGE) if entries_first else [],
        entries_first=entries_first,
        rounds=current,
        round_links=_round_links(tournament, rounds) if tournament.publish_pairings else [],
        standings=standings_tables(tournament, snapshot, top) if snapshot else [],
        standings_cut=cut,
        # The format's settings named beside it ("rounds: 7").
        format_facts=fmt.public_facts,
        clock=clock_text(tournament),
        # Kept with the page's version: a finished analysis moves it
        # (services.on_analysis_changed), and the viewer's key says what they may see.
        best_prs=queries.best_prs(tournament, user, BEST_PR_TOP),
        **_standings_context(tournament, rounds, snapshot, user),
    )
    return render_to_string("tournaments/public_detail.html", context)


# --- A round, the standings, a bracket, the entrants


def round_page(
    request: HttpRequest, federation: str, slug: str, flight: str, number: int
) -> HttpResponseBase:
    tournament = _public_tournament(request, federation, slug)
    if not tournament.publish_pairings:
        raise Http404(_("The pairings of this tournament are not published."))
    asked = requested_page(request)
    return _cached_page(
        request,
        tournament,
        ("t-round", flight, number, asked),
        _title_of_round(tournament, flight, number),
        lambda: _round_body(tournament, flight, number, asked, request.user),
    )


def _round_body(tournament: Tournament, flight: str, number: int, asked: int, user: Any) -> str:
    rounds = list(queries.public_rounds(tournament))
    rnd = next((r for r in rounds if r.flight == flight and r.number == number), None)
    if rnd is None:
        raise Http404(_("No such round."))
    window = page_window(asked, rnd.pairing_count, PAIRINGS_PER_PAGE)
    pairings = queries.round_pairings(rnd, window.start, window.stop)
    view = _round_view(tournament, rnd, pairings, user)
    context = _page_context(
        tournament, r=view, window=window, round_links=_round_links(tournament, rounds)
    )
    return render_to_string("tournaments/public_round.html", context)


def standings_page(request: HttpRequest, federation: str, slug: str) -> HttpResponseBase:
    tournament = _public_tournament(request, federation, slug)
    asked = requested_page(request)
    return _cached_page(
        request,
        tournament,
        ("t-standings", asked),
        _("Standings"),
        lambda: _standings_body(tournament, asked, request.user),
    )


def _standings_body(tournament: Tournament, asked: int, user: Any) -> str:
    rounds = list(queries.public_rounds(tournament))
    snapshot = queries.latest_standings(tournament, published_only=True)
    rows = list(snapshot.rows or []) if snapshot is not None else []
    window = page_window(asked, len(rows), STANDINGS_PER_PAGE)
    tables = (
        standings_tables(tournament, snapshot, rows[window.start : window.stop])
        if snapshot is not None
        else []
    )
    context = _page_context(
        tournament,
        standings=tables,
        window=window,
        **_standings_context(tournament, rounds, snapshot, user),
    )
    return render_to_string("tournaments/public_standings.html", context)


def bracket_page(request: HttpRequest, federation: str, slug: str, flight: str) -> HttpResponseBase:
    tournament = _public_tournament(request, federation, slug)
    fmt = registry.for_tournament(tournament)
    if not (fmt.has_bracket and tournament.publish_pairings):
        raise Http404(_("This tournament has no public bracket."))
    if flight not in fmt.bracket_flights(tournament):
        raise Http404(_("No such bracket."))
    section = request.GET.get("section", "")[:20]
    part = requested_page(request, "part")
    return _cached_page(
        request,
        tournament,
        ("t-bracket", flight, section, part),
        f"{_('Bracket')} · {flights.title(flight)}",
        lambda: _bracket_body(tournament, flight, section, part, request.user),
        bracket_styles=True,
    )


def _bracket_body(tournament: Tournament, flight: str, section: str, part: int, user: Any) -> str:
    """The flight's tree; a large one a section at a time, and a large section a part
    at a time (``brackets.split_section``)."""
    rounds = list(queries.rounds_with_pairings(tournament))
    columns = queries.bracket_view(tournament, flight)
    pairings = [p for rnd in rounds for p in rnd.pairings.all()]
    hidden = results_rule.hidden_bracket_slots(user, tournament, columns, pairings)
    results_rule.hide_bracket_results(columns, hidden)
    section_links: list[dict[str, Any]] = []
    part_links: list[dict[str, Any]] = []
    if sum(len(column) for column in columns) <= BRACKET_SPLIT_MATCHES:
        if section or part != 1:
            raise Http404(_("This bracket is drawn whole: it has no sections or parts."))
        sections = brackets.draw_flight(columns, hidden=hidden)
        shown = ""
    else:
        by_section = brackets.by_section(columns)
        if section and section not in by_section:
            raise Http404(_("This bracket has no such section."))
        shown = section or next(iter(by_section))
        if len(by_section) > 1:
            section_links = [
                {"key": key, "title": flights.section_title(key), "current": key == shown}
                for key in by_section
            ]
        whole = by_section[shown]
        parts = brackets.section_parts(whole, BRACKET_SPLIT_MATCHES)
        if part > len(parts):
            raise Http404(_("This bracket has no such part."))
        if len(parts) > 1:
            part_links = [
                {
                    "number": n,
                    "title": _("Last rounds")
                    if n == len(parts)
                    else _("Part %(number)d") % {"number": n},
                    "current": n == part,
                }
                for n in range(1, len(parts) + 1)
            ]
        sections = [brackets.draw_section(shown, parts[part - 1], whole=whole, hidden=hidden)]
    context = _page_context(
        tournament,
        flight=flight,
        flight_title=flights.title(flight),
        sections=sections,
        shown_section=shown,
        section_links=section_links,
        part_links=part_links,
        show_titles=len(sections) > 1 or bool(section_links),
    )
    return render_to_string("tournaments/public_bracket.html", context)


def entries_page(request: HttpRequest, federation: str, slug: str) -> HttpResponseBase:
    tournament = _public_tournament(request, federation, slug)
    asked = requested_page(request)
    return _cached_page(
        request,
        tournament,
        ("t-entries", asked),
        _("Entrants"),
        lambda: _entries_body(tournament, asked),
    )


def _entries_body(tournament: Tournament, asked: int) -> str:
    counts = queries.entry_count(tournament)
    window = page_window(asked, counts.total, ENTRIES_PER_PAGE)
    context = _page_context(
        tournament,
        entry_count=counts,
        entries=queries.entries_slice(tournament, window.start, window.stop),
        window=window,
    )
    return render_to_string("tournaments/public_entries.html", context)


# --- A player: finding one, and their own page


def find_player(request: HttpRequest, federation: str, slug: str) -> HttpResponse:
    """The entrants whose name holds the text asked for; one alone opens their page."""
    tournament = queries.tournament_page(federation, slug)
    text = request.GET.get("q", "").strip()
    found = queries.find_entries(tournament, text, FOUND_AT_MOST + 1) if text else []
    if len(found) == 1:
        return redirect(_player_url(tournament, found[0]))
    context = _page_context(
        tournament, text=text, found=found[:FOUND_AT_MOST], more=len(found) > FOUND_AT_MOST
    )
    body = render_to_string("tournaments/public_find.html", context)
    title = f"{_('Find a player')} · {tournament.name}"
    return render(request, "tournaments/public_page.html", {"page_title": title, "body": body})


def _player_url(tournament: Tournament, entry: Entry) -> str:
    return reverse(
        "tournaments:public_player",
        args=[tournament.federation.slug, tournament.slug, entry.pk],
    )


def _record_row(
    tournament: Tournament, entry: Entry, pairing: Pairing, user: Any
) -> dict[str, Any]:
    """One round of a player's record: the opponent, and the result if ``user`` may see it."""
    own_side = 1 if pairing.entry1_id == entry.pk else 2
    opponent = pairing.entry2 if own_side == 1 else pairing.entry1
    hidden = results_rule.pairing_result_hidden(user, pairing)
    outcome = None if hidden else adapters.pairing_outcome(pairing)
    side, forfeit = outcome if outcome is not None else (None, False)
    match = pairing.match
    score = None
    if outcome is not None and match is not None and match.score1 is not None:
        score = (match.score1, match.score2) if own_side == 1 else (match.score2, match.score1)
    if outcome is None:
        result = ""
    elif opponent is None:
        result = "bye"
    elif side is None:
        result = "lost"  # both forfeited
    else:
        result = "won" if side == own_side else "lost"
    return {
        "round": pairing.round,
        "title": _round_title(tournament, pairing.round),
        "url": _round_url(tournament, pairing.round),
        "table": pairing.table,
        "opponent": opponent.player if opponent is not None else None,
        "opponent_url": _player_url(tournament, opponent) if opponent is not None else "",
        "result": result,
        "forfeit": forfeit,
        "score": score,
        "hidden": hidden,
        "match_id": pairing.match_id,
        "in_play": pairing.round.state != RoundState.CLOSED,
    }


def player_page(request: HttpRequest, federation: str, slug: str, entry: int) -> HttpResponseBase:
    tournament = _public_tournament(request, federation, slug)
    found = queries.public_entry(tournament, entry)
    return _cached_page(
        request,
        tournament,
        ("t-player", found.pk),
        str(found.player),
        lambda: _player_body(tournament, found, request.user),
    )


def _player_body(tournament: Tournament, entry: Entry, user: Any) -> str:
    record = []
    if tournament.publish_pairings:
        record = [_record_row(tournament, entry, p, user) for p in queries.entry_pairings(entry)]
    snapshot, standing = queries.latest_standing_of(tournament, entry.pk)
    context = _page_context(
        tournament,
        entry=entry,
        record=record,
        current=next((row for row in reversed(record) if row["in_play"]), None),
        standing=standing,
        standings_caption=_standings_caption(tournament, snapshot),
    )
    return render_to_string("tournaments/public_player.html", context)
