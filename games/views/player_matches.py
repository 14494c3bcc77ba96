"""The matches section of a player's public page (``clubs.player_page``, registered in
``GamesConfig.ready``): their matches, newest first, a page at a time, each result
shown only where ``games.visibility`` lets the viewer see it (a silent round's
result stays hidden)."""

from __future__ import annotations

from django.core.paginator import InvalidPage, Paginator
from django.http import Http404, HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from base.pagination import requested_page
from clubs.models import Player
from clubs.player_page import Section
from games import queries, visibility

MATCHES_PER_PAGE = 25
# The query-string parameter that pages this section (the page has other sections).
PAGE_PARAMETER = "matches"


def render_section(request: HttpRequest, player: Player) -> SafeString:
    matches = queries.player_matches(request.user, player.pk)
    try:
        page = Paginator(matches, MATCHES_PER_PAGE).page(requested_page(request, PAGE_PARAMETER))
    except InvalidPage:
        raise Http404(_("No such page.")) from None
    rows = []
    for match in page.object_list:
        own_side = 1 if match.player1_id == player.pk else 2
        hidden = bool(getattr(match, visibility.HIDDEN))
        scored = not hidden and match.score1 is not None and match.score2 is not None
        rows.append(
            {
                "match": match,
                "opponent": match.player2 if own_side == 1 else match.player1,
                "date": match.finished_at or match.started_at or match.created_at,
                "hidden": hidden,
                # The player's own score first, as a record reads.
                "score": (
                    (match.score1, match.score2) if own_side == 1 else (match.score2, match.score1)
                )
                if scored
                else None,
                "won": None if hidden or not match.winner else match.winner == own_side,
            }
        )
    html: SafeString = render_to_string(
        "games/_player_matches.html",
        {"page": page, "rows": rows, "param": PAGE_PARAMETER, "anchor": "matches"},
        request=request,
    )
    return html


SECTION = Section(name="matches", order=20, render=render_section)
