"""The match page says where the match belongs and shows a cube only where there is one
(issue 15): a tournament's match leads back to the tournament and its round
("Tournament › Round N › Table T", through the ``games.belonging`` provider the
tournaments app registers), and a discipline played without the cube (long nardy)
has no cube column."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from clubs.models import Discipline, Role
from games.models import Game, Match
from tests.factories import MatchFactory, UserFactory, grant
from tests.tournaments import builders
from tournaments import services
from tournaments.models import Pairing, Tournament

pytestmark = pytest.mark.django_db


def match_page(client: Client, match: Match) -> str:
    response = client.get(reverse("games:match", args=[match.pk]))
    assert response.status_code == 200, response.status_code
    return str(response.content.decode())


def trail(html: str) -> list[tuple[str | None, str]]:
    """The breadcrumb's steps: (link or None, label)."""
    found = re.search(r'<nav class="breadcrumb" id="match-trail"[^>]*>(.*?)</nav>', html, re.S)
    if found is None:
        return []
    steps = re.findall(r'<a href="([^"]+)">([^<]+)</a>|<span>([^<]+)</span>', found.group(1))
    return [(href or None, label or text) for href, label, text in steps]


def paired(n: int = 4, **settings: Any) -> tuple[Tournament, Any, Pairing]:
    """A Swiss of ``n``, its first round paired and started; the last table's pairing."""
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(
        n, "swiss", federation=federation, by=admin, rounds_planned=3, **settings
    )
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    pairing = rnd.pairings.exclude(match=None).order_by("-table").first()
    assert pairing is not None
    return t, admin, pairing


def test_a_tournament_match_leads_to_its_tournament_and_round(client: Client) -> None:
    t, _admin, pairing = paired()
    assert pairing.match is not None
    steps = trail(match_page(client, pairing.match))
    fed, slug = t.federation.slug, t.slug
    assert steps == [
        (reverse("tournaments:public", args=[fed, slug]), t.name),
        (reverse("tournaments:public_round", args=[fed, slug, "main", 1]), "Round 1"),
        (None, f"Table {pairing.table}"),
    ]
    # Both links answer (no dead end).
    for href, _label in steps[:2]:
        assert href is not None and client.get(href).status_code == 200


def test_its_organizer_is_led_back_to_the_console(client: Client) -> None:
    t, _admin, pairing = paired()
    organizer = UserFactory()
    grant(organizer, Role.ORGANIZER, t)
    client.force_login(organizer)
    assert pairing.match is not None
    steps = trail(match_page(client, pairing.match))
    assert steps[0] == (reverse("tournaments:console", args=[t.pk]), t.name)


def test_no_link_where_the_visitor_could_not_follow_it(client: Client) -> None:
    t, admin, pairing = paired()
    assert pairing.match is not None
    # Pairings not published: the round's page is a 404, so the round is named, not linked.
    Tournament.objects.filter(pk=t.pk).update(publish_pairings=False)
    steps = trail(match_page(client, pairing.match))
    assert steps[1] == (None, "Round 1") and steps[0][0] is not None
    # A private tournament has no public page: no trail for a visitor...
    Tournament.objects.filter(pk=t.pk).update(is_public=False)
    assert trail(match_page(client, pairing.match)) == []
    # ...and the console for those who run it.
    client.force_login(admin)
    assert trail(match_page(client, pairing.match))[0][0] == reverse(
        "tournaments:console", args=[t.pk]
    )


def test_a_match_outside_tournaments_has_no_trail(client: Client) -> None:
    match = MatchFactory()
    html = match_page(client, match)
    assert trail(html) == [] and 'id="match-trail"' not in html


# The match (with its players and whether its result is hidden), its games and its
# reports, and the trail's one read of the match's pairing.
MATCH_PAGE_QUERIES = 4


@pytest.mark.parametrize("n", [4, 32])
def test_the_trail_costs_one_query_whatever_the_tournament(
    client: Client, django_assert_num_queries: Any, n: int
) -> None:
    _t, _admin, pairing = paired(n)
    assert pairing.match is not None
    with django_assert_num_queries(MATCH_PAGE_QUERIES):
        html = match_page(client, pairing.match)
    assert len(trail(html)) == 3
    # A match outside tournaments costs the same: the provider looks once and finds none.
    alone = MatchFactory()
    with django_assert_num_queries(MATCH_PAGE_QUERIES):
        match_page(client, alone)


def with_a_game(discipline: Discipline) -> Match:
    match = MatchFactory(discipline=discipline, recorded=False)
    Game.objects.create(
        match=match,
        number=1,
        score1_before=0,
        score2_before=0,
        winner=1,
        result="mars",
        multiplier=2,
        cube=1,
        points=2,
    )
    return match


def games_table(html: str) -> str:
    start = html.index('<table class="list" id="games">')
    return html[start : html.index("</table>", start)]


def test_the_cube_column_shows_only_where_the_discipline_has_a_cube(client: Client) -> None:
    long_nardy, _created = Discipline.objects.get_or_create(
        code="long-masters",
        defaults={
            "name": "Long nardy",
            "variant": "long",
            "scoring_preset": "long-masters",
            "cube": False,
        },
    )
    short_nardy, _created = Discipline.objects.get_or_create(
        code="short-cube",
        defaults={
            "name": "Short nardy",
            "variant": "short",
            "scoring_preset": "short-standard",
            "cube": True,
        },
    )
    without = games_table(match_page(client, with_a_game(long_nardy)))
    assert "Cube" not in without
    assert len(re.findall(r"<th[ >]", without)) == 7
    with_cube = games_table(match_page(client, with_a_game(short_nardy)))
    assert "Cube" in with_cube
    assert len(re.findall(r"<th[ >]", with_cube)) == 8


def test_a_discipline_that_claims_a_cube_its_variant_lacks_shows_none(client: Client) -> None:
    # A row saved without clean(): the variant's rules decide (long nardy has no cube).
    odd = Discipline.objects.create(
        code="long-odd",
        name="Long nardy (odd)",
        variant="long",
        scoring_preset="long-masters",
        cube=True,
    )
    assert "Cube" not in games_table(match_page(client, with_a_game(odd)))
