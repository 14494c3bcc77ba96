"""Rating lists sized for people: a pool's list and each published list page 100
rows at a time and search by name or club, each page rendered once per version
of the list and answered with 304 to a reload whose ETag still holds."""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import reverse

from clubs.models import Player, RatingSystem, Role
from ratings import services
from ratings.models import PlayerRating, RatingListEntry, RatingPool
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory, UserFactory, grant
from tests.ratings.pages_data import finished_match, make_list, make_pool

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
RU = {"HTTP_ACCEPT_LANGUAGE": "ru"}
JAN = datetime.date(2024, 1, 31)
FEB = datetime.date(2024, 2, 29)
RANK = re.compile(r'<tr>\s*<td class="num">(\d+)</td>')


def bulk_pool(
    count: int, *, system: str = RatingSystem.FIBS, published: bool = True
) -> tuple[RatingPool, list[Player]]:
    """A pool of ``count`` players, the best first (``Игрок 00000`` ranked 1), with
    their current ratings and, when ``published``, a list at JAN of the same ranking,
    all written in bulk."""
    pool = make_pool(system=system)
    federation = pool.rated_discipline.federation
    players = Player.objects.bulk_create(
        Player(name_native=f"Игрок {n:05d}", name_latin=f"Igrok {n:05d}", federation=federation)
        for n in range(count)
    )
    PlayerRating.objects.bulk_create(
        PlayerRating(pool=pool, player=player, rating=2000 - n / 4, experience=600, matches=12)
        for n, player in enumerate(players)
    )
    if published:
        rating_list = make_list(pool, JAN, [])
        RatingListEntry.objects.bulk_create(
            RatingListEntry(
                rating_list=rating_list,
                player=player,
                rank=n + 1,
                rating=2000 - n / 4,
                experience=600,
                matches=12,
                change=None,
            )
            for n, player in enumerate(players)
        )
    return pool, players


def pool_url(pool: RatingPool, *args: object, name: str = "ratings:pool") -> str:
    link = pool.rated_discipline
    return reverse(name, args=[link.federation.slug, link.discipline.code, *args])


def get(client, url: str, status: int = 200, **headers: str):  # type: ignore[no-untyped-def]
    response = client.get(url, **{**EN, **headers})
    assert response.status_code == status, (url, response.status_code)
    return response


def ranks(html: str) -> list[int]:
    return [int(rank) for rank in RANK.findall(html)]


# --- Pages


@pytest.mark.parametrize("live", [False, True])
def test_the_list_pages_hundred_rows_and_ranks_run_on(client, live: bool) -> None:
    pool, players = bulk_pool(250)
    url = pool_url(pool) + ("?live=1&" if live else "?")
    first = get(client, url).content.decode()
    assert ranks(first) == list(range(1, 101))
    assert "Rows 1–100 of 250" in first
    assert 'rel="next" href="?' + ("live=1&amp;" if live else "") + 'page=2"' in first
    assert 'rel="prev"' not in first
    middle = get(client, url + "page=2").content.decode()
    assert ranks(middle) == list(range(101, 201))
    assert 'aria-current="page">2<' in middle
    assert 'rel="prev"' in middle and 'rel="next"' in middle
    last = get(client, url + "page=3").content.decode()
    assert ranks(last) == list(range(201, 251))
    assert "Rows 201–250 of 250" in last and 'rel="next"' not in last
    assert reverse("clubs:player", args=[players[249].pk]) in last
    assert reverse("ratings:history", args=[players[249].pk, pool.pk]) in last


@pytest.mark.parametrize("page", ["4", "0", "-1", "two", "1.5", "9" * 12])
def test_a_page_that_does_not_exist_is_not_found(client, page: str) -> None:
    pool, _players = bulk_pool(250)
    get(client, pool_url(pool) + f"?page={page}", status=404)
    get(client, pool_url(pool, JAN, name="ratings:list") + f"?page={page}", status=404)
    get(client, pool_url(pool) + f"?live=1&page={page}", status=404)


def test_a_short_list_has_no_page_links(client) -> None:
    pool, _players = bulk_pool(100)
    html = get(client, pool_url(pool)).content.decode()
    assert len(ranks(html)) == 100 and "Pages of the list" not in html


