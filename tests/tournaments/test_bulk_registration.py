"""Registration at scale: a pasted list or a CSV matched with the federation's players
across scripts, previewed, then entered in one transaction; check-in of everyone or of
a list."""

from __future__ import annotations

import json
import re

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from clubs import services as club_services
from clubs.models import Player
from tests.factories import PlayerFactory, UserFactory
from tests.tournaments import builders
from tournaments import services
from tournaments.models import Entry, EntryStatus, Tournament, TournamentState

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_swiss(world) -> Tournament:  # type: ignore[no-untyped-def]
    """A Swiss of world.federation taking registrations, nobody entered."""
    return builders.tournament(
        0,
        "swiss",
        federation=world.federation,
        by=world.fed_admin,
        rounds_planned=3,
        start=False,
    )


def bulk_url(t: Tournament) -> str:
    return reverse("tournaments:entries_bulk", args=[t.pk])


def preview(client, t: Tournament, names: str):  # type: ignore[no-untyped-def]
    response = client.post(bulk_url(t), {"names": names})
    assert response.status_code == 200, response.content.decode()[:500]
    return response


def confirm(client, t: Tournament, response, **choices: str):  # type: ignore[no-untyped-def]
    page = response.content.decode()
    lines = re.search(r'name="lines" value="([^"]*)"', page).group(1)
    digest = re.search(r'name="digest" value="([^"]*)"', page).group(1)
    data = {"lines": json.loads(lines.replace("&quot;", '"')), "digest": digest, **choices}
    data["lines"] = json.dumps(data["lines"])
    return client.post(reverse("tournaments:entries_bulk_confirm", args=[t.pk]), data)


def kinds(response) -> dict[int, str]:  # type: ignore[no-untyped-def]
    return {p.line.number: p.kind for p in response.context["previews"]}


def test_paste_matches_across_scripts_and_creates_the_new(client, world, open_swiss) -> None:  # type: ignore[no-untyped-def]
    t = open_swiss
    namesake_a = PlayerFactory(
        federation=world.federation, name_native="Мамедов Эльчин", name_latin="Mamedov Elchin"
    )
    namesake_b = PlayerFactory(
        federation=world.federation,
        name_native="Мамедов Эльчин",
        name_latin="Elchin Mamedov",
        birth_year=2001,
    )
    services.add_entry(t, world.second_club_member, by=world.fed_admin)
    client.force_login(world.fed_admin)
    names = (
        "current one\n"  # Latin, case folded: world.member ("Текущий Игрок")
        "Игрок Бывший; Alpha\n"  # Cyrillic, words swapped: world.past_member
        "Elchin Mamedov, 1700\n"  # two players fold to this name: choose
        "Beta One\n"  # already entered
        "Нов Игрок; Alpha; 1650\n"  # nobody: created in the club
        "Current One\n"  # the same player again
    )
    response = preview(client, t, names)
    assert kinds(response) == {
        1: "match",
        2: "match",
        3: "choose",
        4: "entered",
        5: "new",
        6: "twice",
    }
    page = response.content.decode()
    assert "new player will be created" in page and "already entered" in page
    assert not Entry.objects.filter(tournament=t, player=world.member).exists()

    done = confirm(client, t, response, choice_3=str(namesake_b.pk))
    assert done.status_code == 302, done.content.decode()[:800]
    entered = {e.player_id: e for e in Entry.objects.filter(tournament=t)}
    created = Player.objects.get(name_native="Нов Игрок")
    assert created.name_latin == "Nov Igrok" and created.federation_id == world.federation.pk
    assert created.memberships.filter(club=world.club).exists()
    assert set(entered) == {
        world.member.pk,
        world.past_member.pk,
        namesake_b.pk,
        world.second_club_member.pk,
        created.pk,
    }
    assert namesake_a.pk not in entered
    assert entered[namesake_b.pk].rating == 1700.0 and entered[created.pk].rating == 1650.0


