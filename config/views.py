from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from clubs import queries as club_queries
from config.health import check_broker, check_database
from tournaments import queries as tournament_queries


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"database": check_database(), "broker": check_broker()}
    healthy = all(check["ok"] for check in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", "checks": checks},
        status=200 if healthy else 503,
    )


# How many of each kind the home page lists (each federation's list has them all).
LIVE_AT_MOST = 20
UPCOMING_AT_MOST = 20
RECENT_AT_MOST = 10
PLAYERS_FOUND_AT_MOST = 20
# A search longer than any name is cut, so no visitor's text makes the query grow.
SEARCH_MAX_LENGTH = 100


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Live, upcoming and recent public tournaments across the federations, and a
    player search (``?q=``): the same page for every anonymous visitor (no form
    token, nothing of the visitor's), in a fixed number of queries."""
    text = " ".join(request.GET.get("q", "")[:SEARCH_MAX_LENGTH].split())
    found = club_queries.find_public_players(text, PLAYERS_FOUND_AT_MOST + 1) if text else []
    return render(
        request,
        "home.html",
        {
            "live": tournament_queries.live_tournaments(LIVE_AT_MOST),
            "upcoming": tournament_queries.upcoming_tournaments(UPCOMING_AT_MOST),
            "recent": tournament_queries.recent_tournaments(RECENT_AT_MOST),
            "query": text,
            "players": found[:PLAYERS_FOUND_AT_MOST],
            "more_players": len(found) > PLAYERS_FOUND_AT_MOST,
        },
    )
