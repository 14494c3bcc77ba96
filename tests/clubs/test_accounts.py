"""Accounts: sign up, sign in and out, password reset and change, profile claims."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from clubs.models import AuditEntry, ClaimStatus, ProfileClaim, Role
from tests.factories import (
    ClubFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
    grant,
)

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
PASSWORD = "correct-horse-battery"
NEW_PASSWORD = "Lapis-lazuli-nardy-42"
User = get_user_model()


def messages_of(response) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(message) for message in response.context["messages"]]


# --- Sign up, in and out


def test_sign_up_creates_the_account_and_signs_in(client) -> None:
    assert client.get(reverse("clubs:signup"), **EN).status_code == 200
    response = client.post(
        reverse("clubs:signup"),
        {
            "username": "rashad",
            "email": "rashad@example.org",
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
        },
        follow=True,
        **EN,
    )
    assert response.redirect_chain[-1][0] == reverse("clubs:account")
    user = User.objects.get(username="rashad")
    assert user.email == "rashad@example.org"
    assert user.check_password(NEW_PASSWORD)
    assert response.context["user"] == user
    assert AuditEntry.objects.filter(action="user.create", target_id=user.pk).exists()


@pytest.mark.parametrize(
    ("changes", "field", "error"),
    [
        ({"password2": "something-else-9"}, "password2", "The two passwords differ."),
        ({"password1": "123", "password2": "123"}, "password1", "too short"),
        ({"email": "TAKEN@example.org"}, "email", "exists already"),
        ({"username": "Taken"}, "username", "This username is taken."),
        ({"email": "not-an-address"}, "email", "valid email"),
    ],
)
def test_sign_up_refuses_bad_input_and_saves_nothing(client, changes, field, error) -> None:
    UserFactory(username="taken", email="taken@example.org")
    data = {
        "username": "newcomer",
        "email": "newcomer@example.org",
        "password1": NEW_PASSWORD,
        "password2": NEW_PASSWORD,
        **changes,
    }
    response = client.post(reverse("clubs:signup"), data, **EN)
    assert response.status_code == 200
    assert any(error in message for message in response.context["form"].errors[field])
    assert User.objects.count() == 1
    assert "_auth_user_id" not in client.session


def test_sign_in_and_sign_out(client) -> None:
    user = UserFactory(username="elchin")
    wrong = client.post(reverse("clubs:login"), {"username": "elchin", "password": "wrong"}, **EN)
    assert wrong.status_code == 200
    assert wrong.context["form"].errors
    response = client.post(
        reverse("clubs:login"), {"username": "elchin", "password": PASSWORD}, **EN
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("clubs:account")
    assert int(client.session["_auth_user_id"]) == user.pk
    assert client.get(reverse("clubs:logout")).status_code == 405  # sign-out is a POST
    response = client.post(reverse("clubs:logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session
    account = client.get(reverse("clubs:account"))
    assert account.status_code == 302
    assert account["Location"].startswith(reverse("clubs:login"))


def test_sign_in_goes_to_the_next_page(client) -> None:
    UserFactory(username="elchin")
    player = PlayerFactory()
    target = reverse("clubs:player", args=[player.pk])
    response = client.post(
        reverse("clubs:login"),
        {"username": "elchin", "password": PASSWORD, "next": target},
    )
    assert response["Location"] == target


# --- Passwords


def test_password_reset_by_e_mail(client) -> None:
    user = UserFactory(username="leyla", email="leyla@example.org")
    response = client.post(
        reverse("clubs:password_reset"), {"email": "leyla@example.org"}, follow=True, **EN
    )
    assert response.redirect_chain[-1][0] == reverse("clubs:password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["leyla@example.org"]
    assert "leyla" in message.body
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/\S+/)", message.body)
    assert link, message.body
    # The link leads to the form for a new password (Django hides the token in the session).
    form_page = client.get(link.group(1), follow=True, **EN)
    assert form_page.context["validlink"] is True
    set_url = form_page.redirect_chain[-1][0]
    done = client.post(
        set_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}, follow=True
    )
    assert done.redirect_chain[-1][0] == reverse("clubs:password_reset_complete")
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    signed_in = client.post(reverse("clubs:login"), {"username": "leyla", "password": NEW_PASSWORD})
    assert signed_in.status_code == 302
    assert signed_in.wsgi_request.user == user
    # A used link does not work twice.
    again = client.get(link.group(1), follow=True, **EN)
    assert again.context["validlink"] is False
    assert "This link does not work" in again.content.decode()


def test_password_reset_for_an_unknown_address_sends_nothing(client) -> None:
    response = client.post(reverse("clubs:password_reset"), {"email": "nobody@example.org"})
    assert response["Location"] == reverse("clubs:password_reset_done")
    assert mail.outbox == []


def test_password_change(client) -> None:
    user = UserFactory(username="anar")
    anonymous = client.get(reverse("clubs:password_change"))
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith(reverse("clubs:login"))
    client.force_login(user)
    wrong = client.post(
        reverse("clubs:password_change"),
        {"old_password": "wrong", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert wrong.status_code == 200
    assert "old_password" in wrong.context["form"].errors
    response = client.post(
        reverse("clubs:password_change"),
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response["Location"] == reverse("clubs:password_change_done")
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)


# --- Profile claims


def test_claim_then_approval_by_the_club_admin_links_the_profile(client, world) -> None:
    player = world.member
    claimant = UserFactory(username="tural")
    client.force_login(claimant)
    player_url = reverse("clubs:player", args=[player.pk])
    assert "This is me" in client.get(player_url, **EN).content.decode()
    response = client.post(
        reverse("clubs:player_claim", args=[player.pk]),
        {"message": "I play at this club on Tuesdays."},
        follow=True,
        **EN,
    )
    assert response.redirect_chain[-1][0] == player_url
    assert "Your claim has been sent" in " ".join(messages_of(response))
    claim = ProfileClaim.objects.get(user=claimant, player=player)
    assert claim.status == ClaimStatus.PENDING
    assert claim.message == "I play at this club on Tuesdays."
    assert "waiting for approval" in response.content.decode()
    account = client.get(reverse("clubs:account"), **EN).content.decode()
    assert "Current One" in account and "pending" in account

    client.force_login(world.club_admin)
    staff_page = client.get(reverse("clubs:staff_claims"), **EN).content.decode()
    assert "tural" in staff_page and "I play at this club on Tuesdays." in staff_page
    response = client.post(
        reverse("clubs:staff_claim_decide", args=[claim.pk]),
        {"decision": "approve"},
        follow=True,
        **EN,
    )
    assert "Approved" in " ".join(messages_of(response))
    player.refresh_from_db()
    assert player.user == claimant
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.APPROVED
    assert claim.decided_by == world.club_admin
    assert "No claims are waiting for you." in response.content.decode()


def test_a_stale_decision_gets_a_clear_message(client, world) -> None:
    claim = ProfileClaim.objects.create(user=UserFactory(), player=world.member)
    client.force_login(world.club_admin)
    url = reverse("clubs:staff_claim_decide", args=[claim.pk])
    client.post(url, {"decision": "reject"})
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.REJECTED
    response = client.post(url, {"decision": "approve"}, follow=True, **EN)
    assert response.status_code == 200
    assert "decided already" in " ".join(messages_of(response))
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.REJECTED
    assert world.member.user is None
    gone = client.post(
        reverse("clubs:staff_claim_decide", args=[claim.pk + 99]),
        {"decision": "approve"},
        follow=True,
        **EN,
    )
    assert "no longer exists" in " ".join(messages_of(gone))


def test_claim_by_a_user_already_linked_is_refused(client, world) -> None:
    linked = UserFactory(username="linked")
    PlayerFactory(user=linked)
    client.force_login(linked)
    player = world.member
    assert (
        "This is me"
        not in client.get(reverse("clubs:player", args=[player.pk]), **EN).content.decode()
    )
    response = client.post(
        reverse("clubs:player_claim", args=[player.pk]), {"message": ""}, follow=True, **EN
    )
    assert "cannot be claimed" in " ".join(messages_of(response))
    assert not ProfileClaim.objects.filter(user=linked).exists()


def test_claiming_needs_signing_in(client, world) -> None:
    player = world.member
    page = client.get(reverse("clubs:player", args=[player.pk]), **EN).content.decode()
    assert "Sign in to claim this profile." in page
    response = client.post(reverse("clubs:player_claim", args=[player.pk]), {"message": "me"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("clubs:login"))
    assert not ProfileClaim.objects.exists()


def test_only_admins_of_the_player_decide(client, world) -> None:
    claim = ProfileClaim.objects.create(user=UserFactory(), player=world.member)
    client.force_login(world.plain)
    assert client.get(reverse("clubs:staff_claims")).status_code == 403
    other_admin = UserFactory(username="other_admin")
    grant(other_admin, Role.CLUB_ADMIN, ClubFactory(federation=world.federation))
    client.force_login(other_admin)
    assert (
        "No claims are waiting for you."
        in client.get(reverse("clubs:staff_claims"), **EN).content.decode()
    )
    response = client.post(
        reverse("clubs:staff_claim_decide", args=[claim.pk]), {"decision": "approve"}
    )
    assert response.status_code == 403
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING
    # The federation admin may decide it.
    client.force_login(world.fed_admin)
    assert "Current One" in client.get(reverse("clubs:staff_claims")).content.decode()


@pytest.mark.parametrize("claims", [1, 12])
def test_staff_claims_page_query_count_is_constant(
    client, django_assert_num_queries, world, claims
) -> None:
    for _ in range(claims):
        player = PlayerFactory(federation=world.federation)
        MembershipFactory(player=player, club=world.club)
        ProfileClaim.objects.create(user=UserFactory(), player=player)
    client.force_login(world.club_admin)
    client.get(reverse("clubs:staff_claims"), **EN)  # content types cached
    # session, user, roles, the header's counts of disputes and claims
    # (tournaments.navigation), the claims with users and players, their current clubs
    with django_assert_num_queries(7):
        html = client.get(reverse("clubs:staff_claims"), **EN).content.decode()
    assert html.count('value="approve"') == claims


# --- A player's own profile


def test_linked_player_edits_their_own_profile(client) -> None:
    user = UserFactory(username="self")
    player = PlayerFactory(user=user, name_native="Старое Имя", name_latin="Old Name", country="RU")
    client.force_login(user)
    assert client.get(reverse("clubs:own_profile"), **EN).status_code == 200
    response = client.post(
        reverse("clubs:own_profile"),
        {
            "name_native": "Новое Имя",
            "name_latin": "New Name",
            "birth_year": "1988",
            "country": "AZ",
        },
    )
    assert response.status_code == 302
    player.refresh_from_db()
    assert (player.name_native, player.name_latin, player.birth_year, player.country.code) == (
        "Новое Имя",
        "New Name",
        1988,
        "AZ",
    )
    entry = AuditEntry.objects.get(action="player.change", target_id=player.pk)
    assert entry.actor == user
    assert entry.before["name_latin"] == "Old Name"
    assert entry.after["name_latin"] == "New Name"


def test_own_profile_refuses_bad_input(client) -> None:
    user = UserFactory()
    player = PlayerFactory(user=user, birth_year=1990)
    client.force_login(user)
    response = client.post(
        reverse("clubs:own_profile"),
        {"name_native": "", "name_latin": "X", "birth_year": "1800", "country": "RU"},
        **EN,
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "name_native" in errors and "birth_year" in errors
    player.refresh_from_db()
    assert player.birth_year == 1990
    assert not AuditEntry.objects.filter(action="player.change").exists()


def test_own_profile_needs_a_linked_player(client) -> None:
    client.force_login(UserFactory())
    response = client.get(reverse("clubs:own_profile"), follow=True, **EN)
    assert response.redirect_chain[-1][0] == reverse("clubs:account")
    assert "not linked to a player profile" in " ".join(messages_of(response))
