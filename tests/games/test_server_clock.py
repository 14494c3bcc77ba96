"""The players' clocks are the server's (issue 19, point 1), and the turns endpoint
answers every error in its documented shape (point 4).

The server charges each turn from its own time stamps; a clock reading sent with
a turn is a physical clock's, entered only by an arbiter of the match or the
scorer an arbiter appointed (``match.enter_clock``), never by a player, nor by
players who agreed to scorer mode between themselves.  A player's claim of a
loss on time stands only on the server's reading.  Time is controlled by moving
the last turn's time stamp back (tests.games.helpers.recorded_ago), never by waiting.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from clubs import permissions
from clubs.models import Role
from games import adapters, services
from games.models import ClockMode, ClockSource, Match, MatchState, Turn, TurnKind
from games.views.board import user_name
from tests.factories import MatchFactory, UserFactory, grant
from tests.games.helpers import post_json, recorded_ago, user_of

pytestmark = pytest.mark.django_db

RESERVE_MS = 600_000


def clocked_match(**fields: Any) -> Match:
    return MatchFactory(
        length=3, clock_mode=ClockMode.INCREMENT, clock_reserve_seconds=600, **fields
    )


def arbiter_of(match: Match) -> Any:
    user = UserFactory()
    grant(user, Role.FEDERATION_ADMIN, match.federation)
    return user


post = post_json  # the API answers in English, as JSON


def turns_url(match: Match) -> str:
    return f"/api/matches/{match.pk}/turns/"


def opening(match: Match) -> None:
    """3-1: White plays first (turn 2), White's clock runs."""
    services.record_turn(match, by=user_of(match, 0), number=1, kind=TurnKind.OPENING, dice=[3, 1])


PLAY = {"number": 2, "kind": "play", "dice": [3, 1], "moves": "8/5 6/5"}


def recorded(match: Match) -> tuple[int, tuple[int, int]]:
    return Turn.objects.filter(game__match=match).count(), adapters.stored_clocks(match)


# --- A client's reading


@pytest.mark.parametrize("reading", [[RESERVE_MS, RESERVE_MS], [RESERVE_MS, 1]])
def test_a_players_reading_is_refused_and_nothing_is_saved(client, reading: list[int]) -> None:  # type: ignore[no-untyped-def]
    """Both clocks, or the opponent's only (Black's set to 1 ms): refused alike."""
    match = clocked_match()
    opening(match)
    recorded_ago(match, 30)
    before = recorded(match)
    client.force_login(user_of(match, 0))
    response = post(client, turns_url(match), {**PLAY, "clock": reading})
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "clock_not_yours"
    assert "the server keeps the players' clocks" in response.json()["reason"]
    assert response.json()["turn"] == 2
    assert recorded(match) == before


def test_the_opponents_clock_stays_the_servers_and_no_win_on_time_follows(client) -> None:  # type: ignore[no-untyped-def]
    match = clocked_match()
    opening(match)
    client.force_login(user_of(match, 0))
    assert post(client, turns_url(match), {**PLAY, "clock": [RESERVE_MS, 0]}).status_code == 400
    played = post(client, turns_url(match), PLAY)
    assert played.status_code == 201, played.content
    body = played.json()
    assert body["clock2_ms"] == RESERVE_MS  # Black has not moved: nothing charged
    assert (body["clock_source"], body["clock_entered_by"]) == ("server", None)
    claim = post(client, f"/api/matches/{match.pk}/timeout/", {"loser": 2})
    assert claim.status_code == 400
    assert "still has 10:00 on the clock" in json.dumps(claim.json())
    assert Match.objects.get(pk=match.pk).state == MatchState.PLAYING


def test_the_board_page_refuses_a_players_reading_too(client) -> None:  # type: ignore[no-untyped-def]
    match = clocked_match()
    opening(match)
    before = recorded(match)
    client.force_login(user_of(match, 0))
    response = post(client, reverse("games:record", args=[match.pk]), {**PLAY, "clock": [1, 1]})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "clock_not_yours"
    assert recorded(match) == before


# --- A physical clock's reading


def arbiter_scoring(client, match: Match) -> Any:  # type: ignore[no-untyped-def]
    """The arbiter switches scorer mode on (and so is the match's scorer), signed in."""
    arbiter = arbiter_of(match)
    client.force_login(arbiter)
    assert post(client, f"/api/matches/{match.pk}/scorer/", {"on": True}).status_code == 200
    return arbiter