def test_a_choice_left_open_enters_nobody(client, world, open_swiss) -> None:  # type: ignore[no-untyped-def]
    for year in (1980, 1990):
        PlayerFactory(
            federation=world.federation, name_native="Twin", name_latin="Twin", birth_year=year
        )
    client.force_login(world.fed_admin)
    response = preview(client, open_swiss, "Twin\nNew Person\n")
    players_before = Player.objects.count()
    refused = confirm(client, open_swiss, response)
    assert refused.status_code == 409
    assert "choose which Twin is meant" in refused.content.decode()
    assert Player.objects.count() == players_before
    assert not Entry.objects.filter(tournament=open_swiss).exists()


def test_a_stale_preview_is_refused_with_nothing_saved(client, world, open_swiss) -> None:  # type: ignore[no-untyped-def]
    duplicate = PlayerFactory(federation=world.federation, name_native="Дубль", name_latin="Dubl")
    client.force_login(world.fed_admin)
    response = preview(client, open_swiss, "Dubl\nBrand New\n")
    assert kinds(response) == {1: "match", 2: "new"}
    # Meanwhile the matched player is merged into another profile.
    club_services.merge_players(world.member, duplicate, by=world.fed_admin)
    players_before = Player.objects.count()
    refused = confirm(client, open_swiss, response)
    assert refused.status_code == 409
    assert "changed since the preview" in refused.content.decode()
    assert Player.objects.count() == players_before
    assert not Entry.objects.filter(tournament=open_swiss).exists()


def test_a_state_change_after_the_preview_is_refused(client, world, open_swiss) -> None:  # type: ignore[no-untyped-def]
    client.force_login(world.fed_admin)
    response = preview(client, open_swiss, "Current One\n")
    services.set_state(open_swiss, TournamentState.CHECK_IN, by=world.fed_admin)
    refused = confirm(client, open_swiss, response)
    assert refused.status_code == 409
    assert (
        "now check-in" in refused.content.decode().lower()
        or "changed since" in refused.content.decode()
    )
    assert not Entry.objects.filter(tournament=open_swiss).exists()


def test_a_csv_upload_is_previewed(client, world, open_swiss) -> None:  # type: ignore[no-untyped-def]
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(world.fed_admin)
    data = "Имя;Клуб;Рейтинг\nТекущий Игрок;Alpha;1600\nUnknown Person;;\n".encode("cp1251")
    upload = SimpleUploadedFile("list.csv", data, content_type="text/csv")
    response = client.post(bulk_url(open_swiss), {"file": upload})
    assert response.status_code == 200
    assert kinds(response) == {2: "match", 3: "new"}
    assert response.context["previews"][0].line.rating == 1600.0


def test_bad_input_is_a_clear_error(client, world, open_swiss) -> None:  # type: ignore[no-untyped-def]
    client.force_login(world.fed_admin)
    too_long = "\n".join(f"Person {k}" for k in range(1002))
    response = client.post(bulk_url(open_swiss), {"names": too_long})
    assert response.status_code == 400 and "at most 1000 lines" in response.content.decode()
    response = client.post(bulk_url(open_swiss), {"names": "  \n "})
    assert response.status_code == 400 and "no names" in response.content.decode()
    damaged = client.post(
        reverse("tournaments:entries_bulk_confirm", args=[open_swiss.pk]),
        {"lines": "[[1, 2]]", "digest": "x"},
    )
    assert damaged.status_code == 302
    assert not Entry.objects.filter(tournament=open_swiss).exists()


def test_a_stranger_cannot(client, world, open_swiss) -> None:  # type: ignore[no-untyped-def]
    client.force_login(UserFactory())
    assert client.get(bulk_url(open_swiss)).status_code == 403
    response = client.post(bulk_url(open_swiss), {"names": "Current One"})
    assert response.status_code == 403
    response = client.post(
        reverse("tournaments:entries_bulk_confirm", args=[open_swiss.pk]),
        {"lines": json.dumps([[1, "Current One", "", None]]), "digest": "x"},
    )
    assert response.status_code == 403
    assert client.post(reverse("tournaments:check_in_all", args=[open_swiss.pk])).status_code == 403
    assert not Entry.objects.filter(tournament=open_swiss).exists()