def test_a_published_list_pages_like_the_latest(client) -> None:
    pool, players = bulk_pool(150)
    make_list(pool, FEB, [{"player": players[0], "rating": 2100}])
    html = get(client, pool_url(pool, JAN, name="ratings:list") + "?page=2").content.decode()
    assert ranks(html) == list(range(101, 151))
    assert "The list at 01/31/2024." in html and 'href="?page=1"' in html


def test_the_files_hold_the_whole_list(client) -> None:
    pool, _players = bulk_pool(250)
    published = get(client, pool_url(pool, JAN, name="ratings:list_csv"))
    assert published.content.decode("utf-8-sig").count("Igrok") == 250
    live = get(client, pool_url(pool, name="ratings:live_csv"))
    assert live.content.decode("utf-8-sig").count("Igrok") == 250


def test_the_table_scrolls_sideways_and_says_so(client) -> None:
    pool, _players = bulk_pool(3)
    html = get(client, pool_url(pool)).content.decode()
    wrap = html.index('<div class="table-wrap" role="region"')
    assert html.index('<p class="scroll-hint">') < wrap < html.index("<table")
    assert "swipe it sideways" in html
    assert '<meta name="viewport" content="width=device-width' in html
    # the hint shows on narrow screens only
    assert ".scroll-hint { display: none;" in html
    assert re.search(
        r"@media \(max-width: 40rem\) \{[^@]*\.scroll-hint \{ display: block; \}", html
    )


# --- Search


@pytest.fixture
def named_pool() -> tuple[RatingPool, dict[str, Player]]:
    """150 players; Анна Петрова ranked 120, Élodie Durand 130, Пётр Ёлкин 140,
    and the members of the club «Нарды-Центр» at 5, 60 and 145."""
    pool, players = bulk_pool(150)
    renamed = {
        "anna": (119, "Анна Петрова", "Anna Petrova"),
        "elodie": (129, "Élodie Durand", "Elodie Durand"),
        "yolkin": (139, "Пётр Ёлкин", "Pyotr Yolkin"),
    }
    named = {}
    for key, (index, native, latin) in renamed.items():
        player = players[index]
        player.name_native, player.name_latin = native, latin
        player.save()
        named[key] = player
    club = ClubFactory(federation=pool.rated_discipline.federation, name="Нарды-Центр")
    for index in (4, 59, 144):
        MembershipFactory(player=players[index], club=club)
    MembershipFactory(player=players[6], club=club, end=datetime.date(2024, 6, 1))  # left
    return pool, named


@pytest.mark.parametrize("live", [False, True])
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Петрова", [120]),
        ("пЕТРОВА анна", [120]),
        ("petrova", [120]),  # the Latin spelling of a Cyrillic name
        ("ПЕТРОВА", [120]),
        ("elodie", [130]),  # without the accent
        ("ÉLODIE", [130]),
        ("Елкин", [140]),  # е for ё
        ("ёлкин пётр", [140]),
        ("нарды-центр", [5, 60, 145]),  # the current members of a club
        ("Nardy", [5, 60, 145]),
        ("nobody-like-this", []),
    ],
)
def test_search_finds_names_and_clubs_with_their_rank_in_the_whole_list(
    client, named_pool, live: bool, query: str, expected: list[int]
) -> None:
    pool, _named = named_pool
    url = pool_url(pool) + ("?live=1&" if live else "?")
    response = get(client, url + "q=" + query)
    html = response.content.decode()
    assert ranks(html) == expected
    assert f'value="{query}"' in html  # the box keeps what was typed
    if expected:
        found = "One player found." if len(expected) == 1 else f"{len(expected)} players found."
        assert found in html and "places in the whole list" in html
    else:
        assert "0 players found." in html and "Nobody is rated" not in html
    if expected == [5, 60, 145]:
        assert html.count("<td>Нарды-Центр</td>") == 3