def test_the_arbiters_reading_is_kept_marked_physical_and_shown(client) -> None:  # type: ignore[no-untyped-def]
    match = clocked_match()
    arbiter = arbiter_scoring(client, match)
    assert (
        post(client, turns_url(match), {"number": 1, "kind": "opening", "dice": [3, 1]}).status_code
        == 201
    )
    response = post(client, turns_url(match), {**PLAY, "clock": [583_000, 600_000]})
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["clock1_ms"], body["clock2_ms"]) == (583_000, 600_000)
    assert (body["clock_source"], body["clock_entered_by"]) == ("physical", arbiter.username)
    turn = Turn.objects.get(game__match=match, number=2)
    assert (turn.clock_source, turn.clock_entered_by, turn.recorded_by) == (
        ClockSource.PHYSICAL,
        arbiter,
        arbiter,
    )
    listed = client.get(turns_url(match), HTTP_ACCEPT="application/json").json()["results"]
    assert [t["clock_source"] for t in listed] == ["server", "physical"]
    shown = f"physical clock, entered by {user_name(arbiter)}"
    state = client.get(reverse("games:state", args=[match.pk])).json()
    assert [t["clock_text"] for t in state["turns"]] == ["", shown]
    replay = client.get(reverse("games:replay", args=[match.pk, 1])).content.decode()
    assert replay.count(shown) == 1
    # The match page's turn table marks the physical reading beside the clocks.
    page = client.get(reverse("games:match", args=[match.pk])).content.decode()
    assert page.count(shown) == 1


def test_the_server_charges_on_from_the_physical_reading(client) -> None:  # type: ignore[no-untyped-def]
    match = clocked_match()
    arbiter_scoring(client, match)
    post(client, turns_url(match), {"number": 1, "kind": "opening", "dice": [3, 1]})
    post(client, turns_url(match), {**PLAY, "clock": [583_000, 500_000]})
    recorded_ago(match, 20)
    double = post(client, turns_url(match), {"number": 3, "kind": "double"})
    assert double.status_code == 201, double.content
    body = double.json()
    assert body["clock_source"] == "server" and body["clock1_ms"] == 583_000
    assert 479_000 < body["clock2_ms"] <= 480_000  # Black's 20 s, less a few ms of the test


def test_who_may_enter_a_physical_clocks_reading() -> None:
    """The rule: the match's arbiters and its appointed scorer; not the players, not
    even one who may arbitrate, and not the players' own scorer mode."""
    match = clocked_match()
    white, black = user_of(match, 0), user_of(match, 1)
    arbiter = arbiter_of(match)
    assert permissions.can(arbiter, "match.enter_clock", match)
    assert not permissions.can(white, "match.enter_clock", match)
    grant(black, Role.FEDERATION_ADMIN, match.federation)  # an arbiter playing their own match
    assert permissions.can(black, "match.arbitrate", match)
    assert not permissions.can(black, "match.enter_clock", match)
    # Nothing in the app appoints anyone but the arbiter themselves yet; the rule
    # already reads Match.scorer, so a scorer an arbiter appoints enters readings.
    appointed = UserFactory()
    assert not permissions.can(appointed, "match.enter_clock", match)
    Match.objects.filter(pk=match.pk).update(scorer_mode=True, scorer=appointed)
    match.refresh_from_db()
    assert permissions.can(appointed, "match.enter_clock", match)
    Match.objects.filter(pk=match.pk).update(scorer_mode=False)
    match.refresh_from_db()
    assert not permissions.can(appointed, "match.enter_clock", match)


def test_players_who_agreed_to_scorer_mode_do_not_enter_readings(client) -> None:  # type: ignore[no-untyped-def]
    match = clocked_match()
    white, black = user_of(match, 0), user_of(match, 1)
    services.set_scorer_mode(match, by=white, on=True)
    services.set_scorer_mode(match, by=black, on=True)
    opening(match)
    before = recorded(match)
    client.force_login(black)  # a scorer: may record White's play, not the clocks
    refused = post(client, turns_url(match), {**PLAY, "clock": [RESERVE_MS, RESERVE_MS]})
    assert (refused.status_code, refused.json()["code"]) == (400, "clock_not_yours")
    assert recorded(match) == before
    assert post(client, turns_url(match), PLAY).status_code == 201


def test_a_match_without_a_clock_takes_no_reading() -> None:
    match = MatchFactory()
    arbiter = arbiter_of(match)
    services.set_scorer_mode(match, by=arbiter, on=True)
    with pytest.raises(ValidationError) as refused:
        services.record_turn(
            match,
            by=arbiter,
            number=1,
            kind=TurnKind.OPENING,
            dice=[3, 1],
            physical_clock=(1_000, 1_000),
        )
    assert refused.value.code == "no_clock"
    assert not Turn.objects.exists()


# --- A loss on time


