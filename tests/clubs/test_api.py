"""The clubs REST API: reading, writing by role, filters, pagination, the schema."""

from __future__ import annotations

import datetime
import json

import pytest

from clubs.models import AuditEntry, Club, Membership, Player, Role
from tests.factories import (
    ClubFactory,
    DisciplineFactory,
    FederationFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
    grant,
)

pytestmark = pytest.mark.django_db

PAST = datetime.date(2020, 1, 1)
LAST_YEAR = datetime.date.today() - datetime.timedelta(days=365)


def get(client, url: str, **params: object) -> dict:  # type: ignore[no-untyped-def]
    response = client.get(url, params, HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200, response.content
    return response.json()


def send(client, method: str, url: str, data: dict):  # type: ignore[no-untyped-def]
    return getattr(client, method)(
        url,
        json.dumps(data),
        content_type="application/json",
        HTTP_ACCEPT="application/json",
        HTTP_ACCEPT_LANGUAGE="en",
    )


def ids(payload: dict) -> set[int]:
    return {row["id"] for row in payload["results"]}


# --- Reading


def test_anonymous_visitors_read_public_federations_only(client, world) -> None:
    assert ids(get(client, "/api/federations/")) == {world.federation.pk}
    assert ids(get(client, "/api/clubs/")) == {world.club.pk, world.second_club.pk}
    assert ids(get(client, "/api/players/")) == {
        world.member.pk,
        world.past_member.pk,
        world.second_club_member.pk,
    }
    assert ids(get(client, "/api/memberships/")) == set(
        Membership.objects.filter(club__federation=world.federation).values_list("pk", flat=True)
    )
    hidden = client.get(f"/api/players/{world.foreign.pk}/")
    assert hidden.status_code == 404


def test_admins_also_read_their_private_federation(client, world) -> None:
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, world.other_federation)
    client.force_login(admin)
    assert ids(get(client, "/api/federations/")) == {world.federation.pk, world.other_federation.pk}
    assert world.foreign.pk in ids(get(client, "/api/players/"))
    client.force_login(UserFactory())  # a signed-in user with no role
    assert ids(get(client, "/api/federations/")) == {world.federation.pk}


def test_representations_have_typed_fields(client, world) -> None:
    club = get(client, f"/api/clubs/{world.club.pk}/")
    assert club["federation"] == world.federation.pk
    assert club["member_count"] == 1
    assert club["city"] == "Kazan"
    player = get(client, f"/api/players/{world.member.pk}/")
    assert player["country"] == "RU"
    assert player["merged_into"] is None
    assert "club" not in player  # write-only
    membership = get(client, f"/api/memberships/{world.membership.pk}/")
    assert membership == {
        "id": world.membership.pk,
        "player": world.member.pk,
        "club": world.club.pk,
        "start": "2024-01-01",
        "end": None,
        "is_current": True,
    }


def test_unpublished_player_data_is_hidden_but_not_from_admins(client, world) -> None:
    federation = world.federation
    federation.show_birth_year = False
    federation.show_membership_numbers = False
    federation.save()
    player = world.member
    url = f"/api/players/{player.pk}/"
    anonymous = get(client, url)
    assert anonymous["birth_year"] is None
    assert anonymous["membership_number"] == ""
    # ... and cannot be guessed with filters
    assert ids(get(client, "/api/players/", birth_year_min=1990, birth_year_max=1990)) == set()
    assert ids(get(client, "/api/players/", membership_number=player.membership_number)) == set()
    client.force_login(world.fed_admin)
    seen = get(client, url)
    assert seen["birth_year"] == 1990
    assert seen["membership_number"] == player.membership_number
    assert ids(get(client, "/api/players/", birth_year_min=1990)) == {
        world.member.pk,
        world.past_member.pk,
        world.second_club_member.pk,
    }


# --- Writing by role


