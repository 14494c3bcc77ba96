"""The tournaments REST API: reading what is public, writing by role, query counts, the schema."""

from __future__ import annotations

import datetime
import json

import pytest

from tests.factories import PlayerFactory, UserFactory
from tests.tournaments import builders
from tests.tournaments.builders import higher_seed, play_round
from tests.world import World
from tournaments import services
from tournaments.models import Entry, Round, StandingsSnapshot, Tournament, TournamentState

pytestmark = pytest.mark.django_db


def get(client, url: str, status: int = 200, **params: object):  # type: ignore[no-untyped-def]
    response = client.get(url, params, HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == status, response.content
    return response.json()


def send(client, url: str, data: dict | None = None, method: str = "post"):  # type: ignore[no-untyped-def]
    return getattr(client, method)(
        url,
        json.dumps(data or {}),
        content_type="application/json",
        HTTP_ACCEPT="application/json",
        HTTP_ACCEPT_LANGUAGE="en",
    )


def ids(payload: dict) -> set[int]:
    return {row["id"] for row in payload["results"]}


@pytest.fixture
def world(world: World) -> World:
    """The shared world with its running, draft and hidden tournaments (tests/world.py)."""
    world.build_tournaments()
    return world


# --- Reading


def test_everyone_reads_public_tournaments_past_their_draft(client, world) -> None:  # type: ignore[no-untyped-def]
    assert ids(get(client, "/api/tournaments/")) == {world.running_swiss.pk}
    one = get(client, f"/api/tournaments/{world.running_swiss.pk}/")
    assert one["format"] == "swiss" and one["can_manage"] is False and one["webhook_url"] == ""
    get(client, f"/api/tournaments/{world.draft_swiss.pk}/", status=404)
    client.force_login(world.fed_admin)
    payload = get(client, "/api/tournaments/")
    assert ids(payload) == {world.running_swiss.pk, world.draft_swiss.pk, world.hidden_swiss.pk}
    assert all(row["can_manage"] for row in payload["results"])
    assert get(client, "/api/tournaments/", state="draft")["count"] == 1


def test_entries_and_pairings_follow_the_tournament(client, world) -> None:  # type: ignore[no-untyped-def]
    t = world.running_swiss
    rnd = services.pair_next_round(t, by=world.fed_admin)
    entries = get(client, "/api/entries/", tournament=t.pk)
    assert entries["count"] == 4 and {e["seed"] for e in entries["results"]} == {1, 2, 3, 4}
    assert get(client, "/api/entries/", tournament=world.hidden_swiss.pk)["count"] == 0
    pairings = get(client, "/api/pairings/", round=rnd.pk)
    assert pairings["count"] == 2 and all(p["result"] is None for p in pairings["results"])
    services.update_tournament(t, by=world.fed_admin, publish_pairings=False)
    assert get(client, "/api/pairings/", round=rnd.pk)["count"] == 0
    client.force_login(world.fed_admin)
    assert get(client, "/api/pairings/", round=rnd.pk)["count"] == 2


def test_every_list_filters_by_its_keys(client, world) -> None:  # type: ignore[no-untyped-def]
    t, admin = world.running_swiss, world.fed_admin
    first = play_round(services.pair_next_round(t, by=admin), admin)
    services.compute_standings(t)
    second = services.pair_next_round(t, by=admin)
    Tournament.objects.filter(pk=t.pk).update(starts_on=datetime.date(2025, 5, 1))
    assert ids(get(client, "/api/tournaments/", starts_from="2025-05-01")) == {t.pk}
    assert ids(get(client, "/api/tournaments/", starts_to="2025-04-30")) == set()
    in_federation = get(client, "/api/entries/", federation=world.federation.pk)
    assert in_federation["count"] == 4
    assert get(client, "/api/entries/", federation=world.other_federation.pk)["count"] == 0
    assert ids(get(client, "/api/rounds/", tournament=t.pk, number=2)) == {second.pk}
    assert ids(get(client, "/api/rounds/", tournament=t.pk, flight="main")) == {
        first.pk,
        second.pk,
    }
    second_tables = set(second.pairings.values_list("pk", flat=True))
    assert ids(get(client, "/api/pairings/", tournament=t.pk, round_number=2)) == second_tables
    pairing = first.pairings.select_related("entry1").first()
    mine = ids(get(client, "/api/pairings/", player=pairing.entry1.player_id))
    assert len(mine) == 2 and pairing.pk in mine  # one table a round
    assert ids(get(client, "/api/pairings/", entry=pairing.entry1_id)) == mine
    assert get(client, "/api/standings/", tournament=t.pk, after_round=1)["count"] == 1
    assert get(client, "/api/standings/", tournament=t.pk, after_round=2)["count"] == 0
    assert get(client, "/api/standings/", published="false")["count"] == 0
    matches = get(client, "/api/matches/", tournament=t.pk)
    assert {m["id"] for m in matches["results"]} == set(
        first.pairings.values_list("match_id", flat=True)
    )
    assert get(client, "/api/matches/", tournament=world.hidden_swiss.pk)["count"] == 0
    for bad in ({"starts_from": "2025-13-01"}, {"round_number": "x"}, {"number": -1}):
        url = "/api/pairings/" if "round_number" in bad else "/api/rounds/"
        url = "/api/tournaments/" if "starts_from" in bad else url
        assert client.get(url, bad).status_code == 400, bad


def test_results_of_a_silent_round_are_hidden_until_released(client, world) -> None:  # type: ignore[no-untyped-def]
    t, admin = world.running_swiss, world.fed_admin
    play_round(services.pair_next_round(t, by=admin), admin)
    services.compute_standings(t)
    silent = play_round(services.pair_next_round(t, by=admin, silent=True), admin)
    snapshot = services.compute_standings(t)
    rows = get(client, "/api/pairings/", round=silent.pk)["results"]
    assert rows and all(r["result"] is None for r in rows)
    public = get(client, f"/api/tournaments/{t.pk}/standings/")
    assert public["after_round"] == 1  # the latest published
    assert {
        s["after_round"] for s in get(client, "/api/standings/", tournament=t.pk)["results"]
    } == {1}
    client.force_login(admin)
    assert all(
        r["result"] is not None for r in get(client, "/api/pairings/", round=silent.pk)["results"]
    )
    assert get(client, f"/api/tournaments/{t.pk}/standings/")["after_round"] == 2
    response = send(client, f"/api/standings/{snapshot.pk}/publish/")
    assert response.status_code == 200 and response.json()["published_at"]
    client.logout()
    rows = get(client, "/api/pairings/", round=silent.pk)["results"]
    assert all(r["result"]["winner"] for r in rows)
    assert get(client, f"/api/tournaments/{t.pk}/standings/")["after_round"] == 2


# --- Writing by role


def test_creating_a_tournament_by_role(client, world) -> None:  # type: ignore[no-untyped-def]
    data = {
        "name": "Весенний кубок",
        "federation": world.federation.pk,
        "discipline": world.discipline.code,
        "format": "swiss",
        "rounds_planned": 7,
        "tie_breaks": ["BH", "SB"],
    }
    assert send(client, "/api/tournaments/", data).status_code in (401, 403)
    client.force_login(world.plain)
    assert send(client, "/api/tournaments/", data).status_code == 403
    client.force_login(world.fed_admin)
    bad = send(client, "/api/tournaments/", {**data, "rounds_planned": None})
    assert bad.status_code == 400 and "rounds_planned" in bad.json()
    response = send(client, "/api/tournaments/", data)
    assert response.status_code == 201, response.content
    created = Tournament.objects.get(pk=response.json()["id"])
    assert created.slug == "vesenniy-kubok" and created.tie_breaks == ["BH", "SB"]
    assert created.state == TournamentState.DRAFT
    response = send(client, f"/api/tournaments/{created.pk}/", {"rounds_planned": 9}, "patch")
    assert response.status_code == 200 and response.json()["rounds_planned"] == 9


def test_the_pr_tie_break_is_offered(client, world) -> None:  # type: ignore[no-untyped-def]
    client.force_login(world.fed_admin)
    data = {
        "name": "Кубок с PR",
        "federation": world.federation.pk,
        "discipline": world.discipline.code,
        "format": "swiss",
        "rounds_planned": 5,
        "tie_breaks": ["BH", "PR"],
    }
    created = send(client, "/api/tournaments/", data)
    assert created.status_code == 201, created.content
    assert Tournament.objects.get(name="Кубок с PR").tie_breaks == ["BH", "PR"]
    draft = world.draft_swiss
    patch = send(client, f"/api/tournaments/{draft.pk}/", {"tie_breaks": ["PR"]}, "patch")
    assert patch.status_code == 200 and patch.json()["tie_breaks"] == ["PR"]
    # The schema lists the offered codes, PR among them.
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").content.decode()
    assert "chosen from: WIN, WON, DE, BH, BH-C1, BH-M1, SB, PS, KS, PD, PW, ARO, PR." in schema


def test_federation_admin_runs_a_round_plain_user_cannot(client, world) -> None:  # type: ignore[no-untyped-def]
    t, admin = world.running_swiss, world.fed_admin
    client.force_login(world.plain)
    assert send(client, f"/api/tournaments/{t.pk}/pair/").status_code == 403
    assert Round.objects.filter(tournament=t).count() == 0
    client.force_login(admin)
    response = send(client, f"/api/tournaments/{t.pk}/pair/", {"flight": "main"})
    assert response.status_code == 201
    rnd = Round.objects.get(pk=response.json()["id"])
    again = send(client, f"/api/tournaments/{t.pk}/pair/")
    assert again.status_code == 400 and "still open" in again.json()["non_field_errors"][0]
    assert send(client, f"/api/rounds/{rnd.pk}/start/").json()["state"] == "started"
    closing = send(client, f"/api/rounds/{rnd.pk}/close/")
    assert closing.status_code == 400 and "tables 1, 2" in closing.json()["non_field_errors"][0]
    for p in rnd.pairings.all():
        builders.confirm_result(p, higher_seed(p))
    assert send(client, f"/api/rounds/{rnd.pk}/close/").json()["state"] == "closed"


def test_organizer_of_the_tournament_edits_pairings_and_forfeits(client, world) -> None:  # type: ignore[no-untyped-def]
    t = world.running_swiss
    organizer = world.organizer
    client.force_login(organizer)
    rnd = Round.objects.get(pk=send(client, f"/api/tournaments/{t.pk}/pair/").json()["id"])
    a, b, c, d = builders.entry_ids_by_seed(t)
    bad = send(client, f"/api/rounds/{rnd.pk}/pairings/", {"pairs": [[a, b], [a, c]]})
    assert bad.status_code == 400 and "Paired more than once" in str(bad.json())
    response = send(client, f"/api/rounds/{rnd.pk}/pairings/", {"pairs": [[a, d], [b, c]]})
    assert response.status_code == 200
    assert [(p["entry1"], p["entry2"]) for p in response.json()] == [(a, d), (b, c)]
    send(client, f"/api/rounds/{rnd.pk}/start/")
    pairing = rnd.pairings.get(table=1)
    other = UserFactory()
    client.force_login(other)
    assert (
        send(
            client, f"/api/pairings/{pairing.pk}/forfeit/", {"winner": d, "reason": "x"}
        ).status_code
        == 403
    )
    client.force_login(organizer)
    response = send(
        client, f"/api/pairings/{pairing.pk}/forfeit/", {"winner": d, "reason": "absent"}
    )
    assert response.status_code == 200
    assert response.json()["result"] == {
        "score1": 0,
        "score2": 3,
        "winner": d,
        "forfeit": True,
        "bye": False,
    }


def test_players_enter_check_in_and_withdraw_themselves(client, world) -> None:  # type: ignore[no-untyped-def]
    t, admin = world.draft_swiss, world.fed_admin
    services.set_state(t, TournamentState.REGISTRATION, by=admin)
    player = PlayerFactory(federation=world.federation, user=UserFactory())
    someone = PlayerFactory(federation=world.federation)
    client.force_login(player.user)
    assert (
        send(client, "/api/entries/", {"tournament": t.pk, "player": someone.pk}).status_code == 403
    )
    response = send(client, "/api/entries/", {"tournament": t.pk, "player": player.pk})
    assert response.status_code == 201, response.content
    entry = Entry.objects.get(pk=response.json()["id"])
    services.set_state(t, TournamentState.CHECK_IN, by=admin)
    assert send(client, f"/api/entries/{entry.pk}/check-in/").json()["status"] == "checked_in"
    assert send(client, f"/api/entries/{entry.pk}/withdraw/").json()["status"] == "withdrawn"
    client.force_login(world.plain)
    assert send(client, f"/api/entries/{entry.pk}/", method="delete").status_code == 403
    client.force_login(admin)
    assert send(client, f"/api/entries/{entry.pk}/", method="delete").status_code == 204


def test_bracket_view(client) -> None:  # type: ignore[no-untyped-def]
    federation, admin, _ = builders.federation_with_admin()
    t = builders.tournament(5, "single_elimination", federation=federation, by=admin)
    play_round(services.pair_next_round(t, by=admin), admin)
    columns = get(client, f"/api/tournaments/{t.pk}/bracket/")
    assert [len(c) for c in columns] == [4, 2, 1]
    first = columns[0]
    assert sum(1 for m in first if m["status"] == "bye") == 3  # seeds 1-3 have byes
    played = next(m for m in first if m["status"] == "decided")
    assert played["score1"] is not None and played["winner"] == played["entry1"]["entry"]
    assert columns[1][0]["feeds_from"] == [first[0]["slot"], first[1]["slot"]]
    assert get(client, f"/api/tournaments/{t.pk}/bracket/", flight="consolation") == []


# --- Query counts and the schema


@pytest.mark.parametrize("size", [2, 8])
def test_list_query_counts_are_constant(client, django_assert_num_queries, size) -> None:  # type: ignore[no-untyped-def]
    federation, admin, _ = builders.federation_with_admin()
    for _ in range(size):
        t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=2)
        play_round(services.pair_next_round(t, by=admin), admin)
        services.compute_standings(t)
    # count, page
    with django_assert_num_queries(2):
        assert get(client, "/api/tournaments/")["count"] == size
    with django_assert_num_queries(2):
        assert get(client, "/api/entries/")["count"] == 4 * size
    with django_assert_num_queries(2):
        assert get(client, "/api/rounds/")["count"] == size
    with django_assert_num_queries(2):
        assert get(client, "/api/pairings/")["count"] == 2 * size
    with django_assert_num_queries(2):
        assert get(client, "/api/standings/")["count"] == size
    client.force_login(admin)
    # the session, the user, the user's roles, count, page
    with django_assert_num_queries(5):
        assert get(client, "/api/pairings/")["count"] == 2 * size
    assert StandingsSnapshot.objects.count() == size


