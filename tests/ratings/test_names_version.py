# ruff: noqa: F811  (tests take the committing fixture imported from test_silent_rounds)
"""A rating list's names and clubs are versioned (issue 14): a rename or a change of
club announced by clubs (``clubs.names_changed``) moves ``RatingPool.names_version``
of every pool whose lists show those players, through a task owed on commit, and
the list pages show the new names at once although no list version moved."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest
from django.test import Client

from clubs import services as clubs_services
from clubs.models import Player, Role
from ratings import tasks
from ratings.models import PlayerRating, RatingPool
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory, grant
from tests.ratings.pages_data import make_list, make_pool
from tests.ratings.test_pages import page, pool_url
from tests.ratings.test_services import eager  # noqa: F401 (a fixture)
from tests.tournaments.test_silent_rounds import committing  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]

FEB = datetime.date(2024, 2, 29)

Committing = Callable[[], AbstractContextManager[None]]


def admin_of(pool: RatingPool) -> Any:
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, pool.rated_discipline.federation)
    return admin


def rated_player(pool: RatingPool, name: str) -> Player:
    """A player of the pool's federation, rated in the pool and on its list of February."""
    player: Player = PlayerFactory(
        federation=pool.rated_discipline.federation, name_native=name, name_latin=name
    )
    PlayerRating.objects.create(pool=pool, player=player, rating=1600.0, matches=12)
    return player


def versions(pool: RatingPool) -> tuple[int, int]:
    pool.refresh_from_db()
    return pool.version, pool.names_version


@pytest.mark.parametrize("live", [False, True], ids=["published", "live"])
def test_a_renamed_player_shows_at_once_though_the_list_did_not_move(
    client: Client, committing: Committing, live: bool
) -> None:
    pool = make_pool()
    anna = rated_player(pool, "Anna Old")
    make_list(pool, FEB, [{"player": anna, "rating": 1600.0}])
    address = pool_url(pool) + ("?live=1" if live else "")
    assert "Anna Old" in page(client, address)  # the table is now kept (base.httpcache)
    version, names_version = versions(pool)

    with committing():
        clubs_services.update_player(
            anna, by=admin_of(pool), name_native="Anna New", name_latin="Anna New"
        )

    assert versions(pool) == (version, names_version + 1)
    html = page(client, address)
    assert "Anna New" in html and "Anna Old" not in html
    assert "Anna New" in page(client, pool_url(pool, "ratings:list", FEB))


def test_a_renamed_club_and_a_new_membership_show_at_once(
    client: Client, committing: Committing
) -> None:
    pool = make_pool()
    boris = rated_player(pool, "Boris")
    club = ClubFactory(federation=pool.rated_discipline.federation, name="Old Club")
    MembershipFactory(player=boris, club=club)
    address = pool_url(pool)
    assert "Old Club" in page(client, address)
    admin = admin_of(pool)

    with committing():
        clubs_services.update_club(club, by=admin, name="New Club")
    html = page(client, address)
    assert "New Club" in html and "Old Club" not in html

    other = ClubFactory(federation=pool.rated_discipline.federation, name="Second Club")
    with committing():
        clubs_services.add_membership(boris, other, by=admin, start=datetime.date(2024, 1, 1))
    assert "New Club, Second Club" in page(client, address)


def test_a_rename_in_no_pool_moves_nothing(committing: Committing) -> None:
    pool = make_pool()
    rated_player(pool, "Rated")
    # A club whose only member left before today: its rename shows on no list.
    former = ClubFactory(federation=pool.rated_discipline.federation, name="Former")
    MembershipFactory(
        player=rated_player(make_pool(), "Elsewhere"), club=former, end=datetime.date(2024, 6, 1)
    )
    unrated = PlayerFactory(federation=pool.rated_discipline.federation)
    before = list(RatingPool.objects.order_by("pk").values_list("version", "names_version"))
    admin = admin_of(pool)

    with committing():
        clubs_services.update_player(unrated, by=admin, name_native="Nobody Rated")
        clubs_services.update_club(former, by=admin, name="Former, renamed")

    after = list(RatingPool.objects.order_by("pk").values_list("version", "names_version"))
    assert after == before
    assert tasks.names_changed_task.delay([unrated.pk], [former.pk]).get() == []


def test_the_writing_transaction_only_owes_the_task(
    django_capture_on_commit_callbacks: Any,
) -> None:
    pool = make_pool()
    anna = rated_player(pool, "Anna")
    with django_capture_on_commit_callbacks(execute=False) as owed:
        clubs_services.update_player(anna, by=admin_of(pool), name_native="Anna Renamed")
    # The rename did not touch the pool; the names task waits for the commit.
    assert versions(pool) == (0, 0)
    assert owed
    for callback in owed:
        callback()
    assert versions(pool) == (0, 1)


def test_the_task_is_safe_to_run_twice(client: Client) -> None:
    pool, elsewhere = make_pool(), make_pool(code="long-standard", name="Long nardy")
    anna = rated_player(pool, "Anna")
    PlayerRating.objects.create(pool=elsewhere, player=anna, rating=1500.0, matches=12)
    untouched = make_pool(code="other", name="Other")
    rated_player(untouched, "Someone else")
    address = pool_url(pool)
    page(client, address)
    Player.objects.filter(pk=anna.pk).update(name_native="Anna Written Directly")

    first = tasks.names_changed_task.delay([anna.pk], []).get()
    second = tasks.names_changed_task.delay([anna.pk], []).get()

    assert first == second == sorted([pool.pk, elsewhere.pk])
    assert versions(pool) == (0, 2) and versions(elsewhere) == (0, 2)
    assert versions(untouched) == (0, 0)
    assert "Anna Written Directly" in page(client, address)
    # A player gone since the task was owed: nothing to move, no error.
    assert tasks.names_changed_task.delay([anna.pk + 1000], []).get() == []