def test_federation_admin_creates_a_club_in_their_federation_only(client, world) -> None:
    client.force_login(world.fed_admin)
    response = send(
        client,
        "post",
        "/api/clubs/",
        {"federation": world.federation.pk, "name": "Caspian Club", "city": "Sumgait"},
    )
    assert response.status_code == 201, response.content
    created = Club.objects.get(name="Caspian Club")
    assert response.json()["id"] == created.pk
    assert response.json()["member_count"] == 0
    assert created.slug == "caspian-club"
    assert AuditEntry.objects.filter(action="club.create", target_id=created.pk).exists()
    other = FederationFactory()
    response = send(
        client, "post", "/api/clubs/", {"federation": other.pk, "name": "Elsewhere", "city": "X"}
    )
    assert response.status_code == 403
    assert not Club.objects.filter(name="Elsewhere").exists()


@pytest.mark.parametrize("who", ["anonymous", "club_admin", "plain"])
def test_others_may_not_create_clubs(client, world, who) -> None:
    if who != "anonymous":
        client.force_login(getattr(world, who))
    response = send(
        client, "post", "/api/clubs/", {"federation": world.federation.pk, "name": "N", "city": "C"}
    )
    assert response.status_code in ({401, 403} if who == "anonymous" else {403})
    assert not Club.objects.filter(name="N").exists()


def test_club_admin_updates_their_club_and_no_other(client, world) -> None:
    client.force_login(world.club_admin)
    response = send(client, "patch", f"/api/clubs/{world.club.pk}/", {"city": "Ganja"})
    assert response.status_code == 200, response.content
    world.club.refresh_from_db()
    assert world.club.city == "Ganja"
    other = ClubFactory(federation=world.federation)
    response = send(client, "patch", f"/api/clubs/{other.pk}/", {"city": "Ganja"})
    assert response.status_code == 403
    other.refresh_from_db()
    assert other.city == "Moscow"


def test_service_validation_errors_become_400_with_field_errors(client, world) -> None:
    client.force_login(world.fed_admin)
    duplicate = send(
        client,
        "post",
        "/api/clubs/",
        {"federation": world.federation.pk, "name": world.club.name, "city": "Baku"},
    )
    assert duplicate.status_code == 400
    assert "already exists" in json.dumps(duplicate.json())
    bad_year = send(client, "patch", f"/api/players/{world.member.pk}/", {"birth_year": 1800})
    assert bad_year.status_code == 400
    assert "birth_year" in bad_year.json()
    moved = send(
        client, "patch", f"/api/clubs/{world.club.pk}/", {"federation": world.other_federation.pk}
    )
    assert moved.status_code == 400
    assert "federation" in moved.json()


def test_club_admin_creates_a_player_in_their_club(client, world) -> None:
    client.force_login(world.club_admin)
    response = send(
        client,
        "post",
        "/api/players/",
        {
            "name_native": "Исмаилов Фарид",
            "name_latin": "Ismayilov Farid",
            "club": world.club.pk,
        },
    )
    assert response.status_code == 201, response.content
    player = Player.objects.get(pk=response.json()["id"])
    assert player.federation == world.federation
    assert Membership.objects.current().filter(player=player, club=world.club).exists()
    outside = send(
        client,
        "post",
        "/api/players/",
        {"name_native": "A", "name_latin": "A", "federation": world.federation.pk},
    )
    assert outside.status_code == 403  # a club admin adds players to their club only


def test_player_edits_their_own_profile_through_the_api(client, world) -> None:
    user = UserFactory()
    player = PlayerFactory(user=user, federation=world.federation)
    client.force_login(user)
    response = send(client, "patch", f"/api/players/{player.pk}/", {"name_latin": "Renamed"})
    assert response.status_code == 200, response.content
    player.refresh_from_db()
    assert player.name_latin == "Renamed"
    response = send(client, "patch", f"/api/players/{world.member.pk}/", {"name_latin": "X"})
    assert response.status_code == 403


