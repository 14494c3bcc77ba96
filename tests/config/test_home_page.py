"""The home page (issue 15, "find everything"): the live, upcoming and recently
finished public tournaments across the public federations, each with its federation,
date, format and a link to its public page, and a player search by name in either
script.  It is the same page for every anonymous visitor and costs the same queries
whatever the number of tournaments or players found."""

from __future__ import annotations

import datetime
import re
from itertools import count
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from clubs.models import Federation, Player
from config import views
from tests.factories import DisciplineFactory, FederationFactory, PlayerFactory
from tournaments.models import Tournament, TournamentState

pytestmark = pytest.mark.django_db

_numbers = count(1)


def tournament(federation: Federation, state: str, **fields: Any) -> Tournament:
    """A tournament row in ``state`` (the home page only reads them)."""
    number = next(_numbers)
    fields.setdefault("starts_on", datetime.date(2025, 5, 1) + datetime.timedelta(days=number))
    return Tournament.objects.create(
        federation=federation,
        discipline=DisciplineFactory(),
        name=f"Cup {number} {state}",
        slug=f"cup-{number}",
        format="swiss",
        state=state,
        **fields,
    )


def section(html: str, name: str) -> str:
    start = html.index(f'<section id="{name}">')
    return html[start : html.index("</section>", start)]


def listed(html: str, name: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'data-tournament="(\d+)"', section(html, name))]


def home(client: Client, **params: str) -> str:
    response = client.get(reverse("home"), params)
    assert response.status_code == 200
    return str(response.content.decode())


def test_the_home_page_lists_live_upcoming_and_recent_public_tournaments(client: Client) -> None:
    public = FederationFactory(name="Kazan Nardy", short_name="KNF")
    other = FederationFactory()
    hidden_federation = FederationFactory(is_public=False)
    running = tournament(public, TournamentState.RUNNING)
    running_elsewhere = tournament(other, TournamentState.RUNNING)
    registering = tournament(public, TournamentState.REGISTRATION)
    checking_in = tournament(other, TournamentState.CHECK_IN)
    finished = tournament(public, TournamentState.FINISHED)
    # Never on a public page: a draft, a private tournament, a hidden federation's.
    draft = tournament(public, TournamentState.DRAFT)
    private = tournament(public, TournamentState.RUNNING, is_public=False)
    of_hidden = tournament(hidden_federation, TournamentState.FINISHED)

    html = home(client)

    assert listed(html, "live") == [running_elsewhere.pk, running.pk]  # latest first
    assert listed(html, "upcoming") == [registering.pk, checking_in.pk]  # soonest first
    assert listed(html, "recent") == [finished.pk]
    for absent in (draft, private, of_hidden):
        assert f'data-tournament="{absent.pk}"' not in html
    live = section(html, "live")
    assert reverse("tournaments:public", args=[public.slug, running.slug]) in live
    assert reverse("tournaments:public_list", args=[public.slug]) in live
    assert "KNF" in live
    assert running.get_format_display() in live
    assert running.starts_on is not None
    assert running.starts_on.strftime("%m/%d/%Y") in live


def test_recent_lists_the_last_finished_only(client: Client) -> None:
    federation = FederationFactory()
    finished = [
        tournament(federation, TournamentState.FINISHED) for _ in range(views.RECENT_AT_MOST + 2)
    ]
    shown = listed(home(client), "recent")
    assert shown == [t.pk for t in reversed(finished)][: views.RECENT_AT_MOST]


def test_the_page_is_the_same_for_every_anonymous_visitor(client: Client) -> None:
    federation = FederationFactory()
    tournament(federation, TournamentState.RUNNING)
    PlayerFactory(federation=federation, name_native="Мамедов Эльчин", name_latin="Mamedov Elchin")
    first = client.get(reverse("home"), {"q": "Mamedov"})
    second = Client().get(reverse("home"), {"q": "Mamedov"})
    assert first.content == second.content
    # No form token, so nothing of the visitor's and no cookie: a cache may keep the page.
    assert b"csrfmiddlewaretoken" not in first.content
    assert not first.cookies


@pytest.mark.parametrize("typed", ["мамедов", "Мамедов", "MAMEDOV", "elchin mamedov", "Эльчин"])
def test_the_player_search_finds_a_name_in_either_script(client: Client, typed: str) -> None:
    federation = FederationFactory()
    player = PlayerFactory(
        federation=federation, name_native="Мамедов Эльчин", name_latin="Mamedov Elchin"
    )
    PlayerFactory(federation=federation, name_native="Петрова Анна", name_latin="Petrova Anna")
    found = section(home(client, q=typed), "players-found")
    assert re.findall(r'href="/players/(\d+)/"', found) == [str(player.pk)]
    assert reverse("clubs:player", args=[player.pk]) in found


def test_the_search_finds_only_players_with_a_public_page(client: Client) -> None:
    hidden = FederationFactory(is_public=False)
    public = FederationFactory()
    PlayerFactory(federation=hidden, name_native="Алиев Рамиль", name_latin="Aliev Ramil")
    survivor = PlayerFactory(federation=public, name_native="Алиев Рамин", name_latin="Aliev Ramin")
    merged = PlayerFactory(federation=public, name_native="Алиев Рамин", name_latin="Aliev Ramin")
    Player.objects.filter(pk=merged.pk).update(merged_into=survivor)
    found = section(home(client, q="aliev"), "players-found")
    assert re.findall(r'href="/players/(\d+)/"', found) == [str(survivor.pk)]
    assert "No player has this name." in section(home(client, q="Zzyzx"), "players-found")


def test_a_long_search_is_cut_and_many_found_are_bounded(client: Client) -> None:
    federation = FederationFactory()
    for k in range(views.PLAYERS_FOUND_AT_MOST + 3):
        PlayerFactory(
            federation=federation, name_native=f"Гусейнов {k}", name_latin=f"Guseynov {k}"
        )
    found = section(home(client, q="guseynov"), "players-found")
    assert len(re.findall(r'href="/players/\d+/"', found)) == views.PLAYERS_FOUND_AT_MOST
    assert "type more of it" in found
    html = home(client, q="x" * 5000)
    assert 'value="' + "x" * views.SEARCH_MAX_LENGTH + '"' in html


def build(size: int) -> None:
    """``size`` tournaments of each kind in ``size`` federations and ``size`` players named alike."""
    for _ in range(size):
        federation = FederationFactory()
        for state in (TournamentState.RUNNING, TournamentState.CHECK_IN, TournamentState.FINISHED):
            tournament(federation, state, club=None)
        PlayerFactory(federation=federation, name_native="Керимов", name_latin="Kerimov")


@pytest.mark.parametrize("size", [1, 8])
def test_the_home_page_costs_the_same_queries_for_any_size(
    client: Client, django_assert_num_queries: Any, size: int
) -> None:
    build(size)
    # Three lists and one search: a query each.
    with django_assert_num_queries(4):
        html = home(client, q="kerimov")
    assert len(listed(html, "live")) == size
    assert len(listed(html, "recent")) == size
    assert len(re.findall(r'href="/players/\d+/"', section(html, "players-found"))) == size
    with CaptureQueriesContext(connection) as without_search:
        home(client)
    assert len(without_search.captured_queries) == 3