def test_an_organizer_without_the_federation_creates_no_player(world, open_swiss) -> None:  # type: ignore[no-untyped-def]
    from clubs.models import Role
    from tests.factories import grant

    organizer = UserFactory()
    grant(organizer, Role.ORGANIZER, open_swiss)
    lines = [
        services.entries.ListLine(1, "Current One"),
        services.entries.ListLine(2, "Somebody New"),
    ]
    previews = services.entries.preview_list(open_swiss, lines)
    digest = services.entries.preview_digest(open_swiss, previews)
    with pytest.raises(ValidationError, match="only its admins create players"):
        services.entries.enter_list(open_swiss, lines, {}, by=organizer, digest=digest)
    assert not Entry.objects.filter(tournament=open_swiss).exists()
    assert not Player.objects.filter(name_native="Somebody New").exists()


def _preview_queries(client, t: Tournament, n: int) -> int:  # type: ignore[no-untyped-def]
    names = "\n".join(f"Listed Person {k}" for k in range(n))
    with CaptureQueriesContext(connection) as queries:
        preview(client, t, names)
    return len(queries)


def test_preview_queries_do_not_grow_with_the_list(client, world, open_swiss) -> None:  # type: ignore[no-untyped-def]
    for k in range(30):
        PlayerFactory(
            federation=world.federation,
            name_native=f"Listed Person {k}",
            name_latin=f"Listed Person {k}",
        )
    client.force_login(world.fed_admin)
    _preview_queries(client, open_swiss, 10)  # warm the per-request caches alike
    assert _preview_queries(client, open_swiss, 10) == _preview_queries(client, open_swiss, 50)


# --- Check-in of everyone, or of a list


@pytest.fixture
def checking_in(world) -> Tournament:  # type: ignore[no-untyped-def]
    """A Swiss in check-in with four registered entries (entered before check-in opened)."""
    t = builders.tournament(
        4, "swiss", federation=world.federation, by=world.fed_admin, rounds_planned=3, start=False
    )
    services.set_state(t, TournamentState.CHECK_IN, by=world.fed_admin)
    return t


def test_check_in_all(client, world, checking_in) -> None:  # type: ignore[no-untyped-def]
    t = checking_in
    withdrawn = Entry.objects.filter(tournament=t).first()
    services.remove_entry(withdrawn, by=world.fed_admin)
    client.force_login(world.fed_admin)
    response = client.post(reverse("tournaments:check_in_all", args=[t.pk]), follow=True)
    assert "3 players checked in." in [str(m) for m in response.context["messages"]]
    assert set(Entry.objects.filter(tournament=t).values_list("status", flat=True)) == {
        EntryStatus.CHECKED_IN
    }


def test_check_in_by_list_matches_across_scripts(client, world, checking_in) -> None:  # type: ignore[no-untyped-def]
    t = checking_in
    entries = list(Entry.objects.filter(tournament=t).select_related("player").order_by("pk"))
    first = entries[0].player
    client.force_login(world.fed_admin)
    url = reverse("tournaments:check_in_list", args=[t.pk])
    # The first by its Latin name, a Cyrillic name of no entry: nothing is done.
    refused = client.post(url, {"names": f"{first.name_latin}\nНикто Такой"}, follow=True)
    assert any("is not entered" in str(m) for m in refused.context["messages"])
    assert not Entry.objects.filter(tournament=t, status=EntryStatus.CHECKED_IN).exists()
    client.post(url, {"names": f"{first.name_latin.upper()}\n{entries[1].player.name_native}"})
    checked = set(
        Entry.objects.filter(tournament=t, status=EntryStatus.CHECKED_IN).values_list(
            "pk", flat=True
        )
    )
    assert checked == {entries[0].pk, entries[1].pk}


def test_entering_a_list_during_check_in_checks_them_in(world, checking_in) -> None:  # type: ignore[no-untyped-def]
    player = PlayerFactory(federation=world.federation)
    [entry] = services.entries.add_entries(checking_in, [player], by=world.fed_admin)
    assert entry.status == EntryStatus.CHECKED_IN
