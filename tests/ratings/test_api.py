"""The ratings REST API: pools, published lists with paginated entries, a
player's history; read only, public federations for everyone; constant query
counts; documented in the OpenAPI schema."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import pytest

from clubs.models import RatingSystem, Role
from ratings.models import RatingChange, RatingList, RatingPool
from tests.factories import FederationFactory, PlayerFactory, UserFactory, grant
from tests.ratings.pages_data import make_history, make_list, make_pool, make_ratings
from tests.world import World

pytestmark = pytest.mark.django_db

JAN = datetime.date(2024, 1, 31)
FEB = datetime.date(2024, 2, 29)


def get(client, url: str, status: int = 200, **params: object):  # type: ignore[no-untyped-def]
    response = client.get(url, params, HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == status, response.content
    return response.json()


@dataclass
class Pools:
    short: RatingPool  # of the world's public federation: lists of January and February, a draft
    long: RatingPool  # of the public federation, Glicko-2, no list
    hidden: RatingPool  # of the world's private federation, one list
    latest: RatingList  # short's list of February


@pytest.fixture
def pools(world: World) -> Pools:
    public = world.federation
    short = make_pool(public)
    long = make_pool(public, code="long-standard", name="Long nardy", system=RatingSystem.GLICKO2)
    hidden = make_pool(world.other_federation)
    players = [r.player for r in make_ratings(short, 3)]
    make_list(short, JAN, [{"player": p, "rating": 1500 + i} for i, p in enumerate(players)])
    latest = make_list(short, FEB, [{"player": players[0], "rating": 1600, "change": 100}])
    make_list(short, datetime.date(2024, 3, 31), [], published=False)
    make_list(hidden, JAN, [])
    return Pools(short=short, long=long, hidden=hidden, latest=latest)


def test_pools_are_listed_with_their_latest_list(client, world, pools) -> None:
    payload = get(client, "/api/rating-pools/")
    assert {row["id"] for row in payload["results"]} == {pools.short.pk, pools.long.pk}
    short = next(row for row in payload["results"] if row["id"] == pools.short.pk)
    assert short == {
        "id": pools.short.pk,
        "federation": world.federation.pk,
        "federation_slug": world.federation.slug,
        "federation_name": "Public Federation",
        "discipline": "short-standard",
        "discipline_name": "Short nardy",
        "rating_system": "fibs",
        "initial_rating": 1500.0,
        "computed_at": None,
        "latest_list": pools.latest.pk,
        "latest_list_date": "2024-02-29",
    }
    long = get(client, f"/api/rating-pools/{pools.long.pk}/")
    assert long["rating_system"] == "glicko2" and long["latest_list"] is None
    assert get(client, "/api/rating-pools/", discipline="long-standard")["count"] == 1
    assert get(client, "/api/rating-pools/", federation=world.federation.pk)["count"] == 2
    assert get(client, "/api/rating-pools/", federation_slug="nope")["count"] == 0
    get(client, f"/api/rating-pools/{pools.hidden.pk}/", status=404)


def test_hidden_pools_are_read_by_their_federations_admins(client, pools) -> None:
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, pools.hidden.rated_discipline.federation)
    client.force_login(admin)
    assert get(client, "/api/rating-pools/")["count"] == 3
    assert get(client, f"/api/rating-pools/{pools.hidden.pk}/lists/")["count"] == 1


def test_a_pools_published_lists_latest_first(client, pools) -> None:
    payload = get(client, f"/api/rating-pools/{pools.short.pk}/lists/")
    assert [(r["date"], r["entry_count"]) for r in payload["results"]] == [
        ("2024-02-29", 1),
        ("2024-01-31", 3),
    ]
    assert payload["results"][0]["published_at"] is not None
    get(client, f"/api/rating-pools/{pools.hidden.pk}/lists/", status=404)
    assert get(client, "/api/rating-lists/", pool=pools.short.pk)["count"] == 2
    assert get(client, "/api/rating-lists/")["count"] == 2  # no drafts, no hidden lists


def test_a_list_with_its_entries_paginated(client) -> None:
    pool = make_pool()
    ratings = make_ratings(pool, 60)
    rating_list = make_list(
        pool,
        JAN,
        [
            {"player": r.player, "rating": r.rating, "provisional": i == 0, "change": 1.5}
            for i, r in enumerate(ratings)
        ],
    )
    assert len(get(client, f"/api/rating-lists/{rating_list.pk}/")["entries"]["results"]) == 60
    payload = get(client, f"/api/rating-lists/{rating_list.pk}/", page_size=50)
    assert payload["id"] == rating_list.pk and payload["date"] == "2024-01-31"
    assert payload["pool"] == pool.pk and payload["entry_count"] == 60
    entries = payload["entries"]
    assert entries["count"] == 60 and len(entries["results"]) == 50
    assert entries["next"].endswith(f"/api/rating-lists/{rating_list.pk}/?page=2&page_size=50")
    first = entries["results"][0]
    player = ratings[0].player
    assert first == {
        "rank": 1,
        "player": {
            "id": player.pk,
            "name_native": player.name_native,
            "name_latin": player.name_latin,
        },
        "rating": 1600.0,
        "experience": 500,
        "rd": None,
        "matches": 10,
        "provisional": True,
        "change": 1.5,
    }
    page2 = get(client, f"/api/rating-lists/{rating_list.pk}/", page=2, page_size=50)["entries"]
    assert [e["rank"] for e in page2["results"]] == list(range(51, 61))


def test_a_list_s_entries_narrowed_to_a_player_or_a_name(client) -> None:
    pool = make_pool()
    ratings = make_ratings(pool, 12)
    rating_list = make_list(pool, JAN, [{"player": r.player, "rating": r.rating} for r in ratings])
    url = f"/api/rating-lists/{rating_list.pk}/"
    tenth = ratings[9].player
    (found,) = get(client, url, player=tenth.pk)["entries"]["results"]
    assert (found["rank"], found["player"]["id"]) == (10, tenth.pk)  # the list's rank, kept
    by_name = get(client, url, name=tenth.name_latin)["entries"]["results"]
    assert tenth.pk in {e["player"]["id"] for e in by_name}
    by_native = get(client, url, name=tenth.name_native)["entries"]["results"]
    assert {e["player"]["id"] for e in by_native} == {e["player"]["id"] for e in by_name}
    assert get(client, url, name="nobody-is-called-this")["entries"]["count"] == 0
    assert client.get(url, {"player": "x"}).status_code == 400


def test_rating_lists_filtered_by_federation_discipline_and_date(client, pools) -> None:
    short = pools.short.rated_discipline
    assert get(client, "/api/rating-lists/", discipline=short.discipline.code)["count"] == 2
    assert get(client, "/api/rating-lists/", federation=short.federation_id)["count"] == 2
    dates = sorted(r["date"] for r in get(client, "/api/rating-lists/")["results"])
    assert get(client, "/api/rating-lists/", date_from=dates[-1])["count"] == 1
    assert get(client, "/api/rating-lists/", date_to=dates[0])["count"] == 1
    assert client.get("/api/rating-lists/", {"date_from": "2024-02-30"}).status_code == 400


def test_drafts_and_hidden_lists_are_not_found(client, pools) -> None:
    draft = pools.short.lists.get(published_at__isnull=True)
    get(client, f"/api/rating-lists/{draft.pk}/", status=404)
    hidden = pools.hidden.lists.get()
    get(client, f"/api/rating-lists/{hidden.pk}/", status=404)


def test_a_players_rating_history(client) -> None:
    pool = make_pool()
    other = make_pool(pool.rated_discipline.federation, code="long-standard", name="Long")
    player = PlayerFactory(federation=pool.rated_discipline.federation)
    opponent = PlayerFactory(federation=player.federation)
    changes = make_history(pool, player, 3, opponents=[opponent])
    make_history(other, player, 2)
    payload = get(client, f"/api/players/{player.pk}/rating-history/", pool=pool.pk)
    assert payload["count"] == 3
    first = payload["results"][0]
    assert first["pool"] == pool.pk and first["match"] == changes[0].match_id
    assert first["opponent"] == {
        "id": opponent.pk,
        "name_native": opponent.name_native,
        "name_latin": opponent.name_latin,
    }
    assert first["match_length"] == 5 and first["result"] == "won"
    assert (first["rating_before"], first["rating_after"], first["change"]) == (1500, 1510, 10)
    assert (first["experience_before"], first["experience_after"]) == (0, 5)
    assert first["played_at"].startswith("2024-01-06")
    assert payload["results"][1]["result"] == "lost"
    assert get(client, f"/api/players/{player.pk}/rating-history/")["count"] == 5


def test_glicko_period_rows_have_no_single_opponent(client) -> None:
    pool = make_pool(system=RatingSystem.GLICKO2)
    player = PlayerFactory(federation=pool.rated_discipline.federation)
    (change,) = make_history(pool, player, 1)
    RatingChange.objects.filter(pk=change.pk).update(
        matches=3, period=640, rd_before=200.0, rd_after=151.5
    )
    (row,) = get(client, f"/api/players/{player.pk}/rating-history/")["results"]
    assert row["matches"] == 3 and row["period"] == 640
    assert row["opponent"] is None and row["result"] is None and row["match_length"] is None
    assert (row["rd_before"], row["rd_after"]) == (200.0, 151.5)


def test_history_of_hidden_or_unknown_players(client) -> None:
    hidden = make_pool(FederationFactory(is_public=False))
    player = PlayerFactory(federation=hidden.rated_discipline.federation)
    make_history(hidden, player, 2)
    get(client, f"/api/players/{player.pk}/rating-history/", status=404)
    get(client, "/api/players/999999/rating-history/", status=404)
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, hidden.rated_discipline.federation)
    client.force_login(admin)
    assert get(client, f"/api/players/{player.pk}/rating-history/")["count"] == 2


def test_the_api_is_read_only(client, pools) -> None:
    client.force_login(UserFactory(is_superuser=True))
    response = client.post("/api/rating-pools/", {}, content_type="application/json")
    assert response.status_code == 405
    response = client.delete(f"/api/rating-lists/{pools.latest.pk}/")
    assert response.status_code == 405


@pytest.mark.parametrize("size", [5, 50])
def test_query_counts_are_constant(client, django_assert_num_queries, size) -> None:
    federation = FederationFactory()
    pools = [make_pool(federation)] + [
        make_pool(federation, code=f"d{n}", name=f"D{n}") for n in range(size // 5)
    ]
    rating_list = make_list(
        pools[0],
        JAN,
        [{"player": r.player, "rating": r.rating} for r in make_ratings(pools[0], size)],
    )
    player = PlayerFactory(federation=federation)
    make_history(pools[0], player, size)
    # a page: the count and the rows
    with django_assert_num_queries(2):
        assert get(client, "/api/rating-pools/")["count"] == len(pools)
    with django_assert_num_queries(3):  # + the pool
        get(client, f"/api/rating-pools/{pools[0].pk}/lists/")
    with django_assert_num_queries(3):  # the list, the entries' count and page
        payload = get(client, f"/api/rating-lists/{rating_list.pk}/")
    assert len(payload["entries"]["results"]) == min(size, 50)
    with django_assert_num_queries(3):  # + the player
        payload = get(client, f"/api/players/{player.pk}/rating-history/")
    assert len(payload["results"]) == min(size, 50)


def test_endpoints_are_in_the_openapi_schema(client) -> None:
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = response.json()
    paths = schema["paths"]
    for path in (
        "/api/rating-pools/",
        "/api/rating-pools/{id}/",
        "/api/rating-pools/{id}/lists/",
        "/api/rating-lists/",
        "/api/rating-lists/{id}/",
        "/api/players/{player_pk}/rating-history/",
    ):
        assert "get" in paths[path], path
    detail = paths["/api/rating-lists/{id}/"]["get"]
    ref = detail["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    component = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert "entries" in component["properties"]
    history = paths["/api/players/{player_pk}/rating-history/"]["get"]
    assert "pool" in {parameter["name"] for parameter in history["parameters"]}
