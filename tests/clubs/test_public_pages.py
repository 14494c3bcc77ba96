"""Public pages: federations, a federation's home, club pages, player profiles."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from clubs.models import Discipline, FederationDiscipline
from tests.factories import (
    ClubFactory,
    DisciplineFactory,
    FederationFactory,
    MembershipFactory,
    PlayerFactory,
)

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
RU = {"HTTP_ACCEPT_LANGUAGE": "ru"}
PAST = datetime.date(2020, 1, 1)
LAST_YEAR = datetime.date.today() - datetime.timedelta(days=365)


def page(client, url: str, **headers: str) -> str:  # type: ignore[no-untyped-def]
    response = client.get(url, **(headers or EN))
    assert response.status_code == 200, response.status_code
    return response.content.decode()


# --- Federation list


def test_federation_list_shows_public_federations_with_club_counts(client) -> None:
    public = FederationFactory(name="Russian Nardy Federation")
    ClubFactory.create_batch(2, federation=public)
    ClubFactory(federation=public, is_active=False)
    FederationFactory(name="Secret Federation", is_public=False)
    html = page(client, reverse("clubs:federation_list"))
    assert "Russian Nardy Federation" in html
    assert reverse("clubs:federation", args=[public.slug]) in html
    assert '<td class="num">2</td>' in html  # the inactive club is not counted
    assert "Secret Federation" not in html


@pytest.mark.parametrize("size", [2, 40])
def test_federation_list_query_count_is_constant(client, django_assert_num_queries, size) -> None:
    for _ in range(size):
        ClubFactory(federation=FederationFactory())
    with django_assert_num_queries(1):
        html = page(client, reverse("clubs:federation_list"))
    assert html.count("/f/nf-") == size


# --- Federation home


def test_federation_page_lists_clubs_with_city_and_current_member_count(client) -> None:
    federation = FederationFactory(name="Azerbaijan Nardy Federation")
    baku = ClubFactory(federation=federation, name="Baku Nardy Club", city="Baku")
    ClubFactory(federation=federation, name="Ganja Club", city="Ganja")
    ClubFactory(federation=federation, name="Closed Club", is_active=False)
    MembershipFactory.create_batch(3, club=baku, player__federation=federation)
    MembershipFactory(club=baku, start=PAST, end=LAST_YEAR)  # a former member
    FederationDiscipline.objects.create(federation=federation, discipline=DisciplineFactory())
    html = page(client, reverse("clubs:federation", args=[federation.slug]))
    assert "Azerbaijan Nardy Federation" in html
    baku_row = html[html.index("Baku Nardy Club") :].split("</tr>")[0]
    assert "Baku" in baku_row
    assert '<td class="num">3</td>' in baku_row
    assert reverse("clubs:club", args=[federation.slug, baku.slug]) in html
    assert "Ganja" in html
    assert "Closed Club" not in html
    assert "Short nardy" in html  # its discipline


def test_federation_page_has_no_empty_placeholder_sections(client) -> None:
    federation = FederationFactory()
    html = page(client, reverse("clubs:federation", args=[federation.slug]))
    # No disciplines: no disciplines heading; tournaments and rating lists are not shown here.
    assert "Disciplines" not in html
    assert "Rating lists" not in html
    assert "This federation has no clubs yet." in html


def test_private_or_unknown_federation_is_not_found(client) -> None:
    private = FederationFactory(is_public=False)
    assert client.get(reverse("clubs:federation", args=[private.slug])).status_code == 404
    assert client.get(reverse("clubs:federation", args=["no-such"])).status_code == 404


@pytest.mark.parametrize(("clubs", "members"), [(2, 2), (10, 40)])
def test_federation_page_query_count_is_constant(
    client, django_assert_num_queries, clubs, members
) -> None:
    federation = FederationFactory()
    club_list = ClubFactory.create_batch(clubs, federation=federation)
    for number in range(members):
        MembershipFactory(club=club_list[number % clubs], player__federation=federation)
    for code in ("short-standard", "long-standard"):
        discipline = DisciplineFactory(code=code, name=code, variant=code.split("-")[0])
        FederationDiscipline.objects.create(federation=federation, discipline=discipline)
    # federation, its clubs with member counts, its disciplines
    with django_assert_num_queries(3):
        html = page(client, reverse("clubs:federation", args=[federation.slug]))
    assert html.count("/clubs/club-") == clubs
    assert Discipline.objects.count() == 2


# --- Club page


def test_club_page_lists_current_members_in_both_scripts(client) -> None:
    federation = FederationFactory(show_membership_numbers=True, show_birth_year=False)
    club = ClubFactory(federation=federation, name="Shesh-Besh", city="Kazan")
    player = PlayerFactory(
        federation=federation,
        name_native="Мамедов Эльчин",
        name_latin="Mamedov Elchin",
        membership_number="AZ-0042",
        birth_year=1977,
    )
    MembershipFactory(player=player, club=club)
    former = PlayerFactory(federation=federation, name_latin="Former Member")
    MembershipFactory(player=former, club=club, start=PAST, end=LAST_YEAR)
    html = page(client, reverse("clubs:club", args=[federation.slug, club.slug]))
    assert "Shesh-Besh" in html
    assert "Kazan" in html
    assert "Мамедов Эльчин" in html
    assert "Mamedov Elchin" in html
    assert "AZ-0042" in html
    assert "1977" not in html  # the federation does not publish birth years
    assert reverse("clubs:player", args=[player.pk]) in html
    assert "Former Member" not in html


def test_club_page_follows_the_federation_publication_settings(client) -> None:
    federation = FederationFactory(show_membership_numbers=False, show_birth_year=True)
    club = ClubFactory(federation=federation)
    MembershipFactory(
        club=club,
        player__federation=federation,
        player__membership_number="N-77",
        player__birth_year=1985,
    )
    html = page(client, reverse("clubs:club", args=[federation.slug, club.slug]))
    assert "1985" in html
    assert "N-77" not in html
    assert "Membership number" not in html


def test_club_page_needs_a_public_federation_and_the_right_slug(client) -> None:
    private = FederationFactory(is_public=False)
    hidden = ClubFactory(federation=private)
    assert client.get(reverse("clubs:club", args=[private.slug, hidden.slug])).status_code == 404
    other = FederationFactory()
    club = ClubFactory()
    assert client.get(reverse("clubs:club", args=[other.slug, club.slug])).status_code == 404


@pytest.mark.parametrize("members", [2, 40])
def test_club_page_query_count_is_constant(client, django_assert_num_queries, members) -> None:
    federation = FederationFactory(show_birth_year=True)
    club = ClubFactory(federation=federation)
    MembershipFactory.create_batch(members, club=club, player__federation=federation)
    # the club with its federation, its current members with their players
    with django_assert_num_queries(2):
        html = page(client, reverse("clubs:club", args=[federation.slug, club.slug]))
    assert html.count('href="/players/') == members


# --- Player profile


def test_player_profile_shows_names_country_federation_and_club_history(client) -> None:
    federation = FederationFactory(name="Nardy Federation of Tatarstan", show_birth_year=False)
    player = PlayerFactory(
        federation=federation,
        name_native="Гусейнов Рашад",
        name_latin="Guseynov Rashad",
        country="AZ",
        birth_year=1990,
    )
    old_club = ClubFactory(federation=federation, name="Old Club")
    new_club = ClubFactory(federation=federation, name="New Club")
    MembershipFactory(
        player=player,
        club=old_club,
        start=datetime.date(2019, 3, 1),
        end=datetime.date(2022, 6, 30),
    )
    MembershipFactory(player=player, club=new_club, start=datetime.date(2022, 7, 1))
    html = page(client, reverse("clubs:player", args=[player.pk]))
    assert "Гусейнов Рашад" in html
    assert "Guseynov Rashad" in html
    assert "Azerbaijan" in html
    assert "Nardy Federation of Tatarstan" in html
    assert "Old Club" in html and "New Club" in html
    assert "03/01/2019" in html and "06/30/2022" in html and "07/01/2022" in html
    assert "current member" in html
    assert "1990" not in html


def test_merged_player_redirects_permanently_to_the_survivor(client) -> None:
    survivor = PlayerFactory()
    duplicate = PlayerFactory(merged_into=survivor, membership_number="")
    response = client.get(reverse("clubs:player", args=[duplicate.pk]))
    assert response.status_code == 301
    assert response["Location"] == reverse("clubs:player", args=[survivor.pk])


def test_player_of_a_private_federation_is_not_found(client) -> None:
    player = PlayerFactory(federation=FederationFactory(is_public=False))
    assert client.get(reverse("clubs:player", args=[player.pk])).status_code == 404
    assert client.get(reverse("clubs:player", args=[player.pk + 1000])).status_code == 404


@pytest.mark.parametrize("memberships", [1, 8])
def test_player_profile_query_count_is_constant(
    client, django_assert_num_queries, memberships
) -> None:
    player = PlayerFactory()
    for number in range(memberships):
        MembershipFactory(
            player=player,
            club=ClubFactory(federation=player.federation),
            start=datetime.date(2000 + number, 1, 1),
            end=datetime.date(2000 + number, 12, 31),
        )
    # the player with federation, the memberships with clubs and their federations
    # (+ the player's rating per pool), and clubs.player_page's sections: their events
    # and their matches, none here (a count each; tests/clubs/test_player_page_history.py
    # counts them with a history), and their analysed matches' PR (one)
    with django_assert_num_queries(6):
        html = page(client, reverse("clubs:player", args=[player.pk]))
    assert html.count("/clubs/club-") == memberships


# --- Languages and small screens


def test_pages_in_russian_and_english(client) -> None:
    federation = FederationFactory()
    club = ClubFactory(federation=federation)
    player = PlayerFactory(federation=federation)
    MembershipFactory(player=player, club=club)
    urls = {
        reverse("clubs:federation_list"): ("Federations", "Федерации"),
        reverse("clubs:federation", args=[federation.slug]): ("Clubs", "Клубы"),
        reverse("clubs:club", args=[federation.slug, club.slug]): ("Members", "Члены клуба"),
        reverse("clubs:player", args=[player.pk]): ("Membership number", "Членский номер"),
    }
    for url, (english, russian) in urls.items():
        english_html = page(client, url, **EN)
        assert '<html lang="en">' in english_html
        assert english in english_html
        russian_html = page(client, url, **RU)
        assert '<html lang="ru">' in russian_html
        assert russian in russian_html, url
        assert english not in russian_html.replace("Zary", ""), url


def test_pages_are_laid_out_for_phones(client) -> None:
    federation = FederationFactory()
    club = ClubFactory(federation=federation)
    html = page(client, reverse("clubs:club", args=[federation.slug, club.slug]))
    assert 'name="viewport" content="width=device-width' in html
    assert "@media (max-width:" in html
    assert "overflow-x: auto" in html