def test_memberships_are_added_and_ended_by_the_club_admin(client, world) -> None:
    client.force_login(world.club_admin)
    newcomer = PlayerFactory(federation=world.federation)
    response = send(
        client,
        "post",
        "/api/memberships/",
        {"player": newcomer.pk, "club": world.club.pk, "start": "2025-02-01"},
    )
    assert response.status_code == 201, response.content
    membership_id = response.json()["id"]
    overlapping = send(
        client,
        "post",
        "/api/memberships/",
        {"player": newcomer.pk, "club": world.club.pk, "start": "2025-03-01"},
    )
    assert overlapping.status_code == 400
    assert "non_field_errors" in overlapping.json()
    url = f"/api/memberships/{membership_id}/end/"
    too_early = send(client, "post", url, {"end": "2024-12-31"})
    assert too_early.status_code == 400
    ended = send(client, "post", url, {"end": "2025-06-30"})
    assert ended.status_code == 200, ended.content
    assert ended.json()["end"] == "2025-06-30"
    assert Membership.objects.get(pk=membership_id).end == datetime.date(2025, 6, 30)
    again = send(client, "post", url, {"end": "2025-07-30"})
    assert again.status_code == 400
    assert "already ended" in json.dumps(again.json())
    missing_date = send(client, "post", f"/api/memberships/{world.membership.pk}/end/", {})
    assert missing_date.status_code == 400
    assert "end" in missing_date.json()


def test_ending_someone_elses_membership_is_refused(client, world) -> None:
    url = f"/api/memberships/{world.membership.pk}/end/"
    assert send(client, "post", url, {"end": "2025-01-31"}).status_code in {401, 403}
    client.force_login(UserFactory())
    assert send(client, "post", url, {"end": "2025-01-31"}).status_code == 403
    other_admin = UserFactory()
    grant(other_admin, Role.CLUB_ADMIN, ClubFactory(federation=world.federation))
    client.force_login(other_admin)
    assert send(client, "post", url, {"end": "2025-01-31"}).status_code == 403
    world.membership.refresh_from_db()
    assert world.membership.end is None


