"""The permission matrix: every role × every write action, allowed and denied."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied

from clubs import permissions, services
from clubs.models import ProfileClaim, Role
from tests.factories import (
    ClubFactory,
    FederationFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
    grant,
)

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "plain", "player", "club_admin", "fed_admin", "other_fed_admin", "site_admin")


@dataclass
class World:
    users: dict[str, Any]
    targets: dict[str, Any]


@pytest.fixture
def world() -> World:
    fed1, fed2 = FederationFactory(), FederationFactory()
    club_a = ClubFactory(federation=fed1)
    club_b = ClubFactory(federation=fed1)
    club_other = ClubFactory(federation=fed2)
    member = PlayerFactory(federation=fed1)
    MembershipFactory(player=member, club=club_a)
    foreign = PlayerFactory(federation=fed2)
    MembershipFactory(player=foreign, club=club_other)
    unaffiliated = PlayerFactory(federation=fed1)  # in the federation, in no club

    player_user = UserFactory(username="player")
    own = PlayerFactory(federation=fed1, user=player_user)
    MembershipFactory(player=own, club=club_a)

    club_admin = UserFactory(username="club_admin")
    grant(club_admin, Role.CLUB_ADMIN, club_a)
    fed_admin = UserFactory(username="fed_admin")
    grant(fed_admin, Role.FEDERATION_ADMIN, fed1)
    other_fed_admin = UserFactory(username="other_fed_admin")
    grant(other_fed_admin, Role.FEDERATION_ADMIN, fed2)
    site_admin = UserFactory(username="site_admin", is_superuser=True, is_staff=True)

    claimant = UserFactory(username="claimant")
    claim = ProfileClaim.objects.create(user=claimant, player=member)
    return World(
        users={
            "anonymous": AnonymousUser(),
            "plain": UserFactory(username="plain"),
            "player": player_user,
            "club_admin": club_admin,
            "fed_admin": fed_admin,
            "other_fed_admin": other_fed_admin,
            "site_admin": site_admin,
        },
        targets={
            "fed1": fed1,
            "club_a": club_a,
            "club_b": club_b,
            "club_other": club_other,
            "member": member,
            "own": own,
            "foreign": foreign,
            "unaffiliated": unaffiliated,
            "claim": claim,
            "grant_club_admin_a": (Role.CLUB_ADMIN, club_a),
            "grant_club_admin_other": (Role.CLUB_ADMIN, club_other),
            "grant_fed_admin": (Role.FEDERATION_ADMIN, fed1),
            "none": None,
        },
    )


SIGNED_IN_WITHOUT_PROFILE = {"plain", "club_admin", "fed_admin", "other_fed_admin", "site_admin"}

# (action, target) -> the roles allowed; every other role is denied.
MATRIX: dict[tuple[str, str], set[str]] = {
    ("federation.create", "none"): {"site_admin"},
    ("federation.change", "fed1"): {"fed_admin", "site_admin"},
    ("federation.delete", "fed1"): {"site_admin"},
    ("federation.view_audit", "fed1"): {"fed_admin", "site_admin"},
    ("federation.import", "fed1"): {"fed_admin", "site_admin"},
    ("club.create", "fed1"): {"fed_admin", "site_admin"},
    ("club.change", "club_a"): {"club_admin", "fed_admin", "site_admin"},
    ("club.change", "club_b"): {"fed_admin", "site_admin"},
    ("club.change", "club_other"): {"other_fed_admin", "site_admin"},
    ("club.delete", "club_a"): {"fed_admin", "site_admin"},
    ("player.create", "fed1"): {"fed_admin", "site_admin"},
    ("player.create", "club_a"): {"club_admin", "fed_admin", "site_admin"},
    ("player.create", "club_other"): {"other_fed_admin", "site_admin"},
    ("player.change", "member"): {"club_admin", "fed_admin", "site_admin"},
    ("player.change", "own"): {"player", "club_admin", "fed_admin", "site_admin"},
    ("player.change", "foreign"): {"other_fed_admin", "site_admin"},
    ("player.change", "unaffiliated"): {"fed_admin", "site_admin"},
    ("player.view", "member"): {"club_admin", "fed_admin", "site_admin"},
    ("player.view", "foreign"): {"other_fed_admin", "site_admin"},
    ("player.view", "own"): {"club_admin", "fed_admin", "site_admin"},
    ("player.delete", "member"): {"fed_admin", "site_admin"},
    ("player.merge", "member"): {"fed_admin", "site_admin"},
    ("player.claim", "member"): SIGNED_IN_WITHOUT_PROFILE,
    ("player.claim", "own"): set(),  # linked already
    ("claim.decide", "claim"): {"club_admin", "fed_admin", "site_admin"},
    ("membership.change", "club_a"): {"club_admin", "fed_admin", "site_admin"},
    ("membership.change", "club_other"): {"other_fed_admin", "site_admin"},
    ("role.grant", "grant_club_admin_a"): {"fed_admin", "site_admin"},
    ("role.grant", "grant_club_admin_other"): {"other_fed_admin", "site_admin"},
    ("role.grant", "grant_fed_admin"): {"site_admin"},
    ("discipline.change", "none"): {"site_admin"},
}


def test_matrix_covers_every_registered_action() -> None:
    covered = {action for action, _target in MATRIX}
    # Other apps' actions have their matrices beside their tests (tests/test_permission_coverage.py).
    own = {
        action
        for action in permissions.actions()
        if action.split(".")[0]
        in {"federation", "club", "player", "claim", "membership", "role", "discipline"}
    }
    assert own == covered


@pytest.mark.parametrize(("action", "target"), list(MATRIX))
def test_permission_matrix(world: World, action: str, target: str) -> None:
    wrong = []
    for role in ROLES:
        allowed = role in MATRIX[action, target]
        if permissions.can(world.users[role], action, world.targets[target]) is not allowed:
            wrong.append(f"{role} {'should' if allowed else 'should not'} be allowed")
    assert not wrong, f"{action} on {target}: {wrong}"


def test_unknown_action_is_a_programming_error(world: World) -> None:
    with pytest.raises(ValueError, match="unknown permission action"):
        permissions.can(world.users["site_admin"], "player.teleport", None)


def test_inactive_users_may_do_nothing(world: World) -> None:
    admin = world.users["fed_admin"]
    admin.is_active = False
    assert not permissions.can(admin, "federation.change", world.targets["fed1"])


# The services enforce the same policy: each write refused for a denied role
# and carried out for an allowed one.


def test_services_refuse_denied_roles_and_change_nothing(world: World) -> None:
    club_admin, fed2_admin = world.users["club_admin"], world.users["other_fed_admin"]
    member, club_a, fed1 = world.targets["member"], world.targets["club_a"], world.targets["fed1"]
    attempts = [
        lambda: services.update_player(member, by=fed2_admin, name_latin="Hacked"),
        lambda: services.create_club(fed1, by=club_admin, name="Rogue", city="X"),
        lambda: services.update_club(club_a, by=fed2_admin, city="Elsewhere"),
        lambda: services.add_membership(
            member, club_a, by=fed2_admin, start=datetime.date(2025, 1, 1)
        ),
        lambda: services.grant_role(fed2_admin, Role.CLUB_ADMIN, club_a, by=club_admin),
        lambda: services.grant_role(
            club_admin, Role.FEDERATION_ADMIN, fed1, by=world.users["fed_admin"]
        ),
        lambda: services.merge_players(member, world.targets["unaffiliated"], by=club_admin),
        lambda: services.decide_claim(world.targets["claim"], by=fed2_admin, approve=True),
        lambda: services.create_federation(by=world.users["fed_admin"], name="Splinter"),
    ]
    for attempt in attempts:
        with pytest.raises(PermissionDenied):
            attempt()
    member.refresh_from_db()
    club_a.refresh_from_db()
    assert member.name_latin != "Hacked" and club_a.city == "Moscow"
    assert not club_a.memberships.filter(start=datetime.date(2025, 1, 1)).exists()


def test_services_carry_out_allowed_roles(world: World) -> None:
    club_admin, fed_admin = world.users["club_admin"], world.users["fed_admin"]
    member, club_a, fed1 = world.targets["member"], world.targets["club_a"], world.targets["fed1"]
    assert (
        services.update_player(member, by=club_admin, name_latin="Renamed").name_latin == "Renamed"
    )
    assert services.create_club(fed1, by=fed_admin, name="New Club", city="Kazan").pk
    newcomer = UserFactory(username="newcomer")
    assignment = services.grant_role(newcomer, Role.CLUB_ADMIN, club_a, by=fed_admin)
    assert permissions.can(newcomer, "club.change", club_a)
    newcomer.refresh_from_db()
    assert newcomer.is_staff  # may enter the web admin now
    services.revoke_role(assignment, by=fed_admin)
    newcomer = type(newcomer).objects.get(pk=newcomer.pk)
    assert not permissions.can(newcomer, "club.change", club_a)
