"""A NUL character in a request is a 400/401, never a 500 (PostgreSQL refuses it
in text; found by the Schemathesis run in tests/config/test_api_fuzz.py)."""

from __future__ import annotations

import base64
import json
from urllib.parse import urlencode

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from games.models import Match, ResultReport, Turn
from tests.factories import MatchFactory, UserFactory
from tests.world import World
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def basic(userid: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{userid}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


@pytest.mark.parametrize(("userid", "password"), [("a\x00b", "x"), ("someone", "pass\x00word")])
def test_basic_credentials_with_a_nul_are_refused_as_wrong(
    client, settings, userid, password
) -> None:
    settings.API_BASIC_AUTH = True  # off by default (tests/clubs/test_api_tokens.py)
    response = client.post("/api/memberships/", {}, headers=basic(userid, password))
    # 401 as for any wrong password; before the fix PostgreSQL made it 500.
    assert response.status_code == 401, response.content
    assert response.json()["detail"] == "Incorrect authentication credentials."


def test_good_basic_credentials_still_work(client, settings) -> None:
    settings.API_BASIC_AUTH = True
    UserFactory(username="real")
    response = client.get("/api/reports/", headers=basic("real", "correct-horse-battery"))
    assert response.status_code == 200


@pytest.mark.parametrize("query", ["search=a%00b", "ordering=%00", "a%00=1", "page=1&search=%00"])
def test_a_nul_in_the_query_string_is_a_400(client, query: str) -> None:
    response = client.get(f"/api/players/?{query}", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert "NUL character" in response.json()["detail"]


def test_a_nul_in_the_path_is_a_400(client) -> None:
    response = client.get("/api/players/%00/")
    assert response.status_code == 400


# --- A NUL in the body, whatever field would read it (base.nul.RefuseNulCharacters).
# PostgreSQL refuses it in text: a slug, related, choice or dict-key field, which
# do not refuse it themselves, would hand it to a query (DataError, 500 there).


def send_json(client, url: str, body: object, method: str = "post"):  # type: ignore[no-untyped-def]
    return getattr(client, method)(
        url, json.dumps(body), content_type="application/json", HTTP_ACCEPT_LANGUAGE="en"
    )


def match_body(world: World, **changes: object) -> dict[str, object]:
    """A new match of the world's player with an account against its member."""
    return {
        "player1": world.linked_player.pk,
        "player2": world.member.pk,
        "discipline": world.discipline.code,
        "length": 5,
        **changes,
    }


def test_a_nul_in_the_discipline_of_a_new_match_is_a_400(client, world) -> None:  # type: ignore[no-untyped-def]
    client.force_login(world.linked_player.user)
    body = match_body(world, discipline="short\x00standard")
    response = send_json(client, "/api/matches/", body)
    assert response.status_code == 400, response.content
    assert response.json()["detail"] == (
        "The value of “discipline” holds a NUL character, which no value may contain."
    )
    assert not Match.objects.exists()
    # The same body without it is a match: the refusal was the NUL's.
    assert send_json(client, "/api/matches/", match_body(world)).status_code == 201


def test_a_nul_in_the_discipline_of_a_tournament_is_a_400(client, world) -> None:  # type: ignore[no-untyped-def]
    client.force_login(world.fed_admin)
    body = {
        "name": "Кубок",
        "federation": world.federation.pk,
        "discipline": "\x00",
        "format": "swiss",
        "rounds_planned": 5,
    }
    response = send_json(client, "/api/tournaments/", body)
    assert response.status_code == 400, response.content
    assert "“discipline”" in response.json()["detail"]
    assert not Tournament.objects.exists()
    created = send_json(client, "/api/tournaments/", {**body, "discipline": world.discipline.code})
    assert created.status_code == 201, created.content
    tournament_id = created.json()["id"]
    changed = send_json(
        client, f"/api/tournaments/{tournament_id}/", {"discipline": "a\x00"}, "patch"
    )
    assert changed.status_code == 400, changed.content
    assert "“discipline”" in changed.json()["detail"]
    tournament = Tournament.objects.get(pk=tournament_id)
    assert tournament.discipline == world.discipline


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"reason": "x", "score1": 3, "note": "a\x00"}, "The value of “note”"),
        ({"reason": "x", "a\x00b": 1}, "The name “a\\u0000b”"),
        (
            {"games": [{"winner": 1}, {"result": ["ok", "g\x00"]}]},
            "The value of “games[1].result[1]”",
        ),
        ({"match": {"deep": {"deeper": "\x00"}}}, "The value of “match.deep.deeper”"),
        ("\x00", "The request body holds"),
    ],
    ids=["value", "key", "nested-list", "nested-object", "whole-body"],
)
def test_a_nul_anywhere_in_a_json_body_is_a_400_naming_where(client, body, where: str) -> None:  # type: ignore[no-untyped-def]
    client.force_login(UserFactory())
    response = send_json(client, "/api/reports/", body)
    assert response.status_code == 400, response.content
    assert response.json()["detail"].startswith(where)
    assert not ResultReport.objects.exists()


