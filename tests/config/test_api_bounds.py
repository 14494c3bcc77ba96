"""Every number a request carries is bounded, and every key is validated: a value
too large for its column or a key that does not convert is a 400, never a 500
(found by the Schemathesis run in tests/config/test_api_fuzz.py).

The class of bug is pinned on the OpenAPI schema: every integer of every request
body has a minimum and a maximum, and every object with free keys documents them
(``x-propertyNames``); the examples below pin that the server enforces them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from clubs.models import Role
from games.models import Match, ResultReport
from tests.factories import MatchFactory, UserFactory, grant
from tests.tournaments import builders
from tournaments.models import Entry

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)  # type: ignore[no-any-return]


def resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = schema["components"]["schemas"][name]
    return node


def request_schemas(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            for media_type, content in (body or {}).get("content", {}).items():
                yield f"{method.upper()} {path} ({media_type})", content["schema"]


def walk(schema: dict[str, Any], root: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every sub-schema a request may send (read-only properties left out), with its place."""
    stack: list[tuple[str, dict[str, Any]]] = [("", root)]
    seen: set[int] = set()
    while stack:
        where, node = stack.pop()
        node = resolve(schema, node)
        if id(node) in seen or node.get("readOnly"):
            continue
        seen.add(id(node))
        yield where, node
        for name, child in node.get("properties", {}).items():
            stack.append((f"{where}.{name}", child))
        for keyword in ("items", "additionalProperties"):
            if isinstance(node.get(keyword), dict):
                stack.append((f"{where}[]", node[keyword]))
        for keyword in ("oneOf", "anyOf", "allOf"):
            stack.extend((where, child) for child in node.get(keyword, []))


def test_every_integer_of_a_request_body_is_bounded(schema) -> None:  # type: ignore[no-untyped-def]
    unbounded = sorted(
        f"{operation} {where}"
        for operation, root in request_schemas(schema)
        for where, node in walk(schema, root)
        if node.get("type") == "integer"
        and "enum" not in node  # a choice is bounded by its list
        and not {"minimum", "maximum"} <= node.keys()
    )
    assert unbounded == []


def test_every_object_with_free_keys_documents_them(schema) -> None:  # type: ignore[no-untyped-def]
    free = sorted(
        f"{operation} {where}"
        for operation, root in request_schemas(schema)
        for where, node in walk(schema, root)
        if node.get("type") == "object"
        and node.get("additionalProperties") not in (None, False)
        and "x-propertyNames" not in node
    )
    assert free == []


def test_the_walk_finds_what_it_checks(schema) -> None:  # type: ignore[no-untyped-def]
    """The two checks above look at real request bodies (not an empty walk)."""
    places = {
        f"{operation} {where}": node
        for operation, root in request_schemas(schema)
        for where, node in walk(schema, root)
    }
    override = places["POST /api/matches/{id}/override/ (application/json) .score1"]
    assert (override["minimum"], override["maximum"]) == (0, 32767)
    seeds = places["POST /api/tournaments/{id}/seed/ (application/json) .seeds"]
    assert seeds["x-propertyNames"]["pattern"] == "^[1-9][0-9]{0,18}$"


# --- The server enforces them.


def send(client, url: str, body: object, method: str = "post"):  # type: ignore[no-untyped-def]
    return getattr(client, method)(
        url, json.dumps(body), content_type="application/json", HTTP_ACCEPT_LANGUAGE="en"
    )


@pytest.fixture
def organized_match(client):  # type: ignore[no-untyped-def]
    """A match to 3 and a client signed in as an organizer who may override it."""
    match = MatchFactory(recorded=False, length=3)
    organizer = UserFactory()
    grant(organizer, Role.FEDERATION_ADMIN, match.federation)
    client.force_login(organizer)
    return match


def test_an_override_beyond_the_score_column_is_a_400(client, organized_match) -> None:  # type: ignore[no-untyped-def]
    url = f"/api/matches/{organized_match.pk}/override/"
    response = send(client, url, {"score1": 78008, "score2": 0, "reason": "typo"})
    assert response.status_code == 400, response.content
    assert response.json()["score1"] == ["Ensure this value is less than or equal to 32767."]
    assert not ResultReport.objects.exists()


