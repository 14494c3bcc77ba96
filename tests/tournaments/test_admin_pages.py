"""The Django admin of tournaments and ratings: staff-only, cut to what the user runs,
read-only (every change is a service, called from the console), linking to the
console, and with change lists whose query count does not grow with their rows."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from clubs.models import FederationDiscipline
from ratings import services as rating_services
from ratings.models import RatingList, RatingListEntry, RatingPool
from tests.factories import DisciplineFactory, PlayerFactory
from tests.world import World
from tournaments import services as tournament_services
from tournaments.models import Entry, Pairing, Round, Tournament

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def admin_url(app: str, model: str, view: str, *args: Any) -> str:
    return reverse(f"admin:{app}_{model}_{view}", args=args)


def listed(client: Any, user: Any, app: str, model: str) -> set[int]:
    client.force_login(user)
    response = client.get(admin_url(app, model, "changelist"), **EN)
    assert response.status_code == 200
    return {obj.pk for obj in response.context["cl"].result_list}


# --- The app pages exist, for staff only


@pytest.mark.parametrize("app", ["tournaments", "ratings"])
def test_the_app_pages_answer_site_staff(client: Any, world: World, app: str) -> None:
    client.force_login(world.site_admin)
    assert client.get(f"/admin/{app}/", **EN).status_code == 200


@pytest.mark.parametrize("app", ["tournaments", "ratings"])
def test_the_admin_stays_staff_only(client: Any, world: World, app: str) -> None:
    """An organizer runs tournaments but is no staff: the admin sends them to its sign-in."""
    client.force_login(world.organizer)
    response = client.get(f"/admin/{app}/", **EN)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    client.logout()
    assert (
        client.get(
            admin_url(app, "ratingpool" if app == "ratings" else "tournament", "changelist"), **EN
        ).status_code
        == 302
    )


# --- Who lists what


def test_tournaments_are_listed_to_those_who_manage_them(client: Any, world: World) -> None:
    running, draft, hidden = world.build_tournaments()
    foreign = tournament_services.create_tournament(
        by=world.other_fed_admin,
        federation=world.other_federation,
        name="Foreign open",
        discipline=world.discipline,
        format="swiss",
        rounds_planned=3,
        match_length=3,
    )
    assert listed(client, world.fed_admin, "tournaments", "tournament") == {
        running.pk,
        draft.pk,
        hidden.pk,
    }
    assert listed(client, world.club_admin, "tournaments", "tournament") == {running.pk}
    assert listed(client, world.other_fed_admin, "tournaments", "tournament") == {foreign.pk}
    assert listed(client, world.site_admin, "tournaments", "tournament") == {
        running.pk,
        draft.pk,
        hidden.pk,
        foreign.pk,
    }
    entries = set(Entry.objects.filter(tournament=running).values_list("pk", flat=True))
    assert listed(client, world.club_admin, "tournaments", "entry") == entries
    assert listed(client, world.other_fed_admin, "tournaments", "entry") == set()


def test_another_federations_tournament_is_not_shown(client: Any, world: World) -> None:
    client.force_login(world.other_fed_admin)
    response = client.get(
        admin_url("tournaments", "tournament", "change", world.running_swiss.pk), **EN
    )
    # The admin's answer for an object outside the user's list: back to the index.
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:index")


def test_a_plain_staff_user_without_a_role_sees_no_tournaments(client: Any, world: World) -> None:
    from tests.factories import UserFactory

    bare = UserFactory(username="bare_staff", is_staff=True)
    client.force_login(bare)
    assert client.get("/admin/tournaments/", **EN).status_code == 404
    assert client.get(admin_url("tournaments", "tournament", "changelist"), **EN).status_code == 403


# --- Read-only, with the console a click away


def test_the_tournament_page_is_read_only_and_links_to_the_console(
    client: Any, world: World
) -> None:
    tournament = world.running_swiss
    client.force_login(world.fed_admin)
    page = client.get(admin_url("tournaments", "tournament", "change", tournament.pk), **EN)
    assert page.status_code == 200
    html = page.content.decode()
    assert f'href="{reverse("tournaments:console", args=[tournament.pk])}"' in html
    assert 'name="_save"' not in html and 'name="name"' not in html
    assert tournament.webhook_secret == "" or tournament.webhook_secret not in html
    listing = client.get(admin_url("tournaments", "tournament", "changelist"), **EN)
    assert (
        f'href="{reverse("tournaments:console", args=[tournament.pk])}"' in listing.content.decode()
    )
    assert 'name="action"' not in listing.content.decode()  # no bulk delete


@pytest.mark.parametrize("model", ["tournament", "entry", "round", "pairing"])
def test_nothing_is_added_changed_or_deleted_through_the_tournaments_admin(
    client: Any, world: World, model: str
) -> None:
    tournament = world.running_swiss
    rnd = tournament_services.pair_next_round(tournament, by=world.fed_admin)
    obj = {
        "tournament": tournament,
        "entry": Entry.objects.filter(tournament=tournament).first(),
        "round": rnd,
        "pairing": rnd.pairings.first(),
    }[model]
    client.force_login(world.site_admin)
    assert client.get(admin_url("tournaments", model, "add"), **EN).status_code == 403
    assert client.post(admin_url("tournaments", model, "change", obj.pk), {}).status_code == 403
    assert (
        client.post(admin_url("tournaments", model, "delete", obj.pk), {"post": "yes"}).status_code
        == 403
    )
    assert type(obj).objects.filter(pk=obj.pk).exists()


def test_a_pairing_links_to_its_match(client: Any, world: World) -> None:
    tournament = world.running_swiss
    rnd = tournament_services.pair_next_round(tournament, by=world.fed_admin)
    tournament_services.start_round(rnd, by=world.fed_admin)
    pairing = rnd.pairings.exclude(match=None).first()
    assert pairing is not None
    client.force_login(world.fed_admin)
    html = client.get(admin_url("tournaments", "pairing", "changelist"), **EN).content.decode()
    assert f'href="{reverse("games:match", args=[pairing.match_id])}"' in html


def pool_of(federation: Any, code: str = "short-standard") -> RatingPool:
    link, _created = FederationDiscipline.objects.get_or_create(
        federation=federation, discipline=DisciplineFactory(code=code)
    )
    return rating_services.ensure_pool(link)


def test_rating_pools_are_listed_to_their_federations_admins(client: Any, world: World) -> None:
    mine = pool_of(world.federation)
    theirs = pool_of(world.other_federation)
    assert listed(client, world.fed_admin, "ratings", "ratingpool") == {mine.pk}
    assert listed(client, world.other_fed_admin, "ratings", "ratingpool") == {theirs.pk}
    assert listed(client, world.site_admin, "ratings", "ratingpool") == {mine.pk, theirs.pk}
    client.force_login(world.club_admin)  # no ratings rule of their own
    assert client.get(admin_url("ratings", "ratingpool", "changelist"), **EN).status_code == 403
    client.force_login(world.fed_admin)
    html = client.get(admin_url("ratings", "ratingpool", "change", mine.pk), **EN).content.decode()
    assert 'name="_save"' not in html
    assert (
        f'href="{reverse("ratings:pool", args=[world.federation.slug, "short-standard"])}"' in html
    )
    assert (
        f'href="{reverse("ratings:publish", args=[world.federation.slug, "short-standard"])}"'
        in html
    )


@pytest.mark.parametrize("model", ["ratingpool", "ratinglist", "ratinglistentry"])
def test_nothing_is_added_changed_or_deleted_through_the_ratings_admin(
    client: Any, world: World, model: str
) -> None:
    pool = pool_of(world.federation)
    rating_list = RatingList.objects.create(pool=pool, date=datetime.date(2025, 1, 1))
    entry = RatingListEntry.objects.create(
        rating_list=rating_list, player=world.member, rank=1, rating=1500.0
    )
    obj = {"ratingpool": pool, "ratinglist": rating_list, "ratinglistentry": entry}[model]
    client.force_login(world.site_admin)
    assert client.get(admin_url("ratings", model, "add"), **EN).status_code == 403
    assert client.post(admin_url("ratings", model, "change", obj.pk), {}).status_code == 403
    assert (
        client.post(admin_url("ratings", model, "delete", obj.pk), {"post": "yes"}).status_code
        == 403
    )
    assert type(obj).objects.filter(pk=obj.pk).exists()


# --- Change lists: the same number of queries for 3 rows as for 30


def _tournaments(world: World, rows: int) -> None:
    for k in range(rows):
        tournament_services.create_tournament(
            by=world.fed_admin,
            federation=world.federation,
            club=world.club if k % 2 else None,
            name=f"Open {k}",
            discipline=world.discipline,
            format="swiss",
            rounds_planned=3,
            match_length=3,
            starts_on=datetime.date(2025, 1, 1) + datetime.timedelta(days=k),
        )


def _tournament(world: World) -> Tournament:
    return tournament_services.create_tournament(
        by=world.fed_admin,
        federation=world.federation,
        name="Rows",
        discipline=world.discipline,
        format="swiss",
        rounds_planned=3,
        match_length=3,
    )


def _entries(world: World, rows: int) -> None:
    tournament = _tournament(world)
    for k in range(rows):
        Entry.objects.create(
            tournament=tournament, player=PlayerFactory(federation=world.federation), seed=k + 1
        )


def _rounds(world: World, rows: int) -> None:
    tournament = _tournament(world)
    for k in range(rows):
        Round.objects.create(tournament=tournament, number=k + 1, match_length=3)


def _pairings(world: World, rows: int) -> None:
    tournament = _tournament(world)
    rnd = Round.objects.create(tournament=tournament, number=1, match_length=3)
    for table in range(1, rows + 1):
        one, two = (
            Entry.objects.create(
                tournament=tournament, player=PlayerFactory(federation=world.federation)
            )
            for _ in range(2)
        )
        Pairing.objects.create(
            round=rnd, table=table, entry1=one, entry2=two if table > 1 else None
        )


def _pools(world: World, rows: int) -> None:
    first = RatingPool.objects.count()
    for k in range(first, first + rows):
        pool_of(world.federation, code=f"d{k}")


def _lists(world: World, rows: int) -> None:
    pool = pool_of(world.federation)
    first = RatingList.objects.count()
    for k in range(first, first + rows):
        RatingList.objects.create(
            pool=pool, date=datetime.date(2024, 1, 1) + datetime.timedelta(days=k)
        )


def _list_entries(world: World, rows: int) -> None:
    rating_list, _created = RatingList.objects.get_or_create(
        pool=pool_of(world.federation), date=datetime.date(2025, 1, 1)
    )
    first = rating_list.entries.count()
    for k in range(first, first + rows):
        RatingListEntry.objects.create(
            rating_list=rating_list,
            player=PlayerFactory(federation=world.federation),
            rank=k + 1,
            rating=1600.0 - k,
        )


BUILDERS = {
    ("tournaments", "tournament"): _tournaments,
    ("tournaments", "entry"): _entries,
    ("tournaments", "round"): _rounds,
    ("tournaments", "pairing"): _pairings,
    ("ratings", "ratingpool"): _pools,
    ("ratings", "ratinglist"): _lists,
    ("ratings", "ratinglistentry"): _list_entries,
}


def changelist_queries(client: Any, user: Any, app: str, model: str) -> tuple[int, int]:
    """(queries, rows shown) of one visit of the change list."""
    client.force_login(user)
    url = admin_url(app, model, "changelist")
    client.get(url, **EN)  # content types and the like, cached once per process
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, **EN)
    assert response.status_code == 200
    return len(queries), len(response.context["cl"].result_list)


@pytest.mark.parametrize(("app", "model"), list(BUILDERS))
@pytest.mark.parametrize("who", ["fed_admin", "site_admin"])
def test_a_change_list_costs_the_same_for_3_rows_as_for_30(
    client: Any, world: World, app: str, model: str, who: str
) -> None:
    build = BUILDERS[(app, model)]
    user = getattr(world, who)
    build(world, 3)
    few, shown = changelist_queries(client, user, app, model)
    assert shown >= 3
    build(world, 27)
    many, shown_now = changelist_queries(client, user, app, model)
    assert shown_now >= 30
    assert many == few, f"{model}: {few} queries for {shown} rows, {many} for {shown_now}"
