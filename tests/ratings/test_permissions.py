"""Every role × every ratings action, allowed and denied."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from clubs import permissions
from clubs.models import FederationDiscipline, Role
from ratings.models import RatingPool
from tests.factories import ClubFactory, DisciplineFactory, FederationFactory, UserFactory, grant

pytestmark = pytest.mark.django_db

MATRIX: dict[tuple[str, str], set[str]] = {
    ("rating_list.publish", "pool"): {"fed_admin", "site_admin"},
    ("rating_pool.recompute", "pool"): {"fed_admin", "site_admin"},
    ("rating_pool.rate_archive", "pool"): {"fed_admin", "site_admin"},
}
COVERED = {action for action, _target in MATRIX}


def test_ratings_permission_matrix() -> None:
    federation = FederationFactory()
    pool = RatingPool.objects.create(
        rated_discipline=FederationDiscipline.objects.create(
            federation=federation, discipline=DisciplineFactory()
        )
    )
    club = ClubFactory(federation=federation)
    users = {
        "anonymous": AnonymousUser(),
        "plain": UserFactory(),
        "club_admin": UserFactory(),
        "fed_admin": UserFactory(),
        "other_fed_admin": UserFactory(),
        "site_admin": UserFactory(is_superuser=True),
    }
    grant(users["club_admin"], Role.CLUB_ADMIN, club)
    grant(users["fed_admin"], Role.FEDERATION_ADMIN, federation)
    grant(users["other_fed_admin"], Role.FEDERATION_ADMIN, FederationFactory())
    wrong = [
        f"{role} {'should' if role in allowed else 'should not'}: {action}"
        for (action, _target), allowed in MATRIX.items()
        for role, user in users.items()
        if permissions.can(user, action, pool) is not (role in allowed)
    ]
    assert not wrong, wrong
