from __future__ import annotations

import datetime

import pytest
from django.core.exceptions import ValidationError

from clubs import queries, services
from clubs.events import player_merged
from clubs.models import AuditEntry, ClaimStatus, Membership, Player, ProfileClaim, Role
from tests.factories import (
    ClubFactory,
    FederationFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
    grant,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def fed_admin():
    user = UserFactory(username="fa")
    user.federation = FederationFactory()
    grant(user, Role.FEDERATION_ADMIN, user.federation)
    return user


def test_player_change_is_audited_with_before_and_after(fed_admin) -> None:
    player = PlayerFactory(
        federation=fed_admin.federation, name_latin="Ivan Petrov", birth_year=1980
    )
    services.update_player(player, by=fed_admin, name_latin="Ivan Petrov Jr", birth_year=1981)
    entry = AuditEntry.objects.get(action="player.change")
    assert entry.actor == fed_admin
    assert entry.federation == fed_admin.federation
    assert entry.before == {"name_latin": "Ivan Petrov", "birth_year": 1980}
    assert entry.after == {"name_latin": "Ivan Petrov Jr", "birth_year": 1981}


def test_an_unchanged_save_writes_no_audit_entry(fed_admin) -> None:
    player = PlayerFactory(federation=fed_admin.federation)
    services.update_player(player, by=fed_admin, name_latin=player.name_latin)
    assert not AuditEntry.objects.filter(action="player.change").exists()


def test_invalid_values_are_refused_and_nothing_is_saved(fed_admin) -> None:
    player = PlayerFactory(federation=fed_admin.federation, birth_year=1980)
    with pytest.raises(ValidationError) as error:
        services.update_player(player, by=fed_admin, birth_year=1850)
    assert "birth_year" in error.value.message_dict
    player.refresh_from_db()
    assert player.birth_year == 1980
    assert not AuditEntry.objects.exists()


def test_membership_number_is_unique_within_a_federation(fed_admin) -> None:
    PlayerFactory(federation=fed_admin.federation, membership_number="A-1")
    with pytest.raises(ValidationError):
        services.create_player(
            by=fed_admin,
            federation=fed_admin.federation,
            name_native="X",
            name_latin="X",
            membership_number="A-1",
        )
    # Another federation may use the same number.
    other = FederationFactory()
    assert PlayerFactory(federation=other, membership_number="A-1").pk


def test_create_player_in_a_club_starts_a_membership(fed_admin) -> None:
    club = ClubFactory(federation=fed_admin.federation)
    player = services.create_player(
        by=fed_admin, club=club, name_native="Эльчин Мамедов", name_latin="Elchin Mamedov"
    )
    assert player.federation == club.federation
    assert list(
        Membership.objects.current().filter(player=player).values_list("club", flat=True)
    ) == [club.pk]
    assert set(AuditEntry.objects.values_list("action", flat=True)) == {
        "player.create",
        "membership.create",
    }


def test_membership_history_is_kept_and_overlaps_refused(fed_admin) -> None:
    club = ClubFactory(federation=fed_admin.federation)
    player = PlayerFactory(federation=fed_admin.federation)
    first = services.add_membership(player, club, by=fed_admin, start=datetime.date(2020, 1, 1))
    with pytest.raises(ValidationError, match="already a member"):
        services.add_membership(player, club, by=fed_admin, start=datetime.date(2021, 1, 1))
    services.end_membership(first, by=fed_admin, end=datetime.date(2022, 6, 30))
    with pytest.raises(ValidationError, match="already ended"):
        services.end_membership(first, by=fed_admin, end=datetime.date(2023, 1, 1))
    services.add_membership(player, club, by=fed_admin, start=datetime.date(2024, 1, 1))
    assert Membership.objects.filter(player=player).count() == 2
    assert (
        Membership.objects.current(on=datetime.date(2021, 5, 1)).filter(player=player).count() == 1
    )
    assert (
        Membership.objects.current(on=datetime.date(2023, 5, 1)).filter(player=player).count() == 0
    )
    actions = list(AuditEntry.objects.order_by("id").values_list("action", flat=True))
    assert actions == ["membership.create", "membership.end", "membership.create"]


def test_membership_cannot_end_before_it_starts(fed_admin) -> None:
    membership = MembershipFactory(
        club=ClubFactory(federation=fed_admin.federation), start=datetime.date(2024, 5, 1)
    )
    with pytest.raises(ValidationError, match="cannot end before"):
        services.end_membership(membership, by=fed_admin, end=datetime.date(2024, 4, 30))


def test_claim_approved_by_club_admin_links_the_profile() -> None:
    club = ClubFactory()
    player = PlayerFactory(federation=club.federation)
    MembershipFactory(player=player, club=club)
    claimant, rival = UserFactory(username="me"), UserFactory(username="rival")
    claim = services.claim_profile(player, by=claimant, message="That's me, card 17")
    rival_claim = services.claim_profile(player, by=rival)
    with pytest.raises(ValidationError, match="already waiting"):
        services.claim_profile(player, by=claimant)
    club_admin = UserFactory(username="ca")
    grant(club_admin, Role.CLUB_ADMIN, club)
    services.decide_claim(claim, by=club_admin, approve=True)
    player.refresh_from_db()
    assert player.user == claimant
    rival_claim.refresh_from_db()
    assert rival_claim.status == ClaimStatus.REJECTED
    with pytest.raises(ValidationError, match="decided already"):
        services.decide_claim(claim, by=club_admin, approve=False)
    # A linked user cannot claim a second profile.
    other = PlayerFactory(federation=club.federation)
    with pytest.raises(ValidationError, match="cannot be claimed"):
        services.claim_profile(other, by=claimant)
    assert AuditEntry.objects.filter(action="player.link_user", target_id=player.pk).exists()


def test_duplicate_finder_matches_across_scripts_and_word_order() -> None:
    federation = FederationFactory()
    a = PlayerFactory(
        federation=federation,
        name_native="Мамедов Эльчин",
        name_latin="Mamedov Elchin",
        birth_year=1975,
    )
    b = PlayerFactory(
        federation=federation, name_native="", name_latin="Elchin MAMEDOV", birth_year=None
    )
    c = PlayerFactory(
        federation=federation,
        name_native="Мамедов Эльчин",
        name_latin="Mamedov Elchin",
        birth_year=1990,
    )
    PlayerFactory(federation=federation, name_native="Алиев Рашад", name_latin="Aliev Rashad")
    ids = [{p.pk for p in group} for group in queries.duplicate_groups(federation)]
    # b (year unknown) may be either namesake; a and c (different years) never together.
    assert sorted(ids, key=sorted) == sorted([{a.pk, b.pk}, {b.pk, c.pk}], key=sorted)
    d = PlayerFactory(
        federation=federation,
        name_native="Гусейнова Айгюн",
        name_latin="Guseynova Aygun",
        birth_year=1988,
    )
    e = PlayerFactory(
        federation=federation, name_native="", name_latin="Aygun Guseynova", birth_year=1988
    )
    ids = [{p.pk for p in group} for group in queries.duplicate_groups(federation)]
    assert {d.pk, e.pk} in ids
    assert len(ids) == 3


def test_merge_moves_all_history_and_retires_the_duplicate(fed_admin) -> None:
    federation = fed_admin.federation
    club1, club2 = ClubFactory(federation=federation), ClubFactory(federation=federation)
    survivor = PlayerFactory(federation=federation, birth_year=None, membership_number="")
    duplicate = PlayerFactory(federation=federation, birth_year=1970, membership_number="RU-42")
    MembershipFactory(player=survivor, club=club1)
    MembershipFactory(player=duplicate, club=club2)
    claimant = UserFactory(username="claimant")
    ProfileClaim.objects.create(user=claimant, player=duplicate)
    heard: list[tuple[int, int]] = []
    listener = player_merged.subscribe(
        lambda survivor_id, duplicate_id: heard.append((survivor_id, duplicate_id))
    )
    try:
        services.merge_players(survivor, duplicate, by=fed_admin)
    finally:
        player_merged.unsubscribe(listener)
    survivor.refresh_from_db()
    duplicate.refresh_from_db()
    assert heard == [(survivor.pk, duplicate.pk)]
    assert set(survivor.memberships.values_list("club", flat=True)) == {club1.pk, club2.pk}
    assert survivor.claims.count() == 1
    assert survivor.birth_year == 1970 and survivor.membership_number == "RU-42"
    assert duplicate.merged_into == survivor and duplicate.membership_number == ""
    assert not duplicate.memberships.exists()
    entry = AuditEntry.objects.get(action="player.merge")
    assert entry.after["moved"] == {"clubs.Membership": 1, "clubs.ProfileClaim": 1}
    with pytest.raises(ValidationError, match="merged already"):
        services.merge_players(survivor, duplicate, by=fed_admin)
    assert Player.objects.filter(merged_into__isnull=True, federation=federation).count() == 1