@pytest.mark.parametrize("field", ["score1", "score2"])
def test_a_score_above_the_match_length_is_a_400_naming_the_field(  # type: ignore[no-untyped-def]
    client, organized_match, field: str
) -> None:
    scores = {"score1": 0, "score2": 0, field: 40}
    url = f"/api/matches/{organized_match.pk}/override/"
    response = send(client, url, {**scores, "reason": "typo"})
    assert response.status_code == 400, response.content
    side = field[-1]
    assert response.json() == {
        field: [f"The score of player {side}, 40, is more than the match length, 3."]
    }
    assert not ResultReport.objects.exists()
    # The length itself is the winner's score.
    response = send(client, url, {**scores, field: 3, "reason": "typo"})
    assert response.status_code == 200, response.content


def test_a_player_s_report_above_the_match_length_is_a_400(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(recorded=False, length=5)
    client.force_login(match.player1.user)
    body = {"match": match.pk, "score1": 7, "score2": 2}
    response = send(client, "/api/reports/", body)
    assert response.status_code == 400, response.content
    assert "score1" in response.json() and "match length, 5" in response.json()["score1"][0]
    assert not ResultReport.objects.exists()


def test_a_money_session_s_score_is_bounded_by_its_column(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(recorded=False, length=0)
    client.force_login(match.player1.user)
    body = {"match": match.pk, "score1": 40000, "score2": 2}
    response = send(client, "/api/reports/", body)
    assert response.status_code == 400, response.content
    assert not ResultReport.objects.exists()


@pytest.mark.parametrize(
    "entry",
    [{"winner": 3, "points": 1}, {"winner": 1, "points": 10**6}, {"winner": 1, "points": "x"}, 7],
    ids=["winner", "points", "points-text", "not-an-object"],
)
def test_every_game_of_a_reported_log_is_checked(client, entry: object) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(recorded=False, length=1)
    client.force_login(match.player1.user)
    body = {"match": match.pk, "score1": 1, "score2": 0, "games": [entry]}
    response = send(client, "/api/reports/", body)
    assert response.status_code == 400, response.content
    assert "games" in response.json()
    assert not ResultReport.objects.exists()


def test_a_new_match_is_bounded_by_what_the_match_form_allows(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()  # for its players and discipline
    client.force_login(match.player1.user)
    body = {
        "player1": match.player1_id,
        "player2": match.player2_id,
        "discipline": match.discipline.code,
        "length": 5,
        "clock_mode": "delay",
        "clock_reserve_seconds": 2**31,  # past Turn.clock*_ms in milliseconds
        "clock_move_seconds": 12,
    }
    response = send(client, "/api/matches/", body)
    assert response.status_code == 400, response.content
    assert set(response.json()) == {"clock_reserve_seconds"}
    response = send(client, "/api/matches/", {**body, "clock_reserve_seconds": 600, "length": 100})
    assert set(response.json()) == {"length"}
    assert Match.objects.count() == 1


@pytest.fixture
def seeding(client):  # type: ignore[no-untyped-def]
    federation, admin, _discipline = builders.federation_with_admin()
    tournament = builders.tournament(
        3, "swiss", federation=federation, by=admin, start=False, rounds_planned=3
    )
    client.force_login(admin)
    return tournament


@pytest.mark.parametrize("key", ["x", "1.0", " 1", "0", "-1", "99999999999999999999"])
def test_seeds_with_a_key_that_is_no_entry_id_are_a_400_naming_the_key(  # type: ignore[no-untyped-def]
    client, seeding, key: str
) -> None:
    before = list(Entry.objects.order_by("pk").values_list("seed", flat=True))
    response = send(client, f"/api/tournaments/{seeding.pk}/seed/", {"seeds": {key: 1}})
    assert response.status_code == 400, response.content
    message = response.json()["seeds"][key][0]
    assert message.startswith(f"The key “{key}” is not valid: ")
    assert list(Entry.objects.order_by("pk").values_list("seed", flat=True)) == before


def test_seeds_by_entry_id_still_work(client, seeding) -> None:  # type: ignore[no-untyped-def]
    first, second, third = Entry.objects.filter(tournament=seeding).order_by("pk")
    seeds = {str(first.pk): 3, str(second.pk): 1, str(third.pk): 2}
    response = send(client, f"/api/tournaments/{seeding.pk}/seed/", {"seeds": seeds})
    assert response.status_code == 200, response.content
    assert Entry.objects.get(pk=second.pk).seed == 1
    too_big = send(
        client, f"/api/tournaments/{seeding.pk}/seed/", {"seeds": {str(first.pk): 2**31}}
    )
    assert too_big.status_code == 400 and str(first.pk) in too_big.json()["seeds"]


@pytest.mark.parametrize(
    ("lengths", "where"),
    [
        ({"main": 78008}, "main"),
        ({"main": {"x": 9}}, "main"),
        ({"main": {"final": 0}}, "main"),
        ({"Main Flight": 9}, "Main Flight"),
    ],
)
def test_match_lengths_check_every_key_and_length(client, seeding, lengths, where: str) -> None:  # type: ignore[no-untyped-def]
    url = f"/api/tournaments/{seeding.pk}/"
    response = send(client, url, {"match_lengths": lengths}, "patch")
    assert response.status_code == 400, response.content
    assert where in response.json()["match_lengths"]
    seeding.refresh_from_db()
    assert seeding.match_lengths != lengths


def test_a_flight_longer_than_its_column_is_a_400(client, seeding) -> None:  # type: ignore[no-untyped-def]
    response = send(client, f"/api/tournaments/{seeding.pk}/pair/", {"flight": "f" * 21})
    assert response.status_code == 400, response.content
    assert "flight" in response.json()


HUGE = 2**63  # one past the largest id a BigAutoField holds


@pytest.mark.parametrize(
    "url",
    [
        f"/api/matches/{HUGE}/",
        f"/api/tournaments/{HUGE}/",
        f"/api/players/{HUGE * 10**6}/",
        f"/api/rating-lists/{HUGE}/",
    ],
)
def test_a_huge_id_is_not_found(client, url: str) -> None:  # type: ignore[no-untyped-def]
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("page", [HUGE, "9" * 5000, 0, -1, "x", "last"])
def test_a_page_number_outside_its_range_is_a_400_naming_it(client, page: object) -> None:  # type: ignore[no-untyped-def]
    response = client.get("/api/players/", {"page": page}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400, response.content
    assert set(response.json()) == {"page"}


def test_every_integer_of_a_query_string_is_bounded(schema) -> None:  # type: ignore[no-untyped-def]
    """Ids, page numbers and sizes, round numbers: each has a minimum and a maximum."""
    checked, unbounded = 0, []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                node = resolve(schema, parameter.get("schema", {}))
                if parameter["in"] != "query" or node.get("type") != "integer":
                    continue
                checked += 1
                if "enum" not in node and not {"minimum", "maximum"} <= node.keys():
                    unbounded.append(f"{method.upper()} {path} ?{parameter['name']}")
    assert checked >= 50, "the walk found no integer parameters"
    assert unbounded == []


@pytest.mark.parametrize(
    "query",
    [
        f"/api/tournaments/?club={HUGE}",
        f"/api/matches/?player={HUGE}",
        f"/api/players/?birth_year_min={HUGE}",
        f"/api/pairings/?entry={-HUGE * 2}",
        f"/api/reports/?match={HUGE}",
        f"/api/memberships/?club={'9' * 5000}",
    ],
)
def test_a_huge_number_in_a_filter_is_a_400_or_nothing_found(client, query: str) -> None:  # type: ignore[no-untyped-def]
    response = client.get(query)
    assert response.status_code in (200, 400), response.content
    if response.status_code == 200:
        assert response.json()["results"] == []


def test_a_huge_id_in_a_body_is_refused_as_unknown(client, seeding) -> None:  # type: ignore[no-untyped-def]
    for body in (
        {"match": HUGE, "score1": 1, "score2": 0},
        {"match": "²", "score1": 1, "score2": 0},
    ):
        response = send(client, "/api/reports/", body)
        assert response.status_code == 400, response.content
        assert "match" in response.json()


# --- The pages: numbers read from the query string or a form are checked too.


def test_the_board_s_state_ignores_a_since_that_is_no_turn_number(client) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory()
    client.force_login(match.player1.user)
    for since in ("9" * 5000, "²", "99999999999999999999"):  # int() refuses the first two
        response = client.get(f"/matches/{match.pk}/state.json", {"since": since})
        assert response.status_code == 200
        assert response.json()["since"] is None


def test_a_match_length_row_refuses_a_round_that_is_no_number() -> None:
    from tournaments.forms import LengthRowForm

    form = LengthRowForm(data={"flight": "main", "round": "²", "length": 9})
    assert not form.is_valid()
    assert "round" in form.errors


@pytest.mark.parametrize(
    "query", ["club=²", "club=99999999999999999999999", "membership=current&club=²"]
)
def test_the_admin_s_club_filters_take_any_value(admin_client, query: str) -> None:  # type: ignore[no-untyped-def]
    for page in ("/admin/clubs/membership/", "/admin/clubs/player/"):
        assert admin_client.get(f"{page}?{query}").status_code in (200, 302)
