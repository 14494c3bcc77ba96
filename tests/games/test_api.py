"""The games REST API: matches, games, turns (recording with the engine's
errors), result reports, disputes, overrides, query counts, the schema."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from clubs.models import Role
from games import services
from games.models import Match, ReportStatus, ResultStatus, Turn
from tests.factories import (
    DisciplineFactory,
    FederationFactory,
    MatchFactory,
    PlayerFactory,
    UserFactory,
    grant,
)
from tests.games.helpers import play_out, user_of

pytestmark = pytest.mark.django_db


def get(client, url: str, status: int = 200, **params: object) -> dict:  # type: ignore[no-untyped-def]
    response = client.get(url, params, HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == status, response.content
    return response.json()


def send(client, url: str, data: dict | None = None):  # type: ignore[no-untyped-def]
    return client.post(
        url,
        json.dumps(data or {}),
        content_type="application/json",
        HTTP_ACCEPT="application/json",
        HTTP_ACCEPT_LANGUAGE="en",
    )


def ids(payload: dict) -> set[int]:
    return {row["id"] for row in payload["results"]}


def arbiter_of(match: Match):  # type: ignore[no-untyped-def]
    user = UserFactory()
    grant(user, Role.FEDERATION_ADMIN, match.federation)
    return user


# --- Matches


def test_matches_are_listed_as_the_pages_show_them(client) -> None:
    public = MatchFactory()
    hidden = MatchFactory(federation=FederationFactory(is_public=False))
    assert ids(get(client, "/api/matches/")) == {public.pk}
    client.force_login(user_of(hidden, 0))
    assert ids(get(client, "/api/matches/")) == {public.pk, hidden.pk}
    get(client, f"/api/matches/{hidden.pk}/")
    client.logout()
    get(client, f"/api/matches/{hidden.pk}/", status=404)


def test_matches_filter_by_player_state_and_federation(client) -> None:
    first = MatchFactory(recorded=False, length=3)
    second = MatchFactory(recorded=False, length=3)
    services.submit_report(first, by=user_of(first, 0), score1=3, score2=0)
    assert ids(get(client, "/api/matches/", player=first.player2_id)) == {first.pk}
    assert ids(get(client, "/api/matches/", state="finished")) == {first.pk}
    assert ids(get(client, "/api/matches/", state="scheduled")) == {second.pk}
    assert ids(get(client, "/api/matches/", federation=second.federation_id)) == {second.pk}
    assert ids(get(client, "/api/matches/", result_status="pending")) == {first.pk}
    row = get(client, f"/api/matches/{first.pk}/")
    assert row["player1_name"] == str(first.player1) and row["discipline"] == "short-standard"
    today = timezone.localdate().isoformat()
    assert ids(get(client, "/api/matches/", created_from=today)) == {first.pk, second.pk}
    assert ids(get(client, "/api/matches/", created_to="2000-01-01")) == set()
    assert ids(get(client, "/api/matches/", finished_from=today)) == {first.pk}
    assert ids(get(client, "/api/matches/", finished_to="2000-01-01")) == set()
    assert ids(get(client, "/api/matches/", tournament=1)) == set()  # friendlies, no tournament
    reports = get(client, "/api/reports/", created_from=today, player=first.player1_id)
    assert {r["match"] for r in reports["results"]} == {first.pk}
    assert get(client, "/api/reports/", created_to="2000-01-01")["count"] == 0
    assert client.get("/api/reports/", {"created_from": "yesterday"}).status_code == 400


def test_a_player_arranges_a_match_and_a_stranger_cannot(client) -> None:
    me = PlayerFactory(user=UserFactory())
    opponent = PlayerFactory(federation=me.federation)
    DisciplineFactory()
    body = {
        "player1": me.pk,
        "player2": opponent.pk,
        "discipline": "short-standard",
        "length": 5,
        "clock_mode": "delay",
        "clock_per_point_seconds": 120,
        "clock_move_seconds": 12,
    }
    client.force_login(UserFactory())
    assert send(client, "/api/matches/", body).status_code == 403
    assert not Match.objects.exists()
    client.force_login(me.user)
    response = send(client, "/api/matches/", body)
    assert response.status_code == 201, response.content
    assert response.json()["clock"] == "2 min per point + 12 s delay"
    assert Match.objects.get().created_by == me.user
    client.logout()
    assert send(client, "/api/matches/", body).status_code == 401  # asked for a token


# --- Games and turns


def test_games_and_turns_of_a_recorded_match(client) -> None:
    match = MatchFactory(length=1)
    play_out(match, seed=3)
    games = get(client, f"/api/matches/{match.pk}/games/")["results"]
    stored = list(match.games.order_by("number"))
    assert [(g["number"], g["winner"], g["points"]) for g in games] == [
        (g.number, g.winner, g.points) for g in stored
    ]
    turns = get(client, f"/api/matches/{match.pk}/turns/")
    assert turns["count"] == Turn.objects.filter(game__match=match).count()
    first = turns["results"][0]
    assert (first["game"], first["number"], first["kind"]) == (1, 1, "opening")


def test_recording_a_turn_through_the_api(client) -> None:
    match = MatchFactory()
    client.force_login(user_of(match, 0))
    url = f"/api/matches/{match.pk}/turns/"
    opening = send(client, url, {"number": 1, "kind": "opening", "dice": [3, 1]})
    assert opening.status_code == 201, opening.content
    play = send(client, url, {"number": 2, "kind": "play", "dice": [3, 1], "moves": "6/5 8/5"})
    assert play.status_code == 201
    assert play.json()["moves"] == "8/5 6/5"
    assert play.json()["position_id"] == "4HPwATCwZ/ABMA"
    # No clock in this match; a player's own clock readings are refused
    # (tests/games/test_server_clock.py).
    assert (play.json()["clock1_ms"], play.json()["clock_source"]) == (None, "server")


def test_an_illegal_turn_gets_the_engines_code_and_reason_and_leaves_no_row(client) -> None:
    match = MatchFactory()
    client.force_login(user_of(match, 0))
    url = f"/api/matches/{match.pk}/turns/"
    send(client, url, {"number": 1, "kind": "opening", "dice": [3, 1]})
    before = (Turn.objects.count(), match.games.count())
    response = send(client, url, {"number": 2, "kind": "play", "dice": [3, 1], "moves": "24/21"})
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"code", "reason", "turn"}
    assert body["code"] == "must_play_both" and body["turn"] == 2
    assert "24/21 6/5" in body["reason"]
    assert (Turn.objects.count(), match.games.count()) == before
    # Not even a new game is opened by an illegal first turn.
    other = MatchFactory()
    client.force_login(user_of(other, 0))
    response = send(
        client, f"/api/matches/{other.pk}/turns/", {"number": 1, "kind": "opening", "dice": [4, 4]}
    )
    assert response.status_code == 400 and response.json()["code"] == "opening_tie"
    assert not other.games.exists() and not Turn.objects.filter(game__match=other).exists()


def test_a_turn_number_already_taken_gets_409(client) -> None:
    match = MatchFactory()
    client.force_login(user_of(match, 0))
    url = f"/api/matches/{match.pk}/turns/"
    assert send(client, url, {"number": 1, "kind": "opening", "dice": [6, 2]}).status_code == 201
    response = send(client, url, {"number": 1, "kind": "opening", "dice": [6, 2]})
    assert response.status_code == 409
    assert response.json()["code"] == "turn_already_recorded"
    assert response.json()["turn"] == 2
    assert Turn.objects.filter(game__match=match).count() == 1


def test_only_players_and_arbiters_record_turns(client) -> None:
    match = MatchFactory()
    url = f"/api/matches/{match.pk}/turns/"
    client.force_login(UserFactory())
    assert send(client, url, {"number": 1, "kind": "opening", "dice": [3, 1]}).status_code == 403
    client.force_login(arbiter_of(match))
    # An arbiter enters a side's actions only as the scorer (tests/games/test_side_permissions.py).
    assert send(client, url, {"number": 1, "kind": "opening", "dice": [3, 1]}).status_code == 403
    assert send(client, f"/api/matches/{match.pk}/scorer/", {"on": True}).status_code == 200
    assert send(client, url, {"number": 1, "kind": "opening", "dice": [3, 1]}).status_code == 201
    response = send(client, url, {"number": 2, "kind": "play", "dice": [7, 1]})
    assert response.status_code == 400  # the body itself is checked first
    assert response.json()["code"] == "invalid" and "dice[0]:" in response.json()["reason"]


# --- Reports


def test_report_confirm_by_the_opponent(client) -> None:
    match = MatchFactory(recorded=False, length=5)
    client.force_login(user_of(match, 0))
    response = send(client, "/api/reports/", {"match": match.pk, "score1": 5, "score2": 3})
    assert response.status_code == 201, response.content
    report = response.json()
    assert (report["status"], report["reporter_side"]) == ("pending", 1)
    assert send(client, f"/api/reports/{report['id']}/confirm/").status_code == 400
    client.force_login(user_of(match, 1))
    response = send(client, f"/api/reports/{report['id']}/confirm/")
    assert response.status_code == 200
    assert response.json()["status"] == "confirmed"
    assert response.json()["responses"][0]["kind"] == "confirm"
    match.refresh_from_db()
    assert (match.score1, match.score2) == (5, 3)


def test_an_impossible_report_is_refused_with_the_reason(client) -> None:
    match = MatchFactory(recorded=False, length=5)
    client.force_login(user_of(match, 0))
    response = send(client, "/api/reports/", {"match": match.pk, "score1": 2, "score2": 3})
    assert response.status_code == 400
    assert "must reach 5" in json.dumps(response.json())
    client.force_login(UserFactory())
    response = send(client, "/api/reports/", {"match": match.pk, "score1": 5, "score2": 3})
    assert response.status_code == 403
    assert not match.reports.exists()


def test_dispute_and_decision_by_the_arbiter(client) -> None:
    match = MatchFactory(recorded=False, length=5)
    report = services.submit_report(match, by=user_of(match, 0), score1=5, score2=3)
    client.force_login(user_of(match, 1))
    assert send(client, f"/api/reports/{report.pk}/dispute/", {}).status_code == 400
    response = send(client, f"/api/reports/{report.pk}/dispute/", {"reason": "It was 5-2"})
    assert response.json()["status"] == "disputed"
    decision = {"uphold": False, "score1": 5, "score2": 2, "reason": "Scoresheet"}
    assert send(client, f"/api/reports/{report.pk}/decide/", decision).status_code == 403
    client.force_login(arbiter_of(match))
    response = send(client, f"/api/reports/{report.pk}/decide/", decision)
    assert response.status_code == 200, response.content
    assert (response.json()["source"], response.json()["status"]) == ("arbiter", "confirmed")
    match.refresh_from_db()
    assert (match.score1, match.score2, match.result_status) == (5, 2, ResultStatus.CONFIRMED)
    versions = get(client, "/api/reports/", match=match.pk)
    assert [row["status"] for row in versions["results"]] == ["confirmed", "rejected"]


def test_override_by_the_organizer(client) -> None:
    match = MatchFactory(recorded=False, length=5)
    url = f"/api/matches/{match.pk}/override/"
    body = {"score1": 5, "score2": 0, "reason": "Opponent absent", "forfeit": True}
    client.force_login(user_of(match, 0))
    assert send(client, url, body).status_code == 403
    client.force_login(arbiter_of(match))
    assert send(client, url, {**body, "reason": ""}).status_code == 400
    response = send(client, url, body)
    assert response.status_code == 200
    assert response.json()["source"] == "override"
    match.refresh_from_db()
    assert (match.score1, match.forfeit, match.result_status) == (5, True, "confirmed")


def test_a_stale_answer_gets_a_clear_refusal(client) -> None:
    match = MatchFactory(recorded=False, length=5)
    old = services.submit_report(match, by=user_of(match, 0), score1=5, score2=3)
    services.submit_report(match, by=user_of(match, 0), score1=5, score2=4)
    client.force_login(user_of(match, 1))
    response = send(client, f"/api/reports/{old.pk}/confirm/")
    assert response.status_code == 400
    assert "no longer be confirmed" in json.dumps(response.json())
    old.refresh_from_db()
    assert old.status == ReportStatus.SUPERSEDED


# --- Query counts and the schema


@pytest.mark.parametrize("size", [2, 20])
def test_list_query_counts_are_constant(client, django_assert_num_queries, size) -> None:
    federation = FederationFactory()
    matches = []
    for _ in range(size):
        match = MatchFactory(
            recorded=False,
            length=3,
            player1__federation=federation,
        )
        report = services.submit_report(match, by=user_of(match, 0), score1=3, score2=1)
        services.confirm_report(report, by=user_of(match, 1))
        matches.append(match)
    # count, page (players, discipline, federation joined)
    with django_assert_num_queries(2):
        assert get(client, "/api/matches/")["count"] == size
    # count, page, responses
    with django_assert_num_queries(3):
        assert get(client, "/api/reports/")["count"] == size


@pytest.mark.parametrize("seed", [3, 5])
def test_turn_and_game_lists_query_counts_are_constant(
    client, django_assert_num_queries, seed
) -> None:
    match = MatchFactory(length=1 if seed == 3 else 3)
    play_out(match, seed=seed)
    # the match, count, page
    with django_assert_num_queries(3):
        get(client, f"/api/matches/{match.pk}/turns/")
    # the match, count, page
    with django_assert_num_queries(3):
        get(client, f"/api/matches/{match.pk}/games/")


def test_the_schema_documents_the_endpoints(client) -> None:
    schema = get(client, "/api/schema/", format="json")
    paths = schema["paths"]
    for path in (
        "/api/matches/",
        "/api/matches/{id}/games/",
        "/api/matches/{id}/turns/",
        "/api/matches/{id}/override/",
        "/api/matches/{id}/cancel/",
        "/api/reports/",
        "/api/reports/{id}/confirm/",
        "/api/reports/{id}/dispute/",
        "/api/reports/{id}/decide/",
    ):
        assert path in paths, path
    turns = paths["/api/matches/{id}/turns/"]["post"]
    assert {"201", "400", "409"} <= set(turns["responses"])