def test_the_schema_documents_the_endpoints(client) -> None:  # type: ignore[no-untyped-def]
    schema = get(client, "/api/schema/", format="json")
    paths = schema["paths"]
    for path in (
        "/api/tournaments/",
        "/api/tournaments/{id}/state/",
        "/api/tournaments/{id}/start/",
        "/api/tournaments/{id}/pair/",
        "/api/tournaments/{id}/seed/",
        "/api/tournaments/{id}/qualifiers/",
        "/api/tournaments/{id}/finish/",
        "/api/tournaments/{id}/standings/",
        "/api/tournaments/{id}/bracket/",
        "/api/entries/",
        "/api/entries/{id}/check-in/",
        "/api/entries/{id}/withdraw/",
        "/api/rounds/{id}/start/",
        "/api/rounds/{id}/close/",
        "/api/rounds/{id}/silent/",
        "/api/rounds/{id}/pairings/",
        "/api/pairings/",
        "/api/pairings/{id}/forfeit/",
        "/api/standings/",
        "/api/standings/{id}/publish/",
    ):
        assert path in paths, path
    pair = paths["/api/tournaments/{id}/pair/"]["post"]
    assert "201" in pair["responses"] and pair["summary"]


def test_a_double_elimination_bracket_comes_a_section_at_a_time_with_an_etag(client) -> None:  # type: ignore[no-untyped-def]
    federation, admin, _ = builders.federation_with_admin()
    t = builders.tournament(6, "double_elimination", federation=federation, by=admin)
    builders.run_flight_rounds(t, admin)
    address = f"/api/tournaments/{t.pk}/bracket/"
    whole = client.get(address)
    assert whole.status_code == 200 and whole["ETag"]
    by_section: dict[str, int] = {}
    for column in whole.json():
        by_section[column[0]["section"]] = by_section.get(column[0]["section"], 0) + 1
    assert set(by_section) == {"W", "L", "GF"}
    for section, columns in by_section.items():
        part = get(client, address, section=section)
        assert len(part) == columns and {c[0]["section"] for c in part} == {section}
    missing = client.get(address, {"section": "nonsense"})
    assert missing.status_code == 404 and missing.json()["detail"]
    # A reload that still holds the version is 304; a change of the tournament is not.
    assert client.get(address, HTTP_IF_NONE_MATCH=whole["ETag"]).status_code == 304
    services.finish_tournament(t, by=admin)
    assert client.get(address, HTTP_IF_NONE_MATCH=whole["ETag"]).status_code == 200
