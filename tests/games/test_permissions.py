"""Every role × every match write action, allowed and denied."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from clubs import permissions
from clubs.models import Role
from tests.factories import (
    ClubFactory,
    FederationFactory,
    MatchFactory,
    MembershipFactory,
    UserFactory,
    grant,
)

pytestmark = pytest.mark.django_db

ACTIONS = [
    "match.create",
    "match.record",
    "match.report",
    "match.arbitrate",
    "match.override",
    "match.answer_for_absent",
    "match.switch_scorer_mode",
    "match.enter_clock",
]
EVERY_ROLE = {"player1", "player2", "club_admin", "fed_admin", "site_admin"}
MATRIX = {
    "match.create": {"player1", "player2", "club_admin", "fed_admin", "site_admin"},
    "match.record": {"player1", "player2", "fed_admin", "site_admin"},
    "match.report": {"player1", "player2", "fed_admin", "site_admin"},
    "match.arbitrate": {"fed_admin", "site_admin"},
    "match.override": {"fed_admin", "site_admin"},
    # Both players have accounts: nobody answers for them (tests/games/test_unanswerable_opponent.py
    # covers a player without one).
    "match.answer_for_absent": {"site_admin"},
    "match.switch_scorer_mode": {"player1", "player2", "fed_admin", "site_admin"},
    # Readings of a physical clock: arbiters only, never the players (the scorer an
    # arbiter appoints: tests/games/test_server_clock.py).
    "match.enter_clock": {"fed_admin", "site_admin"},
}


def test_match_actions_are_all_in_the_matrix() -> None:
    # Side actions take (match, side): their matrix is tests/games/test_side_permissions.py.
    from tests.games.test_side_permissions import COVERED as SIDE_ACTIONS

    match_actions = {a for a in permissions.actions() if a.startswith("match.")}
    assert match_actions - SIDE_ACTIONS == set(ACTIONS) == set(MATRIX)


def test_match_permission_matrix() -> None:
    match = MatchFactory()
    club = ClubFactory(federation=match.federation)
    for player in (match.player1, match.player2):
        MembershipFactory(player=player, club=club)
    users = {
        "anonymous": AnonymousUser(),
        "plain": UserFactory(),
        "player1": match.player1.user,
        "player2": match.player2.user,
        "club_admin": UserFactory(),
        "fed_admin": UserFactory(),
        "other_fed_admin": UserFactory(),
        "site_admin": UserFactory(is_superuser=True),
    }
    grant(users["club_admin"], Role.CLUB_ADMIN, club)
    grant(users["fed_admin"], Role.FEDERATION_ADMIN, match.federation)
    grant(users["other_fed_admin"], Role.FEDERATION_ADMIN, FederationFactory())
    wrong = [
        f"{role} {'should' if role in MATRIX[action] else 'should not'}: {action}"
        for action in ACTIONS
        for role, user in users.items()
        if permissions.can(user, action, match) is not (role in MATRIX[action])
    ]
    assert not wrong, wrong


def test_a_higher_app_can_extend_an_action() -> None:
    match = MatchFactory()
    arbiter = UserFactory()
    assert not permissions.can(arbiter, "match.arbitrate", match)
    rule = permissions.extend("match.arbitrate", lambda user, m: user.pk == arbiter.pk)
    try:
        assert permissions.can(arbiter, "match.arbitrate", match)
        assert permissions.can(arbiter, "match.record", match)  # arbiters may record
    finally:
        permissions._EXTENSIONS["match.arbitrate"].remove(rule)
