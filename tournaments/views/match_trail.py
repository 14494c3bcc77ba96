"""Where a tournament's match belongs, for the match page's breadcrumb (the
``games.belonging`` provider, registered in ``TournamentsConfig.ready``): the
tournament (its public page, or its console for those who run it), the round's
public page and the table."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from clubs import permissions
from games.belonging import Crumb
from games.models import Match
from tournaments import queries

# The round's title as the tournament's own pages give it (one place names rounds).
from tournaments.views.public import _title_of_round


def match_trail(user: Any, match: Match) -> tuple[Crumb, ...]:
    """The trail of ``match``'s pairing (one query), or () outside tournaments and for
    a tournament ``user`` may not open.  Only links ``user`` may open: the public pages
    of a public tournament (the round's while its pairings are published), the
    console for its managers."""
    pairing = queries.pairing_of_match(match.pk)
    if pairing is None:
        return ()
    rnd = pairing.round
    tournament = rnd.tournament
    public = queries.has_public_page(tournament)
    manages = permissions.can(user, "tournament.manage", tournament)
    if not public and not manages:
        return ()
    federation, slug = tournament.federation.slug, tournament.slug
    # Those who run it came from the console (entering results): the tournament leads
    # back there; everyone else goes to its public page.
    home = (
        reverse("tournaments:console", args=[tournament.pk])
        if manages
        else reverse("tournaments:public", args=[federation, slug])
    )
    round_page = (
        reverse("tournaments:public_round", args=[federation, slug, rnd.flight, rnd.number])
        if public and tournament.publish_pairings
        else ""
    )
    return (
        Crumb(tournament.name, home),
        Crumb(_title_of_round(tournament, rnd.flight, rnd.number), round_page),
        Crumb(_("Table %(table)d") % {"table": pairing.table}),
    )
