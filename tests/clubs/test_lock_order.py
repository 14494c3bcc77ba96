"""Deciding a profile claim and merging its player at the same moment: no deadlock.

The claim's decision locks the player, then the claim; the merge locks both
players (in primary-key order), then moves the duplicate's claims, matches
and entries, kind by kind in the order of ``base.locking``.  Before, the
decision locked the claim first and the player second, the merge the other
way round, so the two could wait for each other until PostgreSQL killed one.
Each thread has its own connection; a barrier starts them together; the race
is run many times.  PostgreSQL only: SQLite serialises writers with its
database lock, which tests nothing about row locks.
"""

from __future__ import annotations

from functools import partial

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from base import locking
from clubs import services
from clubs.models import ClaimStatus, Membership, Player, ProfileClaim, Role
from tests.factories import (
    FederationFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
    grant,
)
from tests.locks import row_held
from tests.tournaments.test_lock_order import run_together

RACES = 50

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL (set DATABASE_URL): SQLite serialises writers itself",
    ),
]


def federation_admin():  # type: ignore[no-untyped-def]
    admin = UserFactory()
    admin.federation = FederationFactory()
    grant(admin, Role.FEDERATION_ADMIN, admin.federation)
    return admin


def test_deciding_a_claim_and_merging_its_player_never_deadlock() -> None:
    orders: set[str] = set()
    for race in range(RACES):
        admin = federation_admin()
        survivor = PlayerFactory(federation=admin.federation)
        duplicate = PlayerFactory(federation=admin.federation)
        claimant = UserFactory(username=f"claimant{race}")
        claim = services.claim_profile(duplicate, by=claimant)

        decision, merge = run_together(
            partial(services.decide_claim, claim, by=admin, approve=True),
            partial(services.merge_players, survivor, duplicate, by=admin),
        )

        # The merge never fails; the decision either goes through or is refused
        # cleanly, never on a lock (no deadlock, no lock timeout, no 500).
        assert not isinstance(merge, BaseException), merge
        duplicate.refresh_from_db()
        claim.refresh_from_db()
        survivor.refresh_from_db()
        assert duplicate.merged_into_id == survivor.pk and duplicate.user_id is None
        assert claim.player_id == survivor.pk  # the claim followed the player
        if isinstance(decision, BaseException):
            # The merge moved the claim while the decision waited for the duplicate:
            # "busy, try again", nothing half-done, and trying again works.
            assert isinstance(decision, locking.Busy), decision
            assert decision.__cause__ is None, "refused on a lock: a deadlock or a timeout"
            assert claim.status == ClaimStatus.PENDING and survivor.user_id is None
            services.decide_claim(claim, by=admin, approve=True)
            claim.refresh_from_db()
            survivor.refresh_from_db()
            orders.add("merge first, decision refused")
        else:
            orders.add("decision first" if decision.player_id == duplicate.pk else "merge first")
        # Both effects kept: one record, linked to the claimant's account.
        assert claim.status == ClaimStatus.APPROVED
        assert survivor.user_id == claimant.pk
        assert Player.objects.filter(user=claimant).count() == 1
    assert orders  # which orders were seen depends on the scheduler


def test_two_merges_of_the_same_pair_in_opposite_directions_never_deadlock() -> None:
    for _race in range(RACES):
        admin = federation_admin()
        one = PlayerFactory(federation=admin.federation)
        two = PlayerFactory(federation=admin.federation)
        ProfileClaim.objects.create(user=UserFactory(), player=one)
        ProfileClaim.objects.create(user=UserFactory(), player=two)

        outcomes = run_together(
            partial(services.merge_players, one, two, by=admin),
            partial(services.merge_players, two, one, by=admin),
        )

        # Both lock the two players in one order: one merges, the other is refused
        # with the reason, never on a lock.
        refused = [o for o in outcomes if isinstance(o, BaseException)]
        assert len(refused) == 1, outcomes
        assert isinstance(refused[0], ValidationError), refused[0]
        assert not isinstance(refused[0], locking.Busy), refused[0]
        assert "merged already" in " ".join(refused[0].messages)
        merged = Player.objects.filter(pk__in=(one.pk, two.pk), merged_into__isnull=False)
        assert merged.count() == 1
        kept = Player.objects.get(pk__in=(one.pk, two.pk), merged_into__isnull=True)
        assert ProfileClaim.objects.filter(player=kept).count() == 2


def test_a_row_held_too_long_makes_the_merge_busy_not_a_500(settings) -> None:  # type: ignore[no-untyped-def]
    settings.DATABASE_LOCK_TIMEOUT = 0.2
    admin = federation_admin()
    survivor = PlayerFactory(federation=admin.federation)
    duplicate = PlayerFactory(federation=admin.federation)
    membership = MembershipFactory(player=duplicate)
    # The players are free; moving the duplicate's membership waits, then gives up.
    with row_held(Membership, membership.pk), pytest.raises(locking.Busy):
        services.merge_players(survivor, duplicate, by=admin)
    # Nothing was half-saved, and the merge goes through now.
    duplicate.refresh_from_db()
    assert duplicate.merged_into_id is None
    assert Membership.objects.get(pk=membership.pk).player_id == duplicate.pk
    services.merge_players(survivor, duplicate, by=admin)
    assert Membership.objects.get(pk=membership.pk).player_id == survivor.pk
