"""The header's menu for those who run events: "Organize", the disputes and the claims
they may decide, with counts that agree with the queues' pages and cost a fixed number
of queries; nothing of it on anonymous pages."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.urls import reverse

from clubs import permissions
from clubs import services as club_services
from games import queries as games_queries
from games import services as games_services
from games.models import ResultReport
from tests.factories import MatchFactory, PlayerFactory, UserFactory
from tests.tournaments import builders
from tests.world import World
from tournaments import navigation
from tournaments import services as tournament_services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
ROLES = [
    "fed_admin",
    "club_admin",
    "other_fed_admin",
    "site_admin",
    "organizer",
    "arbiter",
    "plain",
]


def dispute(match: Any) -> ResultReport:
    report = games_services.submit_report(
        match, by=match.player1.user, score1=match.length, score2=0
    )
    return games_services.dispute_report(report, by=match.player2.user, reason="not so")


def dispute_first_round(tournament: Tournament, by: Any) -> list[ResultReport]:
    """Pair and start round 1, and have every match's result disputed."""
    rnd = tournament_services.pair_next_round(tournament, by=by)
    tournament_services.start_round(rnd, by=by)
    pairings = rnd.pairings.filter(match__isnull=False).select_related(
        "match__player1__user", "match__player2__user"
    )
    return [dispute(pairing.match) for pairing in pairings]


def fresh(user: Any) -> Any:
    """The user as a new request loads it: no roles cached yet."""
    return get_user_model().objects.get(pk=user.pk)


@pytest.fixture
def queues(world: World) -> World:
    """Two disputed results in running_swiss (hosted at club), a disputed free match in
    each federation, and a pending claim of a player of each federation."""
    dispute_first_round(world.running_swiss, world.fed_admin)
    dispute(MatchFactory(player1__federation=world.federation))
    dispute(MatchFactory(player1__federation=world.other_federation))
    club_services.claim_profile(world.member, by=UserFactory(username="claimant"))
    club_services.claim_profile(world.foreign, by=UserFactory(username="foreign_claimant"))
    return world


@pytest.mark.parametrize(
    ("who", "organize", "disputes", "claims"),
    [
        ("fed_admin", True, 3, 1),
        ("club_admin", True, 2, 1),  # the host club's tournament; its member's claim
        ("other_fed_admin", True, 1, 1),
        ("site_admin", True, 4, 2),
        ("organizer", True, 2, None),
        ("arbiter", False, 2, None),
        ("plain", False, None, None),
    ],
)
def test_the_menu_shows_each_queue_to_those_who_decide_it(
    queues: World, who: str, organize: bool, disputes: int | None, claims: int | None
) -> None:
    user = getattr(queues, who)
    menu = navigation.menu_for(fresh(user))
    assert (menu.organize, menu.disputes, menu.claims) == (organize, disputes, claims)


@pytest.mark.parametrize("who", ROLES)
def test_the_counts_agree_with_the_queues_pages(queues: World, who: str) -> None:
    user = getattr(queues, who)
    menu = navigation.menu_for(fresh(user))
    if menu.disputes is not None:
        assert menu.disputes == len(games_queries.disputes_for(fresh(user)))
    else:
        assert games_queries.disputes_for(fresh(user)) == []
    if menu.claims is not None:
        assert menu.claims == permissions.claims_to_decide(fresh(user)).count()
    else:
        assert not permissions.decides_claims(fresh(user))


def test_a_decided_dispute_leaves_the_count(queues: World) -> None:
    report = ResultReport.objects.filter(status="disputed").order_by("id").first()
    assert report is not None
    before = navigation.menu_for(fresh(queues.site_admin)).disputes
    games_services.decide_dispute(report, by=queues.site_admin, uphold=True, reason="ok")
    assert navigation.menu_for(fresh(queues.site_admin)).disputes == before - 1  # type: ignore[operator]


@pytest.mark.parametrize("more_tables", [0, 6])
def test_the_menu_costs_three_queries_whatever_the_queues_hold(
    queues: World, more_tables: int, django_assert_num_queries: Any
) -> None:
    if more_tables:
        bigger = builders.tournament(
            2 * more_tables,
            "swiss",
            federation=queues.federation,
            by=queues.fed_admin,
            rounds_planned=1,
        )
        dispute_first_round(bigger, queues.fed_admin)
        for _ in range(more_tables):
            club_services.claim_profile(
                PlayerFactory(federation=queues.federation), by=UserFactory()
            )
    navigation.menu_for(fresh(queues.fed_admin))  # the content types, cached once per process
    user = fresh(queues.fed_admin)
    with django_assert_num_queries(3):  # the user's roles, the disputes, the claims
        menu = navigation.menu_for(user)
    assert menu.disputes == 3 + more_tables
    assert menu.claims == 1 + more_tables


def test_the_menu_is_read_only_when_a_template_shows_it(
    world: World, django_assert_num_queries: Any
) -> None:
    request = RequestFactory().get("/")
    request.user = fresh(world.fed_admin)
    with django_assert_num_queries(0):
        context = navigation.staff_menu(request)
    with django_assert_num_queries(3):
        assert context["staff_menu"].organize is True


def test_the_header_links_the_queues_with_their_counts(client: Any, queues: World) -> None:
    client.force_login(queues.fed_admin)
    html = client.get(reverse("home"), **EN).content.decode()
    assert f'<a href="{reverse("tournaments:organize")}">Organize</a>' in html
    assert (
        f'<a href="{reverse("games:disputes")}">Disputes (<span class="count">3</span>)</a>' in html
    )
    assert (
        f'<a href="{reverse("clubs:staff_claims")}">Claims (<span class="count">1</span>)</a>'
        in html
    )


def test_an_arbiter_sees_only_the_disputes(client: Any, queues: World) -> None:
    client.force_login(queues.arbiter)
    html = client.get(reverse("home"), **EN).content.decode()
    assert f'href="{reverse("games:disputes")}"' in html
    assert f'href="{reverse("tournaments:organize")}"' not in html
    assert f'href="{reverse("clubs:staff_claims")}"' not in html


def test_a_user_without_a_role_sees_none_of_it(client: Any, queues: World) -> None:
    client.force_login(queues.plain)
    html = client.get(reverse("home"), **EN).content.decode()
    for name in ("tournaments:organize", "games:disputes", "clubs:staff_claims"):
        assert f'href="{reverse(name)}"' not in html
    assert f'href="{reverse("games:match_list")}"' in html  # the header is there


@pytest.mark.parametrize("name", ["home", "clubs:federation_list"])
def test_anonymous_pages_are_the_same_for_every_visitor(
    client: Any, queues: World, name: str
) -> None:
    first = client.get(reverse(name), **EN)
    second = client.__class__().get(reverse(name), **EN)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    html = first.content.decode()
    assert "csrfmiddlewaretoken" not in html and "csrftoken" not in first.cookies
    for url_name in ("tournaments:organize", "games:disputes", "clubs:staff_claims"):
        assert f'href="{reverse(url_name)}"' not in html