def test_an_escaped_backslash_before_u0000_is_no_nul(client) -> None:  # type: ignore[no-untyped-def]
    """The text ``\\u0000`` (a backslash, then u0000) is six ordinary characters."""
    match = MatchFactory(recorded=False, length=3)
    client.force_login(match.player1.user)
    body = json.dumps({"match": match.pk, "score1": 3, "score2": 0, "mat_text": "\\u0000"})
    assert json.loads(body)["mat_text"] == "\\u0000"
    response = client.post("/api/reports/", body, content_type="application/json")
    # The request reaches the serializer, which says what it thinks of the text.
    assert "NUL" not in response.content.decode()
    assert response.status_code in (201, 400), response.content


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("ru", "В адресе есть символ NUL, которого не может быть ни в одном значении."),
        ("en", "The address holds a NUL character, which no value may contain."),
    ],
)
def test_the_refusal_speaks_the_request_s_language(client, language: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    """The middleware runs before LocaleMiddleware: it picks the language itself."""
    response = client.get("/api/players/?search=%00", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 400
    assert response.json()["detail"] == expected


def test_a_nul_in_an_urlencoded_web_form_is_a_plain_400(client, world) -> None:  # type: ignore[no-untyped-def]
    client.force_login(world.linked_player.user)
    data = {
        "player1": world.linked_player.pk,
        "player2": world.member.pk,
        "discipline": "1\x00",
        "length": 5,
        "clock_mode": "none",
    }
    response = client.post("/matches/new/", data, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert "“discipline”" in response.content.decode()
    assert not Match.objects.exists()


def test_a_nul_in_the_sign_in_form_is_a_400(client) -> None:  # type: ignore[no-untyped-def]
    UserFactory(username="real")
    response = client.post(
        "/accounts/login/", {"username": "real\x00", "password": "correct-horse-battery"}
    )
    assert response.status_code == 400
    assert "_auth_user_id" not in client.session


def test_a_nul_in_a_urlencoded_api_patch_is_a_400(client, world) -> None:  # type: ignore[no-untyped-def]
    tournament = world.draft_swiss
    client.force_login(world.fed_admin)
    response = client.patch(
        f"/api/tournaments/{tournament.pk}/",
        urlencode({"discipline": "x\x00"}),
        content_type="application/x-www-form-urlencoded",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 400, response.content
    assert "“discipline”" in response.json()["detail"]
    tournament.refresh_from_db()
    assert tournament.discipline == world.discipline


def test_a_nul_in_a_multipart_field_is_a_400_and_files_are_left_alone(client, world) -> None:  # type: ignore[no-untyped-def]
    client.force_login(world.linked_player.user)
    upload = SimpleUploadedFile(
        "match.mat", b"\x00 binary \x00 content", "application/octet-stream"
    )
    data = {**match_body(world, discipline="short\x00"), "attachment": upload}
    response = client.post("/api/matches/", data, HTTP_ACCEPT_LANGUAGE="en")  # multipart
    assert response.status_code == 400, response.content
    assert "“discipline”" in response.json()["detail"]
    assert not Match.objects.exists()
    # A NUL in a file's content is the file's business, not a field's.
    upload = SimpleUploadedFile(
        "match.mat", b"\x00 binary \x00 content", "application/octet-stream"
    )
    response = client.post("/api/matches/", {**match_body(world), "attachment": upload})
    assert response.status_code == 201, response.content


def test_a_nul_in_a_multipart_patch_is_a_400(client, world) -> None:  # type: ignore[no-untyped-def]
    """DRF parses a multipart PATCH itself (base.parsers.MultiPartParser checks it)."""
    tournament = world.draft_swiss
    client.force_login(world.fed_admin)
    response = client.patch(
        f"/api/tournaments/{tournament.pk}/",
        encode_multipart(BOUNDARY, {"discipline": "x\x00"}),
        content_type=MULTIPART_CONTENT,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 400, response.content
    assert "“discipline”" in response.json()["detail"]
    tournament.refresh_from_db()
    assert tournament.discipline == world.discipline


def test_the_board_s_json_post_gets_a_json_refusal(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    client.force_login(match.player1.user)
    response = send_json(
        client, f"/matches/{match.pk}/turns/", {"number": 1, "kind": "open\x00ing"}
    )
    assert response.status_code == 400
    assert "“kind”" in response.json()["detail"]
    assert not Turn.objects.exists()


def test_a_nul_in_an_api_turn_is_refused_in_the_turn_error_shape(client) -> None:  # type: ignore[no-untyped-def]
    """The API refuses it in its parsers, so each view words it as it documents its
    errors: recording a turn answers {code, reason, turn}."""
    match = MatchFactory()
    client.force_login(match.player1.user)
    response = send_json(
        client, f"/api/matches/{match.pk}/turns/", {"number": 1, "kind": "opening\x00"}
    )
    assert response.status_code == 400, response.content
    body = response.json()
    assert set(body) == {"code", "reason", "turn"}
    assert "“kind”" in body["reason"]
    assert not Turn.objects.exists()
