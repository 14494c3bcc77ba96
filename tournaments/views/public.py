"""Public pages: a federation's tournaments and a tournament's page.

The tournament page has sections (entries, pairings and results per round,
standings, brackets) and shows only what the organizer publishes:

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
A fixed number of queries whatever the field size.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from clubs.models import Federation
from tournaments import adapters, brackets, queries
from tournaments.formats import flights, registry
from tournaments.models import Round, Tournament, TournamentState
from tournaments.services import visibility as results_rule
from tournaments.views.common import clock_text, in_play_text, standings_tables


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


def _round_view(tournament: Tournament, rnd: Round, user: Any) -> dict[str, Any]:
    rows = []
    for pairing in rnd.pairings.all():
        hidden = results_rule.pairing_result_hidden(user, pairing)
        outcome = None if hidden else adapters.pairing_outcome(pairing)
        side, forfeit = outcome if outcome is not None else (None, False)
        match = pairing.match
        rows.append(
            {
                "table": pairing.table,
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
        "rows": rows,
        # The result column goes when no row may show one (a player of the round sees theirs).
        "results_hidden": all(row["hidden"] for row in rows)
        and results_rule.results_hidden(tournament, rnd, user),
    }


def _round_title(tournament: Tournament, rnd: Round) -> str:
    title = _("Round %(number)d") % {"number": rnd.number}
    several = registry.for_tournament(tournament).several_flights
    return f"{title} · {flights.title(rnd.flight)}" if several else title


def _bracket_sections(
    tournament: Tournament, rounds: list[Round], user: Any
) -> list[dict[str, Any]]:
    """The bracket trees of each flight; results ``user`` may not see hidden."""
    pairings = [p for rnd in rounds for p in rnd.pairings.all()]
    out = []
    for flight in registry.for_tournament(tournament).bracket_flights(tournament):
        columns = queries.bracket_view(tournament, flight)
        if not columns:
            continue
        hidden = results_rule.hidden_bracket_slots(user, tournament, columns, pairings)
        results_rule.hide_bracket_results(columns, hidden)
        sections = brackets.draw_flight(columns, hidden=hidden)
        out.append(
            {
                "flight": flight,
                "title": flights.title(flight),
                "sections": sections,
                "show_titles": len(sections) > 1,
            }
        )
    return out


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


def tournament_page(request: HttpRequest, federation: str, slug: str) -> HttpResponse:
    tournament = queries.tournament_page(federation, slug)
    entries = list(queries.entries(tournament))
    rounds = list(queries.rounds_with_pairings(tournament))
    standings_rounds = queries.standings_rounds(p for r in rounds for p in r.pairings.all())
    snapshot = queries.latest_standings(tournament, published_only=True)
    fmt = registry.for_tournament(tournament)
    context = {
        "tournament": tournament,
        "federation": tournament.federation,
        "entries": entries,
        "active_count": sum(e.status != "withdrawn" for e in entries),
        "entries_first": tournament.state
        in (TournamentState.REGISTRATION, TournamentState.CHECK_IN),
        "rounds": [_round_view(tournament, r, request.user) for r in reversed(rounds)]
        if tournament.publish_pairings
        else [],
        "snapshot": snapshot,
        "standings_caption": _standings_caption(tournament, snapshot),
        "final": snapshot is not None
        and tournament.state == TournamentState.FINISHED
        and snapshot.after_round == len(standings_rounds.counted),
        "in_play": _in_play(tournament, standings_rounds.in_play, request.user),
        "standings": standings_tables(tournament, snapshot) if snapshot else [],
        "brackets": _bracket_sections(tournament, rounds, request.user)
        if fmt.has_bracket and tournament.publish_pairings
        else [],
        # The format's settings named beside it ("rounds: 7").
        "format_facts": fmt.public_facts,
        "clock": clock_text(tournament),
    }
    return render(request, "tournaments/public_detail.html", context)