def test_deleting_clubs_without_history_only(client, world) -> None:
    client.force_login(world.fed_admin)
    empty = ClubFactory(federation=world.federation)
    assert client.delete(f"/api/clubs/{empty.pk}/", HTTP_ACCEPT_LANGUAGE="en").status_code == 204
    assert not Club.objects.filter(pk=empty.pk).exists()
    response = client.delete(f"/api/clubs/{world.club.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert "inactive" in json.dumps(response.json())
    assert Club.objects.filter(pk=world.club.pk).exists()
    client.force_login(world.club_admin)
    assert (
        client.delete(f"/api/clubs/{world.club.pk}/", HTTP_ACCEPT_LANGUAGE="en").status_code == 403
    )


def test_federations_are_created_by_site_admins_only(client, world) -> None:
    client.force_login(world.fed_admin)
    data = {"name": "New Federation", "short_name": "NF"}
    assert send(client, "post", "/api/federations/", data).status_code == 403
    client.force_login(UserFactory(is_superuser=True, is_staff=True))
    response = send(client, "post", "/api/federations/", data)
    assert response.status_code == 201, response.content
    assert response.json()["slug"] == "nf"
    client.force_login(world.fed_admin)
    response = send(
        client, "patch", f"/api/federations/{world.federation.pk}/", {"show_birth_year": True}
    )
    assert response.status_code == 200
    world.federation.refresh_from_db()
    assert world.federation.show_birth_year is True


# --- Filters and pagination


def test_player_filters(client) -> None:
    federation = FederationFactory(show_birth_year=True)
    club = ClubFactory(federation=federation)
    mamedov = PlayerFactory(
        federation=federation,
        name_native="Мамедов Эльчин",
        name_latin="Mamedov Elchin",
        country="AZ",
        gender="m",
        birth_year=1975,
        membership_number="AZ-1",
    )
    MembershipFactory(player=mamedov, club=club)
    aliyeva = PlayerFactory(
        federation=federation,
        name_native="Алиева Лейла",
        name_latin="Aliyeva Leyla",
        country="RU",
        gender="f",
        birth_year=1995,
        membership_number="RU-2",
    )
    MembershipFactory(player=aliyeva, club=club, start=PAST, end=LAST_YEAR)  # a former member
    latin_only = PlayerFactory(
        federation=federation,
        name_native="Mamedova Sabina",
        name_latin="Mamedova Sabina",
        birth_year=None,
    )
    elsewhere = PlayerFactory()

    def found(**params: object) -> set[int]:
        return ids(get(client, "/api/players/", **params))

    assert found(federation=federation.pk) == {mamedov.pk, aliyeva.pk, latin_only.pk}
    assert elsewhere.pk in found(federation=elsewhere.federation_id)
    assert found(club=club.pk) == {mamedov.pk}
    assert found(country="AZ") == {mamedov.pk}
    assert found(gender="f") == {aliyeva.pk}
    assert found(birth_year_min=1980, federation=federation.pk) == {aliyeva.pk}
    assert found(birth_year_max=1980) == {mamedov.pk}
    assert found(birth_year_min=1970, birth_year_max=2000) == {mamedov.pk, aliyeva.pk}
    assert found(membership_number="ru-2") == {aliyeva.pk}
    assert found(name="Мамедов Эльчин") == {mamedov.pk}  # native script
    assert found(name="Эльчин") == {mamedov.pk}
    assert found(name="elchin mamedov") == {mamedov.pk}  # Latin, words in any order
    assert found(name="Mamedov") == {mamedov.pk, latin_only.pk}
    # A Cyrillic query also finds a name written only in Latin letters.
    assert found(name="Мамедова") == {latin_only.pk}
    assert found(name="Мамедов") == {mamedov.pk, latin_only.pk}
    bad = client.get("/api/players/", {"country": "XX"}, HTTP_ACCEPT="application/json")
    assert bad.status_code == 400


def test_club_and_membership_filters(client) -> None:
    federation = FederationFactory()
    baku = ClubFactory(federation=federation, city="Baku")
    ganja = ClubFactory(federation=federation, city="Ganja")
    ClubFactory(city="Baku")  # another federation
    player = PlayerFactory(federation=federation)
    current = MembershipFactory(player=player, club=baku)
    former = MembershipFactory(player=player, club=ganja, start=PAST, end=LAST_YEAR)
    other = MembershipFactory(club=ganja)
    assert ids(get(client, "/api/clubs/", federation=federation.pk)) == {baku.pk, ganja.pk}
    assert ids(get(client, "/api/clubs/", federation=federation.pk, city="baku")) == {baku.pk}
    assert ids(get(client, "/api/memberships/", player=player.pk)) == {current.pk, former.pk}
    assert ids(get(client, "/api/memberships/", club=ganja.pk)) == {former.pk, other.pk}
    assert ids(get(client, "/api/memberships/", player=player.pk, current="true")) == {current.pk}
    assert ids(get(client, "/api/memberships/", player=player.pk, current="false")) == {former.pk}
    elsewhere = MembershipFactory()  # a club of another federation
    in_federation = ids(get(client, "/api/memberships/", federation=federation.pk))
    assert in_federation == {current.pk, former.pk, other.pk}
    assert ids(get(client, "/api/memberships/", federation=elsewhere.club.federation_id)) == {
        elsewhere.pk
    }
    assert ids(get(client, "/api/memberships/", player=player.pk, started_to=PAST)) == {former.pk}


def test_federation_filters(client) -> None:
    azerbaijan = FederationFactory(country="AZ")
    russia = FederationFactory(country="RU")
    discipline = DisciplineFactory()
    azerbaijan.disciplines.add(discipline)
    assert ids(get(client, "/api/federations/", country="AZ")) == {azerbaijan.pk}
    assert ids(get(client, "/api/federations/", discipline=discipline.code)) == {azerbaijan.pk}
    assert russia.pk in ids(get(client, "/api/federations/", country="RU"))


def test_lists_are_paginated(client) -> None:
    """By 100 rows (tests/config/test_api_pagination.py pins the sizes); a page size asked."""
    federation = FederationFactory()
    PlayerFactory.create_batch(51, federation=federation)
    first = get(client, "/api/players/", page_size=50)
    assert first["count"] == 51
    assert len(first["results"]) == 50
    assert first["next"] is not None
    assert len(get(client, "/api/players/", page=2, page_size=50)["results"]) == 1
    assert len(get(client, "/api/players/")["results"]) == 51


@pytest.mark.parametrize("size", [2, 40])
@pytest.mark.parametrize("endpoint", ["federations", "clubs", "players", "memberships"])
def test_list_query_count_is_constant(client, django_assert_num_queries, endpoint, size) -> None:
    for _ in range(size):
        federation = FederationFactory()
        MembershipFactory(club__federation=federation, player__federation=federation)
    # the page count and the page (federations: plus their disciplines)
    expected = 3 if endpoint == "federations" else 2
    with django_assert_num_queries(expected):
        payload = get(client, f"/api/{endpoint}/")
    assert payload["count"] == size
    assert len(payload["results"]) == size


def test_list_query_count_does_not_grow_for_a_signed_in_admin(
    client, django_assert_num_queries, world
) -> None:
    for _ in range(30):
        MembershipFactory(club=world.club, player__federation=world.federation)
    client.force_login(world.fed_admin)
    # session, user, roles, count, page
    with django_assert_num_queries(5):
        payload = get(client, "/api/players/")
    assert payload["count"] == 30 + 3  # and the world's three players of the federation


# --- Schema


def test_openapi_schema_documents_the_endpoints(client) -> None:
    schema = get(client, "/api/schema/", format="json")
    paths = schema["paths"]
    for path in (
        "/api/federations/",
        "/api/federations/{id}/",
        "/api/clubs/",
        "/api/clubs/{id}/",
        "/api/players/",
        "/api/players/{id}/",
        "/api/memberships/",
        "/api/memberships/{id}/",
        "/api/memberships/{id}/end/",
    ):
        assert path in paths, path
    assert set(paths["/api/clubs/{id}/"]) >= {"get", "put", "patch", "delete"}
    assert "post" in paths["/api/memberships/{id}/end/"]
    components = schema["components"]["schemas"]
    player = components["Player"]["properties"]
    assert player["birth_year"]["type"] == "integer"
    assert player["club"]["writeOnly"] is True
    assert components["Club"]["properties"]["member_count"]["type"] == "integer"
    assert components["Membership"]["properties"]["start"]["format"] == "date"
    assert components["Membership"]["properties"]["is_current"]["type"] == "boolean"
    assert components["MembershipEnd"]["properties"]["end"]["format"] == "date"
    filters = {p["name"]: p for p in paths["/api/players/"]["get"]["parameters"]}
    for name in (
        "federation",
        "club",
        "country",
        "gender",
        "birth_year_min",
        "birth_year_max",
        "name",
        "membership_number",
        "page",
    ):
        assert name in filters, name
    assert filters["club"]["schema"]["type"] == "integer"


def test_membership_dates_are_corrected_and_mistakes_removed_by_the_club_admin(
    client, world
) -> None:
    membership = world.membership
    url = f"/api/memberships/{membership.pk}/"
    client.force_login(UserFactory())
    assert send(client, "patch", url, {"start": "2023-05-01"}).status_code == 403
    assert client.delete(url, HTTP_ACCEPT_LANGUAGE="en").status_code == 403
    client.force_login(world.club_admin)
    response = send(client, "patch", url, {"start": "2023-05-01"})
    assert response.status_code == 200, response.content
    membership.refresh_from_db()
    assert membership.start == datetime.date(2023, 5, 1)
    assert AuditEntry.objects.filter(action="membership.change", target_id=membership.pk).exists()
    inverted = send(client, "patch", url, {"end": "2022-01-01"})
    assert inverted.status_code == 400
    moved = send(client, "patch", url, {"club": ClubFactory(federation=world.federation).pk})
    assert moved.status_code == 400
    assert "club" in moved.json()
    assert client.delete(url, HTTP_ACCEPT_LANGUAGE="en").status_code == 204
    assert not Membership.objects.filter(pk=membership.pk).exists()


def test_site_admins_delete_federations_without_history(client, world) -> None:
    empty = FederationFactory()
    client.force_login(world.fed_admin)
    assert (
        client.delete(
            f"/api/federations/{world.federation.pk}/", HTTP_ACCEPT_LANGUAGE="en"
        ).status_code
        == 403
    )
    client.force_login(UserFactory(is_superuser=True, is_staff=True))
    assert (
        client.delete(f"/api/federations/{empty.pk}/", HTTP_ACCEPT_LANGUAGE="en").status_code == 204
    )
    refused = client.delete(f"/api/federations/{world.federation.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 400
    assert world.federation.__class__.objects.filter(pk=world.federation.pk).exists()
