"""Tournament.public_version moves with every change the public pages, the pairings or
the standings show (issue 14, "render once per version"), in the writer's transaction,
and a read never moves it; viewer_key names what a viewer may see of the results."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from clubs.models import Role
from games import services as games_services
from tests.factories import UserFactory, grant
from tests.ratings.test_services import eager  # noqa: F401 (a fixture)
from tests.tournaments import builders
from tests.tournaments.test_silent_rounds import (
    api,
    as_user,
    committing,  # noqa: F401 (a fixture)
)
from tournaments import services
from tournaments.models import Entry, Pairing, StandingsSnapshot, Tournament, TournamentState
from tournaments.services.visibility import viewer_key

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager")]


def version(t: Tournament) -> int:
    return Tournament.objects.values_list("public_version", flat=True).get(pk=t.pk)


@contextmanager
def moves(t: Tournament, what: str) -> Iterator[None]:
    before = version(t)
    yield
    assert version(t) > before, f"{what} did not move the public version"


@contextmanager
def stays(t: Tournament, what: str) -> Iterator[None]:
    before = version(t)
    yield
    assert version(t) == before, f"{what} moved the public version"


def read_everything(t: Tournament) -> None:
    """What visitors read: the public page and the API's pairings and standings."""
    for user in (None, UserFactory()):
        client = as_user(user)
        page = client.get(reverse("tournaments:public", args=[t.federation.slug, t.slug]))
        assert page.status_code == 200
        assert api(client, "/api/pairings/", tournament=t.pk).status_code == 200
        assert api(client, f"/api/tournaments/{t.pk}/standings/").status_code in (200, 404)


def test_every_service_that_changes_the_public_pages_moves_the_version(
    committing: Any,  # noqa: F811 (the fixture imported above)
) -> None:
    federation, admin, discipline = builders.federation_with_admin()
    t = services.create_tournament(
        by=admin,
        federation=federation,
        name="Versioned open",
        discipline=discipline,
        format="swiss",
        rounds_planned=3,
        match_length=3,
    )
    assert version(t) == 0
    with moves(t, "update_tournament"):
        services.update_tournament(t, by=admin, name="Versioned open 2026")
    with stays(t, "update_tournament changing nothing"):
        services.update_tournament(t, by=admin, name="Versioned open 2026")
    with moves(t, "set_state"):
        services.set_state(t, TournamentState.REGISTRATION, by=admin)
    people = builders.players(federation, 7)
    entries = []
    for k, player in enumerate(people):
        with moves(t, "add_entry"):
            entries.append(services.add_entry(t, player, by=admin, rating=2000.0 - 10 * k))
    with moves(t, "remove_entry"):
        services.remove_entry(entries.pop(), by=admin)
    with moves(t, "set_state to check-in"):
        services.set_state(t, TournamentState.CHECK_IN, by=admin)
    for entry in entries:
        with moves(t, "check_in"):
            services.check_in(entry, by=admin)
    with moves(t, "seed_entries"):
        services.seed_entries(t, by=admin)
    with moves(t, "start_tournament"):
        services.start_tournament(t, by=admin)
    with stays(t, "reading the pages"):
        read_everything(t)

    with moves(t, "pair_next_round"):
        rnd = services.pair_next_round(t, by=admin)
    pairs = list(rnd.pairings.order_by("table").values_list("entry1_id", "entry2_id"))
    (a, b), (c, d) = pairs[0], pairs[1]
    with moves(t, "edit_pairings"):
        services.edit_pairings(rnd, [(a, c), (b, d), *pairs[2:]], by=admin)
    with moves(t, "set_silent"):
        services.set_silent(rnd, True, by=admin)
    with moves(t, "set_silent released"):
        services.set_silent(rnd, False, by=admin)
    with moves(t, "set_silent again"):
        services.set_silent(rnd, True, by=admin)
    with moves(t, "start_round"):
        services.start_round(rnd, by=admin)
    tables = list(
        Pairing.objects.filter(round=rnd)
        .select_related("match__player1__user", "match__player2__user", "entry1", "entry2")
        .order_by("table")
    )
    with moves(t, "enter_result"), committing():
        services.enter_result(tables[0], by=admin, score1=3, score2=1)
    with moves(t, "a result reported and confirmed by the players (the task)"), committing():
        builders.confirm_result(tables[1], tables[1].entry1_id)
    with moves(t, "forfeit"), committing():
        services.forfeit(tables[2], by=admin, winner=tables[2].entry2_id, reason="late")
    with moves(t, "close_round"), committing():
        services.close_round(rnd, by=admin)
    snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=1)
    assert snapshot.published_at is None  # a silent round waits for the organizer
    with stays(t, "computing standings that did not change"):
        services.compute_standings(t)
    with stays(t, "reading the pages"):
        read_everything(t)
    with moves(t, "publish_standings"):
        services.publish_standings(snapshot, by=admin)

    with moves(t, "pair_next_round"):
        second = services.pair_next_round(t, by=admin)
    with moves(t, "start_round"):
        services.start_round(second, by=admin)
    played = (
        Pairing.objects.filter(round=second, match__isnull=False)
        .select_related("match__player1__user", "match__player2__user")
        .order_by("table")
    )
    first_table, second_table = played[0], played[1]
    with committing():
        builders.confirm_result(first_table, first_table.entry1_id)
    with moves(t, "a confirmed result withdrawn (the task)"), committing():
        games_services.cancel_match(first_table.match, by=admin, reason="no show")
    with moves(t, "withdraw"), committing():
        services.withdraw(Entry.objects.get(pk=second_table.entry1_id), by=admin)


