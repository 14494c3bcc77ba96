# ruff: noqa: F811  (tests take the committing fixture imported from test_silent_rounds)
"""A rating list's pages kept whole for anonymous visitors (base.pagecache, issue 14).

The pool's page (published or live) and a published list's page say that they show
the pool (``"rating-pool"``) and its federation (``"federation"``); a rated result,
a published list and a rename expire the pool once they commit, so the next visit
shows them, and a signed-in visitor always goes the whole way."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from clubs import services as clubs_services
from clubs.models import FederationDiscipline, Player, Role
from ratings import services
from ratings.models import RatingPool
from tests.config.test_pagecache import KEPT, visit
from tests.factories import (
    DisciplineFactory,
    FederationFactory,
    PlayerFactory,
    UserFactory,
    grant,
)
from tests.ratings.test_services import (
    confirmed,
    eager,  # noqa: F401 (a fixture)
    players_of,
    pool_of,
    rated_discipline,
)
from tests.tournaments.test_cache_safety import local_memory_cache  # noqa: F401 (a fixture)
from tests.tournaments.test_silent_rounds import committing  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager", "local_memory_cache")]

BASE = dt.datetime(2024, 3, 4, 12, 0, tzinfo=dt.UTC)

Committing = Callable[[], AbstractContextManager[None]]


@pytest.fixture
def kept_pages(settings: Any) -> None:
    # Every test here runs in one process: its own memory is a shared cache.
    settings.PAGE_CACHE_TIMEOUT = 300


@pytest.fixture
def rated_pool(kept_pages: None) -> tuple[RatingPool, list[Player], Any]:
    """A FIBS pool computed from two matches of four named players, and its admin."""
    rated = rated_discipline()
    pool = pool_of(rated)
    players = players_of(rated, 4)
    for number, player in enumerate(players):
        Player.objects.filter(pk=player.pk).update(
            name_native=f"Player {number}", name_latin=f"Player {number}"
        )
    confirmed(players[0], players[1], at=BASE, rated=rated)
    confirmed(players[2], players[3], at=BASE + dt.timedelta(days=1), rated=rated)
    services.recompute_pool(pool)
    admin = UserFactory(username="federation-admin")
    grant(admin, Role.FEDERATION_ADMIN, rated.federation)
    return pool, players, admin


def address(pool: RatingPool, name: str = "ratings:pool", *args: Any) -> str:
    link = pool.rated_discipline
    return reverse(name, args=[link.federation.slug, link.discipline.code, *args])


def test_a_second_anonymous_visit_costs_no_query(rated_pool: Any, committing: Committing) -> None:
    pool, _players, admin = rated_pool
    today = timezone.localdate()
    with committing():
        services.publish_list(pool, today, by=admin)
    for page in (
        address(pool),
        address(pool) + "?live=1",
        address(pool, "ratings:list", today),
    ):
        first, made = visit(Client(), page)
        again, served = visit(Client(), page)
        assert first.status_code == again.status_code == 200, page
        assert made != KEPT
        assert served == KEPT, page
        assert again.content == first.content
        assert "Player 0" in again.content.decode()
        assert "csrfmiddlewaretoken" not in again.content.decode()


def test_a_rated_result_shows_on_the_next_visit(rated_pool: Any, committing: Committing) -> None:
    pool, players, _admin = rated_pool
    page = address(pool)
    before, _ = visit(Client(), page)
    assert "Newcomer" not in before.content.decode()
    assert visit(Client(), page)[1] == KEPT

    newcomer = PlayerFactory(
        federation=pool.rated_discipline.federation, name_native="Newcomer", name_latin="Newcomer"
    )
    match = confirmed(
        newcomer, players[0], at=BASE + dt.timedelta(days=2), rated=pool.rated_discipline
    )
    with committing():
        services.update_after_match(match.pk)

    after, cost = visit(Client(), page)
    assert cost != KEPT
    assert "Newcomer" in after.content.decode()
    assert visit(Client(), page)[1] == KEPT


def test_a_published_list_shows_on_the_next_visit(rated_pool: Any, committing: Committing) -> None:
    pool, _players, admin = rated_pool
    page = address(pool)
    before, _ = visit(Client(), page)
    assert "Live ratings</strong>" in before.content.decode()
    assert visit(Client(), page)[1] == KEPT

    with committing():
        services.publish_list(pool, timezone.localdate(), by=admin)

    after, cost = visit(Client(), page)
    assert cost != KEPT
    assert "Published list" in after.content.decode()
    assert "Live ratings</strong>" not in after.content.decode()


def test_a_rename_shows_on_the_next_visit(rated_pool: Any, committing: Committing) -> None:
    pool, players, admin = rated_pool
    today = timezone.localdate()
    with committing():
        services.publish_list(pool, today, by=admin)
    pages = (address(pool), address(pool) + "?live=1", address(pool, "ratings:list", today))
    for page in pages:
        visit(Client(), page)
        assert visit(Client(), page)[1] == KEPT, page
    version = RatingPool.objects.get(pk=pool.pk).version

    with committing():
        clubs_services.update_player(
            players[0], by=admin, name_native="Renamed Player", name_latin="Renamed Player"
        )

    # No list moved: the names version did, and with it the pool's kept pages.
    assert RatingPool.objects.get(pk=pool.pk).version == version
    for page in pages:
        after, cost = visit(Client(), page)
        assert cost != KEPT, page
        assert "Renamed Player" in after.content.decode(), page
        assert "Player 0" not in after.content.decode(), page


def test_a_hidden_federation_is_not_served_from_what_was_kept(
    rated_pool: Any, committing: Committing
) -> None:
    pool, _players, _admin = rated_pool
    page = address(pool)
    visit(Client(), page)
    assert visit(Client(), page)[1] == KEPT
    staff = UserFactory(is_staff=True, is_superuser=True)
    with committing():
        clubs_services.update_federation(
            pool.rated_discipline.federation, by=staff, is_public=False
        )
    assert visit(Client(), page)[0].status_code == 404


def test_a_discipline_no_longer_rated_is_not_served_from_what_was_kept(
    rated_pool: Any, committing: Committing
) -> None:
    pool, _players, _admin = rated_pool
    page = address(pool)
    visit(Client(), page)
    assert visit(Client(), page)[1] == KEPT
    staff = UserFactory(is_staff=True, is_superuser=True)
    with committing():
        clubs_services.unrate_discipline(pool.rated_discipline, by=staff)
    assert visit(Client(), page)[0].status_code == 404


def test_a_signed_in_visitor_never_gets_nor_leaves_a_kept_page(rated_pool: Any) -> None:
    pool, _players, admin = rated_pool
    page = address(pool)
    signed_in = Client()
    signed_in.force_login(admin)
    first, _ = visit(signed_in, page)
    # The federation's admin sees the publish form (with its CSRF token) and their name.
    assert "federation-admin" in first.content.decode()
    assert "csrfmiddlewaretoken" in first.content.decode()
    anonymous, _ = visit(Client(), page)
    assert "federation-admin" not in anonymous.content.decode()
    assert "csrfmiddlewaretoken" not in anonymous.content.decode()
    # The anonymous page is kept now; the signed-in visitor is still not served it.
    assert visit(Client(), page)[1] == KEPT
    again, cost = visit(signed_in, page)
    assert cost != KEPT
    assert "federation-admin" in again.content.decode()
    assert "csrfmiddlewaretoken" in again.content.decode()


def test_a_page_kept_today_is_not_served_after_midnight(
    rated_pool: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The players' current clubs change by the calendar alone (a membership starting
    or ended by date), which expires no token: a page is kept until the day ends."""
    from ratings.views import public

    pool, _players, _admin = rated_pool
    page = address(pool)
    # As if the day the page is made ended a second ago.
    monkeypatch.setattr(public, "_next_day_starts", lambda: timezone.now().timestamp() - 1)
    visit(Client(), page)
    assert visit(Client(), page)[1] != KEPT


def test_a_discipline_not_rated_yet_is_not_kept(kept_pages: None) -> None:
    """Before the first rating there is no pool whose writers would expire the page."""
    link = FederationDiscipline.objects.create(
        federation=FederationFactory(), discipline=DisciplineFactory(code="not-rated-yet")
    )
    page = reverse("ratings:pool", args=[link.federation.slug, link.discipline.code])
    first, _ = visit(Client(), page)
    assert first.status_code == 200
    assert "Nobody is rated in this discipline yet." in first.content.decode()
    assert visit(Client(), page)[1] != KEPT
