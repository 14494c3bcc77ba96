"""Every list of the API comes in numbered pages of a bounded size (base.pagination):
100 rows unless ``page_size`` asks for 1 to 500, a page past the last is a 404
saying which pages exist, and the OpenAPI schema describes exactly that.  The
rows a document carries (a standings table) are paged the same way."""

from __future__ import annotations

from typing import Any

import pytest

from base.pagination import MAX_PAGE_SIZE, PAGE_SIZE
from clubs.models import Player
from tests.factories import FederationFactory, PlayerFactory
from tests.tournaments import builders
from tests.tournaments.builders import play_round
from tournaments import services

pytestmark = pytest.mark.django_db


def get(client: Any, url: str, status: int = 200, **params: object) -> Any:
    response = client.get(url, params, HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == status, response.content
    return response.json()


@pytest.fixture
def players() -> list[int]:
    """MAX_PAGE_SIZE + 1 players of one public federation, their ids in the list's order."""
    federation = FederationFactory()
    built = PlayerFactory.build_batch(MAX_PAGE_SIZE + 1, federation=federation)
    Player.objects.bulk_create(built)
    return list(Player.objects.order_by("name_latin", "id").values_list("pk", flat=True))


def test_a_page_holds_a_hundred_rows_unless_asked(client, players: list[int]) -> None:  # type: ignore[no-untyped-def]
    first = get(client, "/api/players/")
    assert set(first) == {"count", "next", "previous", "results"}
    assert first["count"] == MAX_PAGE_SIZE + 1
    assert [row["id"] for row in first["results"]] == players[:PAGE_SIZE] and PAGE_SIZE == 100
    assert first["previous"] is None
    assert first["next"].endswith("/api/players/?page=2")
    second = get(client, "/api/players/", page=2)
    assert [row["id"] for row in second["results"]] == players[PAGE_SIZE : 2 * PAGE_SIZE]
    assert second["previous"].endswith("/api/players/")  # page 1 has no number
    assert get(client, "/api/players/", page=6)["results"][0]["id"] == players[500]


def test_a_page_size_is_asked_up_to_five_hundred(client, players: list[int]) -> None:  # type: ignore[no-untyped-def]
    largest = get(client, "/api/players/", page_size=MAX_PAGE_SIZE)
    assert len(largest["results"]) == MAX_PAGE_SIZE == 500
    assert largest["next"].endswith("/api/players/?page=2&page_size=500")
    assert len(get(client, "/api/players/", page_size=1, page=3)["results"]) == 1
    last = get(client, "/api/players/", page_size=MAX_PAGE_SIZE, page=2)
    assert [row["id"] for row in last["results"]] == players[500:]
    assert last["next"] is None


@pytest.mark.parametrize("size", [0, -1, MAX_PAGE_SIZE + 1, 10**30, "x", "1.5"])
def test_a_page_size_out_of_its_range_is_a_400_naming_it(client, size: object) -> None:  # type: ignore[no-untyped-def]
    response = get(client, "/api/tournaments/", status=400, page_size=size)
    assert set(response) == {"page_size"}


def test_a_page_past_the_last_is_a_404_saying_which_pages_exist(client) -> None:  # type: ignore[no-untyped-def]
    PlayerFactory.create_batch(3)
    body = get(client, "/api/players/", status=404, page=3, page_size=2)
    assert body == {"detail": "There is no page 3: the pages are 1 to 2."}
    # An empty list still has its first page.
    empty = get(client, "/api/tournaments/")
    assert empty == {"count": 0, "next": None, "previous": None, "results": []}
    assert get(client, "/api/tournaments/", status=404, page=2)["detail"].startswith(
        "There is no page 2"
    )


# --- The schema says so, on every list


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)  # type: ignore[no-any-return]


