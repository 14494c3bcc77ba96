"""The rules pages: how a variant is played, for players, arbiters and
spectators (RULES.md in the players' words).  Soldiers (§3.1) is the one
variant whose rules the product explains itself: its checker classes are new
to players who know nardy, and the board, the match page and the scoresheet
link here from their class legends."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


@require_GET
def soldiers(request: HttpRequest) -> HttpResponse:
    return render(request, "games/rules_soldiers.html")