def test_a_claim_waits_for_the_servers_flag(client) -> None:  # type: ignore[no-untyped-def]
    match = clocked_match()
    opening(match)  # White's clock runs from here
    black = user_of(match, 1)
    recorded_ago(match, 599)
    with pytest.raises(ValidationError) as early:
        services.record_timeout(match, by=black, loser=1)
    assert early.value.code == "time_left" and "still has 0:01 on" in early.value.messages[0]
    assert Turn.objects.filter(game__match=match).count() == 1
    recorded_ago(match, 601)
    services.record_timeout(match, by=black, loser=1)
    match.refresh_from_db()
    assert match.lost_on_time and match.state == MatchState.FINISHED
    claim = Turn.objects.get(game__match=match, kind=TurnKind.TIMEOUT)
    # The turn keeps the server's reading the claim stood on.
    assert (claim.clock1_ms, claim.clock2_ms, claim.clock_source) == (0, RESERVE_MS, "server")


def test_on_a_physical_clocks_reading_the_arbiter_rules_on_time(client) -> None:  # type: ignore[no-untyped-def]
    match = clocked_match()
    arbiter = arbiter_scoring(client, match)
    post(client, turns_url(match), {"number": 1, "kind": "opening", "dice": [3, 1]})
    post(client, turns_url(match), {**PLAY, "clock": [583_000, 2_000]})
    recorded_ago(match, 60)  # by the server's count Black's 2 s are long gone
    with pytest.raises(ValidationError) as refused:
        services.record_timeout(match, by=user_of(match, 0), loser=2)
    assert refused.value.code == "arbiter_rules_on_time"
    assert "the arbiter rules on a loss on time" in refused.value.messages[0]
    assert Match.objects.get(pk=match.pk).state == MatchState.PLAYING
    services.record_timeout(match, by=arbiter, loser=2)  # the arbiter's decision stands
    match.refresh_from_db()
    assert match.lost_on_time and match.result_status == "confirmed"


# --- The error shape of recording a turn (TurnErrorSerializer)


def assert_turn_error(response, status: int, code: str, turn: int | None) -> str:  # type: ignore[no-untyped-def]
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"code", "reason", "turn"}, body
    assert (body["code"], body["turn"]) == (code, turn)
    assert isinstance(body["reason"], str) and body["reason"]
    return str(body["reason"])


def test_field_errors_name_each_field_in_the_documented_shape(client) -> None:  # type: ignore[no-untyped-def]
    match = clocked_match()
    client.force_login(user_of(match, 0))
    url = turns_url(match)
    reason = assert_turn_error(
        post(client, url, {"number": "x", "kind": "fly", "dice": [7], "clock": [1]}),
        400,
        "invalid",
        None,
    )
    for where in ("number:", "kind:", "dice[0]:", "clock:"):
        assert where in reason, reason
    reason = assert_turn_error(post(client, url, {"number": 2, "dice": [0]}), 400, "invalid", 2)
    assert "kind: This field is required." in reason
    assert_turn_error(post(client, url, [1, 2]), 400, "invalid", None)
    assert_turn_error(post(client, url, {"number": 2**40, "kind": "double"}), 400, "invalid", None)
    assert not Turn.objects.exists()


def test_refusals_before_the_turn_is_read_have_the_same_shape(client) -> None:  # type: ignore[no-untyped-def]
    match = clocked_match()
    body = {"number": 1, "kind": "opening", "dice": [3, 1]}
    # No credentials: 401, asking for a token (clubs.authentication).
    assert_turn_error(post(client, turns_url(match), body), 401, "not_authenticated", None)
    client.force_login(UserFactory())
    reason = assert_turn_error(post(client, turns_url(match), body), 403, "permission_denied", None)
    assert reason == "You may not record turns of this match."
    client.force_login(user_of(match, 0))
    assert_turn_error(post(client, "/api/matches/999999/turns/", body), 404, "not_found", None)
    broken = client.post(turns_url(match), "{", content_type="application/json")
    assert_turn_error(broken, 400, "parse_error", None)
    assert not Turn.objects.exists()


def test_the_schema_documents_the_turn_error_shape(client) -> None:  # type: ignore[no-untyped-def]
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    error = schema["components"]["schemas"]["TurnError"]
    assert error["required"] == ["code", "reason", "turn"]
    assert error["properties"]["turn"]["nullable"] is True
    post_turn = schema["paths"]["/api/matches/{id}/turns/"]["post"]["responses"]
    for status in ("400", "403", "404", "409"):
        documented = post_turn[status]["content"]["application/json"]["schema"]
        # Other shapes may stand beside it (an Idempotency-Key's errors, idempotency.schema).
        refs = [documented.get("$ref")] + [s["$ref"] for s in documented.get("anyOf", [])]
        assert "#/components/schemas/TurnError" in refs, status
    turn = schema["components"]["schemas"]["Turn"]["properties"]
    assert {"clock_source", "clock_entered_by"} <= set(turn)