def test_search_in_a_published_list_and_an_empty_search(client, named_pool) -> None:
    pool, named = named_pool
    url = pool_url(pool, JAN, name="ratings:list")
    html = get(client, url + "?q=Petrova").content.decode()
    assert ranks(html) == [120]
    assert reverse("clubs:player", args=[named["anna"].pk]) in html
    whole = get(client, url + "?q=+%21%21+").content.decode()  # no letters: the whole list
    assert ranks(whole) == list(range(1, 101)) and "found" not in whole


def test_search_results_page_and_keep_the_search_in_the_links(client) -> None:
    pool, _players = bulk_pool(250)
    first = get(client, pool_url(pool) + "?q=igrok").content.decode()
    assert "250 players found." in first and ranks(first) == list(range(1, 101))
    assert 'rel="next" href="?q=igrok&amp;page=2"' in first
    url = pool_url(pool) + "?live=1&q=Игрок+0"  # everyone: every number has a 0
    second = get(client, url + "&page=2").content.decode()
    assert ranks(second) == list(range(101, 201))
    assert 'href="?live=1&amp;q=%D0%98%D0%B3%D1%80%D0%BE%D0%BA%200&amp;page=3"' in second
    narrower = get(client, pool_url(pool) + "?q=igrok+0020").content.decode()
    assert ranks(narrower) == [21, *range(201, 211)]  # Igrok 00020, Igrok 00200 to 00209


# --- Queries: constant in the list's size


@pytest.mark.parametrize("size", [5, 250])
def test_queries_per_page_are_constant_in_the_lists_size(
    client, django_assert_num_queries, size: int
) -> None:
    pool, _players = bulk_pool(size)
    last = (size - 1) // 100 + 1
    # the discipline with federation and pool, the latest list, then the table: the
    # number of rows, the page's rows with their players, their clubs
    with django_assert_num_queries(5):
        assert len(ranks(get(client, pool_url(pool) + f"?page={last}").content.decode())) > 0
    # a search: the list's players' clubs, their names, the page's rows
    with django_assert_num_queries(5):
        get(client, pool_url(pool) + "?q=igrok")
    # live: the current ratings and the latest list's ratings (for the change), then
    # the page's players and their clubs (the list versions are columns of the pool)
    with django_assert_num_queries(6):
        get(client, pool_url(pool) + f"?live=1&page={last}")
    # the ranking is computed once per version: a search reads the listed players'
    # clubs and names, then the page's players
    with django_assert_num_queries(5):
        get(client, pool_url(pool) + "?live=1&q=igrok")
    # rendered once: the same pages again read only what names their version
    with django_assert_num_queries(2):
        get(client, pool_url(pool) + f"?page={last}")
    with django_assert_num_queries(2):
        get(client, pool_url(pool) + "?live=1&q=igrok")


def test_a_ten_thousand_row_list_page_stays_small(client) -> None:
    pool, players = bulk_pool(10_000)
    # long names and clubs, Cyrillic (two bytes a letter) with their Latin spelling
    club = ClubFactory(federation=pool.rated_discipline.federation, name="Клуб любителей нард")
    Player.objects.filter(pk__in=[p.pk for p in players[:200]]).update(
        name_native="Константин Константинопольский-Ремесленников",
        name_latin="Konstantin Konstantinopolsky-Remeslennikov",
    )
    for player in players[:100]:
        MembershipFactory(player=player, club=club)
    for url in (
        pool_url(pool),
        pool_url(pool) + "?page=57",
        pool_url(pool) + "?live=1",
        pool_url(pool) + "?live=1&page=100",
        pool_url(pool) + "?q=igrok",
        pool_url(pool, JAN, name="ratings:list") + "?page=100",
    ):
        html = get(client, url).content
        assert len(html) <= 200_000, (url, len(html))
        assert len(ranks(html.decode())) == 100


# --- Rendered once per version, and 304


