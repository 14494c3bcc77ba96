"""Every role × every tournament action, allowed and denied (and the tournament's
own extension of the match actions: its arbiters and managers)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser

from clubs import permissions
from tests.world import World
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
def roles(world: World) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each role's user and each action's target, on the world's running Swiss in its
    first round (its entrant is the player of its first entry)."""
    t = world.running_swiss
    entry = t.entries.select_related("player__user").order_by("pk").first()
    assert entry is not None
    users = {
        "anonymous": AnonymousUser(),
        "plain": world.plain,
        "entrant": entry.player.user,
        "organizer": world.organizer,
        "arbiter": world.arbiter,
        "club_admin": world.club_admin,
        "fed_admin": world.fed_admin,
        "other_fed_admin": world.other_fed_admin,
        "site_admin": world.site_admin,
    }
    targets = {
        "federation": world.federation,
        "club": world.club,
        "tournament": t,
        "self_entry": (t, entry.player),
        "someone_else": (t, world.member),
        "entry": entry,
    }
    # Entering closed at the start; then a match of the first round.
    rnd = services.pair_next_round(t, by=world.fed_admin)
    services.start_round(rnd, by=world.fed_admin)
    targets["match"] = rnd.pairings.exclude(match=None).first().match
    return users, targets


def test_tournament_permission_matrix(roles) -> None:  # type: ignore[no-untyped-def]
    users, targets = roles
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


def test_nobody_enters_themself_once_the_tournament_runs(roles) -> None:  # type: ignore[no-untyped-def]
    users, targets = roles
    assert not permissions.can(users["entrant"], "tournament.enter", targets["self_entry"])
    assert permissions.can(users["organizer"], "tournament.enter", targets["self_entry"])
