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
from tests.factories import PlayerFactory, UserFactory
from tests.world import World

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "plain", "player", "club_admin", "fed_admin", "other_fed_admin", "site_admin")


@dataclass
class Roles:
    users: dict[str, Any]
    targets: dict[str, Any]


@pytest.fixture
def roles(world: World) -> Roles:
    """Each role's user and each action's target: the world (``own`` is its player
    with an account), plus a player in no club and a pending claim."""
    own = world.linked_player
    unaffiliated = PlayerFactory(federation=world.federation)  # in the federation, in no club
    claim = ProfileClaim.objects.create(user=UserFactory(username="claimant"), player=world.member)
    return Roles(
        users={
            "anonymous": AnonymousUser(),
            "plain": world.plain,
            "player": own.user,
            "club_admin": world.club_admin,
            "fed_admin": world.fed_admin,
            "other_fed_admin": world.other_fed_admin,
            "site_admin": world.site_admin,
        },
        targets={
            "fed1": world.federation,
            "club_a": world.club,
            "club_b": world.second_club,
            "club_other": world.other_club,
            "member": world.member,
            "own": own,
            "foreign": world.foreign,
            "unaffiliated": unaffiliated,
            "claim": claim,
            "grant_club_admin_a": (Role.CLUB_ADMIN, world.club),
            "grant_club_admin_other": (Role.CLUB_ADMIN, world.other_club),
            "grant_fed_admin": (Role.FEDERATION_ADMIN, world.federation),
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
    ("user.reset_second_factor", "none"): {"site_admin"},
}


def test_matrix_covers_every_registered_action() -> None:
    covered = {action for action, _target in MATRIX}
    # Other apps' actions have their matrices beside their tests (tests/test_permission_coverage.py).
    own = {
        action
        for action in permissions.actions()
        if action.split(".")[0]
        in {"federation", "club", "player", "claim", "membership", "role", "discipline", "user"}
    }
    assert own == covered


@pytest.mark.parametrize(("action", "target"), list(MATRIX))
def test_permission_matrix(roles: Roles, action: str, target: str) -> None:
    wrong = []
    for role in ROLES:
        allowed = role in MATRIX[action, target]
        if permissions.can(roles.users[role], action, roles.targets[target]) is not allowed:
            wrong.append(f"{role} {'should' if allowed else 'should not'} be allowed")
    assert not wrong, f"{action} on {target}: {wrong}"


def test_unknown_action_is_a_programming_error(roles: Roles) -> None:
    with pytest.raises(ValueError, match="unknown permission action"):
        permissions.can(roles.users["site_admin"], "player.teleport", None)


def test_inactive_users_may_do_nothing(roles: Roles) -> None:
    admin = roles.users["fed_admin"]
    admin.is_active = False
    assert not permissions.can(admin, "federation.change", roles.targets["fed1"])


# The services enforce the same policy: each write refused for a denied role
# and carried out for an allowed one.


def test_services_refuse_denied_roles_and_change_nothing(roles: Roles) -> None:
    club_admin, fed2_admin = roles.users["club_admin"], roles.users["other_fed_admin"]
    member, club_a, fed1 = roles.targets["member"], roles.targets["club_a"], roles.targets["fed1"]
    attempts = [
        lambda: services.update_player(member, by=fed2_admin, name_latin="Hacked"),
        lambda: services.create_club(fed1, by=club_admin, name="Rogue", city="X"),
        lambda: services.update_club(club_a, by=fed2_admin, city="Elsewhere"),
        lambda: services.add_membership(
            member, club_a, by=fed2_admin, start=datetime.date(2025, 1, 1)
        ),
        lambda: services.grant_role(fed2_admin, Role.CLUB_ADMIN, club_a, by=club_admin),
        lambda: services.grant_role(
            club_admin, Role.FEDERATION_ADMIN, fed1, by=roles.users["fed_admin"]
        ),
        lambda: services.merge_players(member, roles.targets["unaffiliated"], by=club_admin),
        lambda: services.decide_claim(roles.targets["claim"], by=fed2_admin, approve=True),
        lambda: services.create_federation(by=roles.users["fed_admin"], name="Splinter"),
    ]
    for attempt in attempts:
        with pytest.raises(PermissionDenied):
            attempt()
    member.refresh_from_db()
    club_a.refresh_from_db()
    assert member.name_latin != "Hacked" and club_a.city == "Kazan"
    assert not club_a.memberships.filter(start=datetime.date(2025, 1, 1)).exists()


def test_services_carry_out_allowed_roles(roles: Roles) -> None:
    club_admin, fed_admin = roles.users["club_admin"], roles.users["fed_admin"]
    member, club_a, fed1 = roles.targets["member"], roles.targets["club_a"], roles.targets["fed1"]
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