def test_a_reload_with_the_etag_is_a_304_without_rendering(
    client, django_assert_num_queries
) -> None:
    pool, _players = bulk_pool(120)
    first = get(client, pool_url(pool) + "?page=2")
    etag = first["ETag"]
    assert "private" in first["Cache-Control"] and "no-cache" in first["Cache-Control"]
    with django_assert_num_queries(2):  # the pool and its latest list: nothing else
        again = client.get(pool_url(pool) + "?page=2", HTTP_IF_NONE_MATCH=etag, **EN)
    assert again.status_code == 304 and again["ETag"] == etag and not again.content
    # another page, search, mode or language is another version of the page
    assert get(client, pool_url(pool), HTTP_IF_NONE_MATCH=etag)["ETag"] != etag
    searched = get(client, pool_url(pool) + "?page=2&q=igrok", HTTP_IF_NONE_MATCH=etag)
    assert searched["ETag"] != etag
    assert get(client, pool_url(pool) + "?page=2&live=1", HTTP_IF_NONE_MATCH=etag)["ETag"] != etag
    russian = get(client, pool_url(pool) + "?page=2", HTTP_IF_NONE_MATCH=etag, **RU)
    assert russian["ETag"] != etag


def test_a_cached_list_of_a_hidden_federation_stays_hidden(client) -> None:
    pool, _players = bulk_pool(3)
    federation = pool.rated_discipline.federation
    federation.is_public = False
    federation.save()
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, federation)
    client.force_login(admin)
    etag = get(client, pool_url(pool))["ETag"]
    client.logout()
    get(client, pool_url(pool), status=404)
    get(client, pool_url(pool), status=404, HTTP_IF_NONE_MATCH=etag)


def test_a_new_published_list_is_a_new_version(client) -> None:
    pool, players = bulk_pool(3)
    etag = get(client, pool_url(pool))["ETag"]
    make_list(pool, FEB, [{"player": players[2], "rating": 2500}])
    response = get(client, pool_url(pool), HTTP_IF_NONE_MATCH=etag)
    assert response["ETag"] != etag
    assert ranks(response.content.decode()) == [1] and "02/29/2024" in response.content.decode()


def test_a_message_to_show_is_never_a_304(client) -> None:
    pool, _players = bulk_pool(3)
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, pool.rated_discipline.federation)
    client.force_login(admin)
    etag = get(client, pool_url(pool))["ETag"]
    client.post(pool_url(pool, name="ratings:publish"), {"date": "31/31/2024"}, **EN)
    shown = get(client, pool_url(pool), HTTP_IF_NONE_MATCH=etag)
    assert "The list was not published: Enter a valid date." in shown.content.decode()
    # shown once: the page is that version again
    assert client.get(pool_url(pool), HTTP_IF_NONE_MATCH=etag, **EN).status_code == 304


# --- Russian


def test_the_new_words_of_the_list_pages_in_russian(client) -> None:
    pool, _players = bulk_pool(150)
    html = get(client, pool_url(pool) + "?page=2", **RU).content.decode()
    assert "Строки 101–150 из 150" in html
    assert "← Назад" in html and "Найти игрока" in html and "Клуб" in html
    assert "прокрутите её вбок" in html
    found = get(client, pool_url(pool) + "?q=игрок+0001", **RU)
    assert "Найдено 11 игроков." in found.content.decode()  # 00001, 00010 to 00019


def test_the_live_list_is_a_new_version_when_ratings_are_written(client) -> None:
    pool = make_pool()
    federation = pool.rated_discipline.federation
    anna = PlayerFactory(federation=federation, name_native="Анна", name_latin="Anna")
    boris = PlayerFactory(federation=federation, name_native="Борис", name_latin="Boris")
    at = datetime.datetime(2024, 3, 1, 12, tzinfo=datetime.UTC)
    discipline = pool.rated_discipline.discipline
    finished_match(anna, boris, won=True, at=at, discipline=discipline)
    services.recompute_pool(pool)
    before = get(client, pool_url(pool))
    assert before.content.decode().index("Анна") < before.content.decode().index("Борис")
    assert client.get(pool_url(pool), HTTP_IF_NONE_MATCH=before["ETag"], **EN).status_code == 304
    for day in (2, 3):
        later = at + datetime.timedelta(days=day)
        finished_match(boris, anna, won=True, at=later, discipline=discipline)
    services.recompute_pool(pool)
    after = get(client, pool_url(pool), HTTP_IF_NONE_MATCH=before["ETag"])
    assert after["ETag"] != before["ETag"]
    assert after.content.decode().index("Борис") < after.content.decode().index("Анна")
