"""The events section of a player's public page (``clubs.player_page``, registered in
``TournamentsConfig.ready``): the public tournaments they entered, newest first, a
page at a time, each with their place in its latest published standings, their PR
there over the analysed matches the viewer may see, and a link to their own page in
the tournament.  Tournaments without a public page (private, in a draft, of a hidden
federation) are not listed."""

from __future__ import annotations

from django.core.paginator import InvalidPage, Paginator
from django.http import Http404, HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from base.pagination import requested_page
from clubs.models import Player
from clubs.player_page import Section
from tournaments import queries

EVENTS_PER_PAGE = 20
# The query-string parameter that pages this section (the page has other sections).
PAGE_PARAMETER = "events"


def render_section(request: HttpRequest, player: Player) -> SafeString:
    try:
        page = Paginator(queries.player_entries(player.pk), EVENTS_PER_PAGE).page(
            requested_page(request, PAGE_PARAMETER)
        )
    except InvalidPage:
        raise Http404(_("No such page.")) from None
    entries = list(page.object_list)
    places = queries.published_places(entries)
    # The player's PR in each event, over the analysed matches the viewer may see.
    prs = queries.event_prs(entries, player.pk, request.user)
    rows = [
        {"entry": entry, "place": places.get(entry.pk), "pr": prs.get(entry.tournament_id)}
        for entry in entries
    ]
    html: SafeString = render_to_string(
        "tournaments/_player_events.html",
        {"page": page, "rows": rows, "param": PAGE_PARAMETER, "anchor": "events"},
        request=request,
    )
    return html


SECTION = Section(name="events", order=10, render=render_section)
