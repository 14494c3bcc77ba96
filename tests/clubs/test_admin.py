"""The web admin for site, federation and club staff: who sees what, and saving
goes through the services (audit log)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from clubs import services
from clubs.models import (
    AuditEntry,
    ClaimStatus,
    Discipline,
    Membership,
    Player,
    ProfileClaim,
    Role,
    RoleAssignment,
)
from tests.factories import DisciplineFactory, MembershipFactory, PlayerFactory, UserFactory
from tests.world import World

pytestmark = pytest.mark.django_db


def url(name: str, *args: Any) -> str:
    return reverse(f"admin:clubs_{name}", args=args)


def listed(client: Any, user: Any, model: str, **params: str) -> set[int]:
    client.force_login(user)
    response = client.get(url(f"{model}_changelist"), params)
    assert response.status_code == 200
    return {obj.pk for obj in response.context["cl"].result_list}


def form_data(response: Any) -> dict[str, Any]:
    """The POST data of an admin change form as it was rendered (inlines included)."""

    def put(data: dict[str, Any], form: Any, name: str) -> None:
        value = form[name].value()
        key = form.add_prefix(name)
        if value is None or value is False:
            return
        if value is True:
            data[key] = "on"
        elif isinstance(value, datetime.date):
            data[key] = value.isoformat()
        elif isinstance(value, list | tuple):
            data[key] = [str(v) for v in value]
        else:
            data[key] = str(value)

    data: dict[str, Any] = {}
    form = response.context["adminform"].form
    for name in form.fields:
        put(data, form, name)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        for name in formset.management_form.fields:
            put(data, formset.management_form, name)
        for row in formset.forms:
            for name in row.fields:
                put(data, row, name)
    return data


# --- Who sees what


def test_federation_admin_lists_their_federation_only(client: Any, world: World) -> None:
    players = listed(client, world.fed_admin, "player")
    assert players == {world.member.pk, world.past_member.pk, world.second_club_member.pk}
    assert listed(client, world.fed_admin, "club") == {world.club.pk, world.second_club.pk}
    assert listed(client, world.fed_admin, "federation") == {world.federation.pk}


def test_club_admin_lists_their_club_and_its_current_and_past_members(
    client: Any, world: World
) -> None:
    assert listed(client, world.club_admin, "player") == {world.member.pk, world.past_member.pk}
    assert listed(client, world.club_admin, "club") == {world.club.pk}
    memberships = listed(client, world.club_admin, "membership")
    assert memberships == set(
        Membership.objects.filter(club=world.club).values_list("pk", flat=True)
    )
    assert client.get(url("federation_changelist")).status_code == 403
    assert client.get(url("auditentry_changelist")).status_code == 403


def test_site_admin_lists_everything(client: Any, world: World) -> None:
    assert listed(client, world.site_admin, "player") == set(
        Player.objects.values_list("pk", flat=True)
    )


def test_anonymous_visitors_get_the_login_page(client: Any, world: World) -> None:
    assert client.get(reverse("admin:login")).status_code == 200
    response = client.get(url("player_changelist"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))


def test_staff_without_a_role_is_kept_out(client: Any, world: World) -> None:
    client.force_login(UserFactory(is_staff=True))
    assert client.get(url("player_changelist")).status_code == 403
    index = client.get(reverse("admin:index"))
    assert index.status_code == 200
    assert not index.context["app_list"]


def test_admin_index_shows_the_policy_models(client: Any, world: World) -> None:
    client.force_login(world.club_admin)
    index = client.get(reverse("admin:index"))
    models = {m["object_name"] for app in index.context["app_list"] for m in app["models"]}
    assert {"Club", "Player", "Membership", "ProfileClaim"} <= models
    assert not {"Federation", "AuditEntry", "RoleAssignment"} & models


def test_another_federations_player_page_is_refused(client: Any, world: World) -> None:
    client.force_login(world.fed_admin)
    response = client.get(url("player_change", world.foreign.pk))
    assert response.status_code == 302
    assert response.url == reverse("admin:index")
    response = client.post(url("player_change", world.foreign.pk), {"name_latin": "Hacked"})
    assert response.status_code == 302
    world.foreign.refresh_from_db()
    assert world.foreign.name_latin == "Foreign One"


def test_club_admin_reads_but_cannot_change_a_past_member(client: Any, world: World) -> None:
    client.force_login(world.club_admin)
    page = client.get(url("player_change", world.past_member.pk))
    assert page.status_code == 200
    assert not page.context["has_change_permission"]
    data = form_data(client.get(url("player_change", world.member.pk)))
    data.update(name_latin="Changed")
    assert client.post(url("player_change", world.past_member.pk), data).status_code == 403
    world.past_member.refresh_from_db()
    assert world.past_member.name_latin == "Past One"


def test_filters_narrow_by_club_and_membership_state(client: Any, world: World) -> None:
    club = str(world.club.pk)
    assert listed(client, world.fed_admin, "player", club=club, membership="past") == {
        world.past_member.pk
    }
    assert listed(client, world.fed_admin, "player", club=club, membership="current") == {
        world.member.pk
    }
    assert listed(client, world.fed_admin, "player", membership="current") == {
        world.member.pk,
        world.second_club_member.pk,
    }


def test_search_by_city_membership_number_and_either_script(client: Any, world: World) -> None:
    assert listed(client, world.fed_admin, "player", q="Kazan") == {
        world.member.pk,
        world.past_member.pk,
    }
    number = world.second_club_member.membership_number
    assert listed(client, world.fed_admin, "player", q=number) == {world.second_club_member.pk}
    latin_only = PlayerFactory(
        federation=world.federation, name_native="Mamedov", name_latin="Mamedov"
    )
    assert listed(client, world.fed_admin, "player", q="Мамедов") == {latin_only.pk}


def test_player_changelist_query_count_does_not_grow_with_rows(
    client: Any, world: World, django_assert_num_queries: Any
) -> None:
    client.force_login(world.fed_admin)
    with CaptureQueriesContext(connection) as few:
        assert client.get(url("player_changelist")).status_code == 200
    for _ in range(27):
        MembershipFactory(player=PlayerFactory(federation=world.federation), club=world.second_club)
    assert Player.objects.filter(federation=world.federation).count() == 30
    with django_assert_num_queries(len(few)):
        response = client.get(url("player_changelist"))
    assert len(response.context["cl"].result_list) == 30


# --- Saving goes through the services


def test_changing_a_player_writes_the_audit_log(client: Any, world: World) -> None:
    client.force_login(world.fed_admin)
    data = form_data(client.get(url("player_change", world.member.pk)))
    data["birth_year"] = "1977"
    response = client.post(url("player_change", world.member.pk), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    world.member.refresh_from_db()
    assert world.member.birth_year == 1977
    entry = AuditEntry.objects.get(action="player.change", target_id=world.member.pk)
    assert entry.actor == world.fed_admin
    assert entry.federation == world.federation
    assert (entry.before["birth_year"], entry.after["birth_year"]) == (1990, 1977)


def test_club_admin_adds_a_player_to_their_club(client: Any, world: World) -> None:
    client.force_login(world.club_admin)
    data = {
        "name_native": "Новый Игрок",
        "name_latin": "Novyi Igrok",
        "federation": str(world.federation.pk),
        "membership_number": "N-1",
        "club": str(world.club.pk),
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    response = client.post(url("player_add"), data)
    assert response.status_code == 302
    player = Player.objects.get(membership_number="N-1")
    assert Membership.objects.get(player=player).club == world.club
    actions = set(
        AuditEntry.objects.filter(actor=world.club_admin).values_list("action", flat=True)
    )
    assert actions == {"player.create", "membership.create"}


def test_club_admin_may_not_add_a_player_without_their_club(client: Any, world: World) -> None:
    client.force_login(world.club_admin)
    data = {
        "name_native": "Без Клуба",
        "name_latin": "Bez Kluba",
        "federation": str(world.federation.pk),
        "club": str(world.second_club.pk),  # not theirs
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    response = client.post(url("player_add"), data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors
    assert not Player.objects.filter(name_latin="Bez Kluba").exists()
    assert not AuditEntry.objects.exists()


def test_ending_a_membership_inline_goes_through_the_service(client: Any, world: World) -> None:
    client.force_login(world.club_admin)
    data = form_data(client.get(url("player_change", world.member.pk)))
    data["memberships-0-end"] = "2025-01-31"
    response = client.post(url("player_change", world.member.pk), data)
    assert response.status_code == 302
    membership = Membership.objects.get(player=world.member)
    assert membership.end == datetime.date(2025, 1, 31)
    entry = AuditEntry.objects.get(action="membership.end")
    assert entry.after == {"end": "2025-01-31"}


def test_a_membership_of_another_club_is_refused_in_the_form(client: Any, world: World) -> None:
    client.force_login(world.club_admin)
    data = form_data(client.get(url("player_change", world.member.pk)))
    data.update(
        {
            "memberships-TOTAL_FORMS": "2",
            "memberships-1-club": str(world.second_club.pk),
            "memberships-1-start": "2024-05-01",
        }
    )
    response = client.post(url("player_change", world.member.pk), data)
    assert response.status_code == 200
    assert Membership.objects.filter(player=world.member).count() == 1
    assert not AuditEntry.objects.exists()


def test_a_change_refused_by_a_service_saves_nothing(client: Any, world: World) -> None:
    # The rename is valid, but the added membership overlaps the current one:
    # add_membership refuses it and the whole save is rolled back.
    client.force_login(world.club_admin)
    data = form_data(client.get(url("player_change", world.member.pk)))
    data.update(
        {
            "name_latin": "Renamed",
            "memberships-TOTAL_FORMS": "2",
            "memberships-1-club": str(world.club.pk),
            "memberships-1-start": "2024-06-01",
        }
    )
    response = client.post(url("player_change", world.member.pk), data)
    assert response.status_code == 302
    assert response.url == url("player_change", world.member.pk)
    world.member.refresh_from_db()
    assert world.member.name_latin == "Current One"
    assert Membership.objects.filter(player=world.member).count() == 1
    assert not AuditEntry.objects.exists()
    messages = [str(m) for m in response.wsgi_request._messages]
    assert any(world.club.name in m for m in messages)


def test_adding_a_club_writes_the_audit_log(client: Any, world: World) -> None:
    client.force_login(world.fed_admin)
    data = {"federation": str(world.federation.pk), "name": "Gamma", "slug": "", "city": "Ufa"}
    data["is_active"] = "on"
    response = client.post(url("club_add"), data)
    assert response.status_code == 302
    entry = AuditEntry.objects.get(action="club.create")
    assert entry.after["name"] == "Gamma"
    assert entry.after["slug"] == "gamma"


def test_club_admin_may_not_add_clubs(client: Any, world: World) -> None:
    client.force_login(world.club_admin)
    assert client.get(url("club_add")).status_code == 403


def test_deleting_a_player_with_history_is_refused_cleanly(client: Any, world: World) -> None:
    client.force_login(world.fed_admin)
    response = client.post(url("player_delete", world.member.pk), {"post": "yes"})
    assert response.status_code == 302
    assert Player.objects.filter(pk=world.member.pk).exists()
    assert not AuditEntry.objects.exists()


def test_deleting_a_player_without_history_is_audited(client: Any, world: World) -> None:
    lone = PlayerFactory(federation=world.federation)
    client.force_login(world.fed_admin)
    response = client.post(url("player_delete", lone.pk), {"post": "yes"})
    assert response.status_code == 302
    assert not Player.objects.filter(pk=lone.pk).exists()
    assert AuditEntry.objects.get(action="player.delete").target_id == lone.pk


# --- Disciplines, roles, claims, audit log


def test_only_site_admins_edit_disciplines_with_custom_scoring_checked(
    client: Any, world: World
) -> None:
    client.force_login(world.fed_admin)
    assert client.get(url("discipline_changelist")).status_code == 200
    assert client.get(url("discipline_add")).status_code == 403
    client.force_login(world.site_admin)
    data = {"code": "odd", "name": "Odd", "variant": "short", "custom_scoring": '{"bad": 1}'}
    response = client.post(url("discipline_add"), data)
    assert response.status_code == 200
    assert "custom_scoring" in response.context["adminform"].form.errors
    assert not Discipline.objects.filter(code="odd").exists()
    data = {"code": "std", "name": "Std", "variant": "short", "scoring_preset": "short-standard"}
    data["cube"] = "on"
    assert client.post(url("discipline_add"), data).status_code == 302
    assert AuditEntry.objects.get(action="discipline.create").after["code"] == "std"


def test_federation_admin_appoints_a_club_admin(client: Any, world: World) -> None:
    newcomer = UserFactory(username="newcomer")
    client.force_login(world.fed_admin)
    data = {"username": "newcomer", "role": Role.CLUB_ADMIN, "club": str(world.second_club.pk)}
    assert client.post(url("roleassignment_add"), data).status_code == 302
    assignment = RoleAssignment.objects.get(user=newcomer)
    assert assignment.scope == world.second_club
    assert AuditEntry.objects.get(action="role.grant").actor == world.fed_admin
    # ... and cannot appoint anyone in another federation's club.
    data["club"] = str(world.other_club.pk)
    response = client.post(url("roleassignment_add"), data)
    assert response.status_code == 200
    assert RoleAssignment.objects.filter(user=newcomer).count() == 1


def test_claims_are_approved_with_an_action(client: Any, world: World) -> None:
    claimant = UserFactory()
    claim = ProfileClaim.objects.create(user=claimant, player=world.member)
    foreign_claim = ProfileClaim.objects.create(user=UserFactory(), player=world.foreign)
    assert listed(client, world.club_admin, "profileclaim") == {claim.pk}
    response = client.post(
        url("profileclaim_changelist"),
        {"action": "approve_claims", "_selected_action": [str(claim.pk)], "index": "0"},
    )
    assert response.status_code == 302
    claim.refresh_from_db()
    world.member.refresh_from_db()
    assert claim.status == ClaimStatus.APPROVED
    assert world.member.user == claimant
    foreign_claim.refresh_from_db()
    assert foreign_claim.status == ClaimStatus.PENDING


def test_audit_log_shows_a_federation_admin_their_federation_only(
    client: Any, world: World
) -> None:
    services.update_player(world.member, by=world.site_admin, birth_year=1980)
    services.update_player(world.foreign, by=world.site_admin, birth_year=1981)
    own = AuditEntry.objects.get(federation=world.federation)
    assert listed(client, world.fed_admin, "auditentry") == {own.pk}
    other = AuditEntry.objects.get(federation=world.other_federation)
    assert client.get(url("auditentry_change", other.pk)).status_code == 302
    page = client.get(url("auditentry_change", own.pk))
    assert page.status_code == 200
    assert not page.context["has_change_permission"]


# --- Duplicates


def test_duplicates_page_lists_a_group_and_merges_it(client: Any, world: World) -> None:
    keep = PlayerFactory(
        federation=world.federation, name_native="Мамедов Эльчин", name_latin="Mamedov Elchin"
    )
    dupe = PlayerFactory(
        federation=world.federation, name_native="Elchin Mamedov", name_latin="Elchin Mamedov"
    )
    MembershipFactory(player=dupe, club=world.second_club)
    client.force_login(world.fed_admin)
    page = client.get(url("player_duplicates"))
    assert page.status_code == 200
    groups = [{player.pk for player, _clubs in group} for group in page.context["groups"]]
    assert {keep.pk, dupe.pk} in groups
    response = client.post(
        url("player_duplicates"),
        {
            "federation": str(world.federation.pk),
            "group": [str(keep.pk), str(dupe.pk)],
            "survivor": str(keep.pk),
            "duplicates": [str(keep.pk), str(dupe.pk)],
        },
    )
    assert response.status_code == 302
    dupe.refresh_from_db()
    assert dupe.merged_into == keep
    assert Membership.objects.get(club=world.second_club, player=keep)
    assert AuditEntry.objects.get(action="player.merge").target_id == keep.pk


def test_merging_a_stale_group_changes_nothing(client: Any, world: World) -> None:
    keep = PlayerFactory(
        federation=world.federation, name_native="Иван Петров", name_latin="Ivan Petrov"
    )
    dupe = PlayerFactory(
        federation=world.federation, name_native="Петров Иван", name_latin="Petrov Ivan"
    )
    gone = PlayerFactory(
        federation=world.federation, name_native="Ivan Petrov", name_latin="Ivan Petrov"
    )
    gone.merged_into = keep
    gone.save()
    client.force_login(world.fed_admin)
    client.post(
        url("player_duplicates"),
        {
            "federation": str(world.federation.pk),
            "group": [str(keep.pk), str(dupe.pk), str(gone.pk)],
            "survivor": str(keep.pk),
            "duplicates": [str(dupe.pk), str(gone.pk)],
        },
    )
    dupe.refresh_from_db()
    assert dupe.merged_into is None
    assert not AuditEntry.objects.filter(action="player.merge").exists()


def test_club_admins_have_no_duplicates_page(client: Any, world: World) -> None:
    client.force_login(world.club_admin)
    assert client.get(url("player_duplicates")).status_code == 403


# --- Memberships and rated disciplines on their own pages


def test_membership_page_corrects_dates_and_deletes_through_services(
    client: Any, world: World
) -> None:
    membership = Membership.objects.get(player=world.past_member)
    client.force_login(world.club_admin)
    data = form_data(client.get(url("membership_change", membership.pk)))
    data["start"] = "2019-06-01"
    assert client.post(url("membership_change", membership.pk), data).status_code == 302
    membership.refresh_from_db()
    assert membership.start == datetime.date(2019, 6, 1)
    entry = AuditEntry.objects.get(action="membership.change")
    assert (entry.before, entry.after) == ({"start": "2020-01-01"}, {"start": "2019-06-01"})

    response = client.post(url("membership_delete", membership.pk), {"post": "yes"})
    assert response.status_code == 302
    assert not Membership.objects.filter(pk=membership.pk).exists()
    assert AuditEntry.objects.get(action="membership.delete").before["start"] == "2019-06-01"


def test_membership_of_another_club_cannot_be_opened(client: Any, world: World) -> None:
    other = Membership.objects.get(player=world.second_club_member)
    client.force_login(world.club_admin)
    assert client.get(url("membership_change", other.pk)).status_code == 302
    assert client.post(url("membership_delete", other.pk), {"post": "yes"}).status_code == 302
    assert Membership.objects.filter(pk=other.pk).exists()


def test_federation_admin_rates_and_unrates_a_discipline(client: Any, world: World) -> None:
    discipline = DisciplineFactory()
    client.force_login(world.fed_admin)
    data = form_data(client.get(url("federation_change", world.federation.pk)))
    data.update(
        {
            "rated_disciplines-TOTAL_FORMS": "1",
            "rated_disciplines-0-discipline": str(discipline.pk),
            "rated_disciplines-0-rating_system": "glicko2",
            "rated_disciplines-0-initial_rating": "1600",
            "rated_disciplines-0-glicko_period_days": "14",
        }
    )
    response = client.post(url("federation_change", world.federation.pk), data)
    assert response.status_code == 302
    link = world.federation.rated_disciplines.get()
    assert (link.rating_system, link.glicko_period_days) == ("glicko2", 14)
    assert AuditEntry.objects.get(action="federation.rate").federation == world.federation

    data = form_data(client.get(url("federation_change", world.federation.pk)))
    data["rated_disciplines-0-DELETE"] = "on"
    assert client.post(url("federation_change", world.federation.pk), data).status_code == 302
    assert not world.federation.rated_disciplines.exists()
    assert AuditEntry.objects.filter(action="federation.unrate").count() == 1
