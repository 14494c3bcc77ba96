"""Signing in leads a user who runs tournaments to the organizer console, everyone else
to their account page; a safe ``next`` page wins, an unsafe one is ignored."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from clubs import landing
from tests.factories import UserFactory
from tests.world import World
from tournaments import navigation

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def sign_in(client: Any, user: Any, **params: str) -> Any:
    return client.post(
        reverse("clubs:login"), {"username": user.username, "password": PASSWORD, **params}, **EN
    )


@pytest.mark.parametrize("who", ["fed_admin", "club_admin", "site_admin", "organizer"])
def test_those_who_run_tournaments_land_on_the_console(client: Any, world: World, who: str) -> None:
    response = sign_in(client, getattr(world, who))
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:organize")


@pytest.mark.parametrize("who", ["plain", "arbiter", "player"])
def test_everyone_else_lands_on_their_account(client: Any, world: World, who: str) -> None:
    user = world.linked_player.user if who == "player" else getattr(world, who)
    response = sign_in(client, user)
    assert response.status_code == 302
    assert response["Location"] == reverse("clubs:account")


def test_staff_flag_alone_does_not_make_an_organizer(client: Any) -> None:
    """Django's is_staff opens the admin site, not the console: the policy decides."""
    staff = UserFactory(username="bare_staff", is_staff=True)
    assert sign_in(client, staff)["Location"] == reverse("clubs:account")


def test_a_safe_next_page_wins(client: Any, world: World) -> None:
    target = reverse("clubs:federation_list")
    assert sign_in(client, world.fed_admin, next=target)["Location"] == target


@pytest.mark.parametrize(
    "unsafe", ["https://evil.example/", "//evil.example/organize/", "javascript:alert(1)"]
)
def test_an_unsafe_next_page_is_ignored(client: Any, world: World, unsafe: str) -> None:
    response = sign_in(client, world.fed_admin, next=unsafe)
    assert response["Location"] == reverse("tournaments:organize")
    plain = sign_in(client.__class__(), world.plain, next=unsafe)
    assert plain["Location"] == reverse("clubs:account")


def test_a_signed_in_visitor_of_the_sign_in_page_goes_to_their_desk(
    client: Any, world: World
) -> None:
    client.force_login(world.organizer)
    response = client.get(reverse("clubs:login"), **EN)
    assert response.status_code == 302
    assert response["Location"] == reverse("tournaments:organize")


def test_a_wrong_password_stays_on_the_sign_in_page(client: Any, world: World) -> None:
    response = client.post(
        reverse("clubs:login"), {"username": world.fed_admin.username, "password": "no"}, **EN
    )
    assert response.status_code == 200
    assert not response.wsgi_request.user.is_authenticated


def test_the_tournaments_app_registers_its_landing() -> None:
    assert navigation.landing in landing.landings()


def test_the_home_page_signs_in_through_our_page(client: Any) -> None:
    html = client.get(reverse("home"), **EN).content.decode()
    assert f'href="{reverse("clubs:login")}">Sign in</a></li>' in html
    assert "Organizer sign-in" not in html
    assert f'<li><a href="{reverse("admin:index")}"' not in html
