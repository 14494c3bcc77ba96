"""Every role × every tournament action, allowed and denied (and the tournament's
own extension of the match actions: its arbiters and managers)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from clubs import permissions
from clubs.models import Role
from tests.factories import ClubFactory, FederationFactory, PlayerFactory, UserFactory, grant
from tests.tournaments.builders import federation_with_admin
from tournaments import services
from tournaments.models import TournamentState

pytestmark = pytest.mark.django_db

ROLES = (
    "anonymous",
    "plain",
    "entrant",
    "organizer",
    "arbiter",
    "club_admin",
    "fed_admin",
    "other_fed_admin",
    "site_admin",
)
MANAGERS = {"organizer", "club_admin", "fed_admin", "site_admin"}
MATRIX: dict[tuple[str, str], set[str]] = {
    ("tournament.create", "federation"): {"fed_admin", "site_admin"},
    ("tournament.create", "club"): {"club_admin", "fed_admin", "site_admin"},
    ("tournament.manage", "tournament"): MANAGERS,
    ("tournament.staff", "tournament"): MANAGERS,
    ("tournament.enter", "self_entry"): MANAGERS | {"entrant"},  # open registration
    ("tournament.enter", "someone_else"): MANAGERS,
    ("entry.change", "entry"): MANAGERS | {"entrant"},
    ("match.arbitrate", "match"): MANAGERS | {"arbiter"},
    ("match.override", "match"): MANAGERS,
}
COVERED = {action for action, _target in MATRIX}


@pytest.fixture
def world():  # type: ignore[no-untyped-def]
    federation, fed_admin, discipline = federation_with_admin()
    club = ClubFactory(federation=federation)
    t = services.create_tournament(
        by=fed_admin,
        federation=federation,
        club=club,
        name="Cup",
        discipline=discipline,
        format="swiss",
        rounds_planned=1,
        match_length=3,
    )
    services.set_state(t, TournamentState.REGISTRATION, by=fed_admin)
    entrant = UserFactory()
    own = PlayerFactory(federation=federation, user=entrant)
    entry = services.add_entry(t, own, by=fed_admin)
    for _ in range(3):
        services.add_entry(t, PlayerFactory(federation=federation), by=fed_admin)
    users = {
        "anonymous": AnonymousUser(),
        "plain": UserFactory(),
        "entrant": entrant,
        "organizer": UserFactory(),
        "arbiter": UserFactory(),
        "club_admin": UserFactory(),
        "fed_admin": fed_admin,
        "other_fed_admin": UserFactory(),
        "site_admin": UserFactory(is_superuser=True),
    }
    grant(users["organizer"], Role.ORGANIZER, t)
    grant(users["arbiter"], Role.ARBITER, t)
    grant(users["club_admin"], Role.CLUB_ADMIN, club)
    grant(users["other_fed_admin"], Role.FEDERATION_ADMIN, FederationFactory())
    targets = {
        "federation": federation,
        "club": club,
        "tournament": t,
        "self_entry": (t, own),
        "someone_else": (t, PlayerFactory(federation=federation)),
        "entry": entry,
    }
    # Entering closes at the start; then a match of the first round.
    services.start_tournament(t, by=fed_admin)
    rnd = services.pair_next_round(t, by=fed_admin)
    services.start_round(rnd, by=fed_admin)
    targets["match"] = rnd.pairings.exclude(match=None).first().match
    return users, targets


def test_tournament_permission_matrix(world) -> None:  # type: ignore[no-untyped-def]
    users, targets = world
    wrong = []
    for (action, target), allowed in MATRIX.items():
        obj = targets[target]
        if action == "tournament.enter":
            obj[0].state = TournamentState.REGISTRATION  # entering is judged while it is open
        for role in ROLES:
            if permissions.can(users[role], action, obj) is not (role in allowed):
                wrong.append(
                    f"{role} {'should' if role in allowed else 'should not'}: {action} {target}"
                )
        if action == "tournament.enter":
            obj[0].state = TournamentState.RUNNING
    assert not wrong, wrong


def test_nobody_enters_themself_once_the_tournament_runs(world) -> None:  # type: ignore[no-untyped-def]
    users, targets = world
    assert not permissions.can(users["entrant"], "tournament.enter", targets["self_entry"])
    assert permissions.can(users["organizer"], "tournament.enter", targets["self_entry"])
