"""What the federation keeps about a player (membership number, federation,
merges, the linked account) is read-only to the player, in the API and on the
own-profile form; the federation's and the club's admins still change it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse

from clubs import services
from clubs.forms import OwnProfileForm
from clubs.models import AuditEntry, Player, Role
from clubs.services import FEDERATION_KEPT_FIELDS
from tests.factories import (
    ClubFactory,
    FederationFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
    grant,
)

pytestmark = pytest.mark.django_db


def patch(client, player: Player, data: dict[str, Any]):  # type: ignore[no-untyped-def]
    return client.patch(
        f"/api/players/{player.pk}/",
        json.dumps(data),
        content_type="application/json",
        HTTP_ACCEPT="application/json",
        HTTP_ACCEPT_LANGUAGE="en",
    )


@pytest.fixture
def own():  # type: ignore[no-untyped-def]
    """A player linked to their account, a member of a club of their federation."""
    federation = FederationFactory()
    club = ClubFactory(federation=federation)
    user = UserFactory()
    player = PlayerFactory(federation=federation, user=user, membership_number="FED-0001")
    MembershipFactory(player=player, club=club)
    return {"federation": federation, "club": club, "user": user, "player": player}


def kept(player: Player) -> tuple[Any, ...]:
    player.refresh_from_db()
    return (
        player.federation_id,
        player.membership_number,
        player.merged_into_id,
        player.user_id,
    )


def attempts(own: dict[str, Any]) -> dict[str, Any]:
    """A changed value for every federation-kept field."""
    other_federation = FederationFactory()
    grant(own["user"], Role.FEDERATION_ADMIN, other_federation)  # so the id is visible to them
    return {
        "membership_number": "FED-9999",
        "federation": other_federation.pk,
    }


def test_merges_and_the_linked_account_are_read_only_in_the_api(client, own) -> None:
    """They have services of their own (merge, claim); a PATCH carrying them changes neither."""
    player = own["player"]
    before = kept(player)
    client.force_login(own["user"])
    response = patch(
        client,
        player,
        {"merged_into": PlayerFactory(federation=own["federation"]).pk, "user": UserFactory().pk},
    )
    assert response.status_code == 200, response.content
    assert kept(player) == before


def test_the_service_refuses_the_player_whoever_calls_it(own) -> None:
    """The rule lives in clubs.services: a form, a command or the admin calling
    update_player for the player is refused the same way as the API."""
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as refused:
        services.update_player(own["player"], by=own["user"], membership_number="FED-0002")
    assert list(refused.value.message_dict) == ["membership_number"]
    assert kept(own["player"])[1] == "FED-0001"


def test_the_player_cannot_change_any_field_the_federation_keeps(client, own) -> None:
    player = own["player"]
    before = kept(player)
    tries = attempts(own)
    assert set(tries) == set(FEDERATION_KEPT_FIELDS)
    client.force_login(own["user"])
    for field, value in tries.items():
        response = patch(client, player, {field: value, "name_latin": "Renamed"})
        assert response.status_code == 400, (field, response.content)
        errors = response.json()
        assert list(errors) == [field]
        label = str(Player._meta.get_field(field).verbose_name)
        assert f"“{label}” is kept by the federation" in errors[field][0]
    assert kept(player) == before
    player.refresh_from_db()
    assert player.name_latin != "Renamed"  # a refused request saves nothing
    assert not AuditEntry.objects.filter(action="player.change").exists()


def test_the_player_still_edits_their_own_names_and_may_echo_the_kept_values(client, own) -> None:
    player = own["player"]
    client.force_login(own["user"])
    # A client that sends back what it read (as a PUT does) changes nothing it may not.
    response = patch(
        client,
        player,
        {
            "name_latin": "Renamed",
            "membership_number": "FED-0001",
            "federation": own["federation"].pk,
            "merged_into": None,
        },
    )
    assert response.status_code == 200, response.content
    player.refresh_from_db()
    assert (player.name_latin, player.membership_number) == ("Renamed", "FED-0001")


@pytest.mark.parametrize("role", ["federation_admin", "club_admin", "superuser"])
def test_admins_change_the_membership_number(client, own, role: str) -> None:
    admin = UserFactory(is_superuser=role == "superuser")
    if role == "federation_admin":
        grant(admin, Role.FEDERATION_ADMIN, own["federation"])
    elif role == "club_admin":
        grant(admin, Role.CLUB_ADMIN, own["club"])
    client.force_login(admin)
    response = patch(client, own["player"], {"membership_number": "FED-0042"})
    assert response.status_code == 200, response.content
    assert response.json()["membership_number"] == "FED-0042"
    assert kept(own["player"])[1] == "FED-0042"


def test_the_federation_admin_moves_a_player_to_another_federation(client, own) -> None:
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, own["federation"])
    target = FederationFactory()
    grant(admin, Role.FEDERATION_ADMIN, target)
    client.force_login(admin)
    response = patch(client, own["player"], {"federation": target.pk})
    assert response.status_code == 200, response.content
    assert kept(own["player"])[0] == target.pk


def test_the_own_profile_form_offers_none_of_them(client, own) -> None:
    assert not set(OwnProfileForm.base_fields) & set(FEDERATION_KEPT_FIELDS)
    player = own["player"]
    before = kept(player)
    client.force_login(own["user"])
    page = client.get(reverse("clubs:own_profile"), HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    assert page.status_code == 200
    for field in FEDERATION_KEPT_FIELDS:
        assert f'name="{field}"' not in html
    # Posting them anyway (a hand-made request) changes only what the form offers.
    response = client.post(
        reverse("clubs:own_profile"),
        {
            "name_native": player.name_native,
            "name_latin": "Renamed",
            "birth_year": "1990",
            "country": "RU",
            **attempts(own),
        },
    )
    assert response.status_code == 302
    assert kept(player) == before
    player.refresh_from_db()
    assert player.name_latin == "Renamed"