def _list_operations(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The GET operations whose answer is an array or a page of one."""
    found = {}
    for path, operations in schema["paths"].items():
        operation = operations.get("get")
        if operation is None:
            continue
        body = operation["responses"]["200"]["content"]["application/json"]["schema"]
        name = body.get("$ref", "").rsplit("/", 1)[-1]
        if body.get("type") == "array" or name.startswith("Paginated"):
            found[path] = operation
    return found


def test_every_list_is_paged_in_the_schema(schema) -> None:  # type: ignore[no-untyped-def]
    lists = _list_operations(schema)
    assert len(lists) >= 18, sorted(lists)
    unpaged = {
        path
        for path, operation in lists.items()
        if not operation["responses"]["200"]["content"]["application/json"]["schema"]
        .get("$ref", "")
        .startswith("#/components/schemas/Paginated")
    }
    # The bracket is one drawing (its columns), not a list of rows.
    assert unpaged == {"/api/tournaments/{id}/bracket/"}
    for path, operation in lists.items():
        if path in unpaged:
            continue
        parameters = {p["name"]: p["schema"] for p in operation["parameters"] if p["in"] == "query"}
        assert parameters["page"]["minimum"] == 1, path
        assert (parameters["page_size"]["minimum"], parameters["page_size"]["maximum"]) == (
            1,
            MAX_PAGE_SIZE,
        ), path


def test_a_page_is_described_with_its_four_keys(schema) -> None:  # type: ignore[no-untyped-def]
    page = schema["components"]["schemas"]["PaginatedPlayerList"]
    assert page["required"] == ["count", "next", "previous", "results"]
    assert page["properties"]["next"]["nullable"] is True
    assert page["properties"]["results"]["items"] == {"$ref": "#/components/schemas/Player"}


@pytest.mark.parametrize("path", ["/api/tournaments/{id}/standings/", "/api/standings/{id}/"])
def test_a_standings_document_pages_its_rows_in_the_schema(schema, path: str) -> None:  # type: ignore[no-untyped-def]
    operation = schema["paths"][path]["get"]
    names = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
    assert names == {"page", "page_size", "flight", "player", "entry"}
    body = operation["responses"]["200"]["content"]["application/json"]["schema"]
    document = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]
    rows = schema["components"]["schemas"][document["properties"]["rows"]["$ref"].rsplit("/")[-1]]
    assert set(rows["properties"]) == {"count", "next", "previous", "results"}


def test_the_write_answers_that_return_lists_are_documented_as_lists(schema) -> None:  # type: ignore[no-untyped-def]
    """They answer with the whole list they wrote, not a page: the schema says an array."""
    for path in (
        "/api/tournaments/{id}/seed/",
        "/api/tournaments/{id}/qualifiers/",
        "/api/rounds/{id}/pairings/",
    ):
        operation = schema["paths"][path]["post"]
        body = operation["responses"]["200"]["content"]["application/json"]["schema"]
        assert body["type"] == "array", path
        assert "page" not in {p["name"] for p in operation.get("parameters", [])}, path


def test_search_is_offered_only_where_it_searches(schema) -> None:  # type: ignore[no-untyped-def]
    searching = {
        path
        for path, operations in schema["paths"].items()
        for operation in operations.values()
        if "search" in {p["name"] for p in operation.get("parameters", [])}
    }
    assert searching == {
        "/api/federations/",
        "/api/clubs/",
        "/api/players/",
        "/api/tournaments/",
    }


# --- A standings table's rows


@pytest.fixture
def standings(client):  # type: ignore[no-untyped-def]
    """A 12-player Swiss after one round, its standings published."""
    federation, admin, _ = builders.federation_with_admin()
    t = builders.tournament(12, "swiss", federation=federation, by=admin, rounds_planned=3)
    play_round(services.pair_next_round(t, by=admin), admin)
    snapshot = services.compute_standings(t)
    services.publish_standings(snapshot, by=admin)
    snapshot.refresh_from_db()
    return t, snapshot


def test_standings_rows_come_a_page_at_a_time(client, standings) -> None:  # type: ignore[no-untyped-def]
    t, snapshot = standings
    for url in (f"/api/tournaments/{t.pk}/standings/", f"/api/standings/{snapshot.pk}/"):
        whole = get(client, url)
        assert whole["after_round"] == 1 and "tie_breaks" in whole
        assert whole["rows"]["count"] == 12 and whole["rows"]["results"] == snapshot.rows
        page = get(client, url, page_size=5, page=2)["rows"]
        assert page["results"] == snapshot.rows[5:10]
        assert "page=3" in page["next"] and "page_size=5" in page["next"]
        get(client, url, status=404, page=4, page_size=5)


def test_standings_rows_narrowed_to_a_player_an_entry_or_a_flight(client, standings) -> None:  # type: ignore[no-untyped-def]
    t, snapshot = standings
    url = f"/api/tournaments/{t.pk}/standings/"
    row = snapshot.rows[7]
    assert get(client, url, player=row["player"])["rows"]["results"] == [row]
    assert get(client, url, entry=row["entry"])["rows"]["results"] == [row]
    assert get(client, url, flight=row["flight"])["rows"]["count"] == 12
    assert get(client, url, flight="nope")["rows"]["count"] == 0
    assert set(get(client, url, status=400, player="x")) == {"player"}


def test_the_list_of_snapshots_carries_no_rows(client, standings) -> None:  # type: ignore[no-untyped-def]
    t, snapshot = standings
    (listed,) = get(client, "/api/standings/", tournament=t.pk)["results"]
    assert listed["id"] == snapshot.pk and "rows" not in listed


@pytest.mark.parametrize("size", [4, 24])
def test_a_standings_page_is_a_fixed_number_of_queries(  # type: ignore[no-untyped-def]
    client, django_assert_num_queries, size: int
) -> None:
    federation, admin, _ = builders.federation_with_admin()
    t = builders.tournament(size, "swiss", federation=federation, by=admin, rounds_planned=2)
    play_round(services.pair_next_round(t, by=admin), admin)
    services.publish_standings(services.compute_standings(t), by=admin)
    # the tournament; the snapshot (its rows are one column)
    with django_assert_num_queries(2):
        payload = get(client, f"/api/tournaments/{t.pk}/standings/", page_size=3)
    assert payload["rows"]["count"] == size and len(payload["rows"]["results"]) == 3
    # the count, the page (no rows read)
    with django_assert_num_queries(2):
        assert get(client, "/api/standings/")["count"] == 1