def test_a_late_snapshot_and_the_finish_move_the_version(
    committing: Any,  # noqa: F811 (the fixture imported above)
) -> None:
    """The standings task computing a new snapshot, finishing, and entering qualifiers."""
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=1)
    rnd = services.pair_next_round(t, by=admin)
    builders.play_round(rnd, admin, close=False)
    services.close_round(rnd, by=admin)  # the standings task is not run: no commit
    assert not StandingsSnapshot.objects.filter(tournament=t).exists()
    with moves(t, "compute_standings making a snapshot"):
        services.compute_standings(t)
    with moves(t, "finish_tournament"):
        services.finish_tournament(t, by=admin)
    final = builders.tournament(
        0,
        "swiss",
        federation=federation,
        by=admin,
        start=False,
        rounds_planned=2,
        qualifies_from=t,
        qualifying_places=2,
    )
    with moves(final, "enter_qualifiers"):
        services.enter_qualifiers(final, by=admin)


def test_viewer_key_is_shared_exactly_by_who_sees_the_same_results(
    committing: Any,  # noqa: F811 (the fixture imported above)
) -> None:
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=2)
    organizer, arbiter, stranger = UserFactory(), UserFactory(), UserFactory()
    grant(organizer, Role.ORGANIZER, t)
    grant(arbiter, Role.ARBITER, t)
    player = Entry.objects.select_related("player__user").filter(tournament=t)[0].player.user
    # Nothing hidden: every viewer but staff shares one key.
    assert viewer_key(AnonymousUser(), t) == viewer_key(stranger, t) == viewer_key(player, t)
    assert viewer_key(organizer, t) == viewer_key(arbiter, t) == viewer_key(admin, t) == "staff"
    assert viewer_key(AnonymousUser(), t) != "staff"
    # A silent round: a player sees their own result, so they get a key of their own.
    with committing():
        builders.play_round(services.pair_next_round(t, by=admin, silent=True), admin)
    others = [
        e.player.user
        for e in Entry.objects.select_related("player__user").filter(tournament=t)
        if e.player.user != player
    ]
    keys = {viewer_key(user, t) for user in [player, *others]}
    assert len(keys) == 4
    assert viewer_key(AnonymousUser(), t) == viewer_key(stranger, t) not in keys
    assert viewer_key(organizer, t) == "staff"
    # Released: everyone but staff shares one key again.
    snapshot = StandingsSnapshot.objects.filter(tournament=t).latest("after_round")
    services.publish_standings(snapshot, by=admin)
    assert {viewer_key(user, t) for user in [player, *others, stranger]} == {
        viewer_key(AnonymousUser(), t)
    }
    # A tournament that publishes no results: its players see their own.
    services.update_tournament(t, by=admin, publish_results=False)
    assert viewer_key(player, t) != viewer_key(AnonymousUser(), t)


def test_a_name_or_club_corrected_moves_the_version_of_the_pages_that_show_it(
    client: Any,
    committing: Any,  # noqa: F811 (the fixture imported above)
) -> None:
    """A director corrects a misspelt name at a round's start: the cached pages that show
    it are rendered again (clubs.names_changed -> a task -> the tournaments that show it)."""
    from clubs import services as club_services
    from tests.factories import ClubFactory, PlayerFactory

    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=2)
    services.pair_next_round(t, by=admin)
    elsewhere = builders.tournament(
        2, "swiss", federation=federation, by=admin, start=False, rounds_planned=1
    )
    entrant = Entry.objects.filter(tournament=t).select_related("player").first()
    assert entrant is not None
    address = reverse("tournaments:public", args=[t.federation.slug, t.slug])
    assert entrant.player.name_native in client.get(address).content.decode()  # now cached

    with moves(t, "a name corrected"), stays(elsewhere, "another's name"), committing():
        club_services.update_player(entrant.player, by=admin, name_native="Qwertyuiop")
    assert "Qwertyuiop" in client.get(address).content.decode()

    outsider = PlayerFactory(federation=federation)
    with stays(t, "the name of a player outside it"), committing():
        club_services.update_player(outsider, by=admin, name_native="Asdfghjkl")

    club = ClubFactory(federation=federation)
    with moves(t, "a membership of an entrant"), committing():
        club_services.add_membership(
            entrant.player, club, by=admin, start=datetime.date(2026, 1, 1)
        )
    with moves(t, "the entrant's club renamed"), stays(elsewhere, "other"), committing():
        club_services.update_club(club, by=admin, name="Renamed Club")
