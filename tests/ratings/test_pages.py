"""Rating pages: a pool's list (published or live), the archive, a published
list, a player's history with its chart, the sections on the federation page
and the player profile, and publishing a list."""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import reverse

from clubs import permissions
from clubs.models import RatingSystem, Role
from ratings.models import PlayerRating, RatingChange, RatingList
from tests.factories import FederationFactory, PlayerFactory, UserFactory, grant
from tests.ratings.pages_data import make_history, make_list, make_pool, make_ratings

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
JAN = datetime.date(2024, 1, 31)
FEB = datetime.date(2024, 2, 29)


def page(client, url: str, **headers: str) -> str:  # type: ignore[no-untyped-def]
    response = client.get(url, **(headers or EN))
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def pool_url(pool, name: str = "ratings:pool", *args) -> str:  # type: ignore[no-untyped-def]
    link = pool.rated_discipline
    return reverse(name, args=[link.federation.slug, link.discipline.code, *args])


def body_rows(html: str) -> list[str]:
    tbody = html.split("<tbody>")[1].split("</tbody>")[0]
    return [row for row in tbody.split("</tr>") if "<td" in row]


# --- The pool's current list


def test_current_list_is_the_latest_published_list(client) -> None:
    pool = make_pool()
    federation = pool.rated_discipline.federation
    anna = PlayerFactory(
        federation=federation, name_native="Анна Петрова", name_latin="Anna Petrova"
    )
    boris = PlayerFactory(federation=federation, name_native="Борис", name_latin="Boris")
    make_list(pool, JAN, [{"player": boris, "rating": 1700.0}, {"player": anna, "rating": 1650}])
    make_list(
        pool,
        FEB,
        [
            {"player": anna, "rating": 1712.345, "experience": 820, "matches": 40, "change": 62.35},
            {
                "player": boris,
                "rating": 1690.5,
                "experience": 120,
                "matches": 9,
                "provisional": True,
                "change": -9.5,
            },
        ],
    )
    make_list(
        pool, datetime.date(2024, 3, 31), [{"player": boris, "rating": 2000}], published=False
    )
    html = page(client, pool_url(pool))
    assert "Published list" in html and "The list at 02/29/2024." in html
    assert "Live ratings</strong>" not in html
    first, second = body_rows(html)
    assert '<td class="num">1</td>' in first and "Анна Петрова" in first and "Anna Petrova" in first
    assert reverse("clubs:player", args=[anna.pk]) in first
    assert "1712.35" in first and ">820<" in first and ">40<" in first and "+62.35" in first
    assert "provisional" not in first
    assert '<td class="num">2</td>' in second and "1690.50" in second and ">120<" in second
    assert "provisional" in second and "\u22129.50" in second  # a true minus sign
    assert reverse("ratings:history", args=[anna.pk, pool.pk]) in first
    assert "2000" not in html  # the draft is not shown
    assert pool_url(pool, "ratings:list_csv", FEB) in html
    assert pool_url(pool, "ratings:list_xlsx", FEB) in html
    assert "?live=1" in html


def test_live_ratings_while_nothing_is_published_are_labelled_and_ranked(client) -> None:
    pool = make_pool()
    federation = pool.rated_discipline.federation
    top, tied_a, tied_b = (PlayerFactory(federation=federation) for _ in range(3))
    PlayerRating.objects.create(pool=pool, player=tied_b, rating=1550.001, experience=30, matches=3)
    PlayerRating.objects.create(pool=pool, player=top, rating=1620.0, experience=900, matches=50)
    PlayerRating.objects.create(
        pool=pool, player=tied_a, rating=1549.999, experience=500, matches=20
    )
    PlayerRating.objects.create(  # no rated match yet: not listed
        pool=pool, player=PlayerFactory(federation=federation), rating=1500, matches=0
    )
    html = page(client, pool_url(pool))
    assert "Live ratings</strong>" in html and "not an official list" in html
    assert "No list has been published yet." in html
    rows = body_rows(html)
    assert len(rows) == 3
    assert reverse("clubs:player", args=[top.pk]) in rows[0] and '"num">1</td>' in rows[0]
    # 1550.00 twice: one shared rank, the lower player id first, then rank 3 would follow
    assert all('"num">2</td>' in row for row in rows[1:])
    assert reverse("clubs:player", args=[tied_a.pk]) in rows[1]
    assert "provisional" in rows[2] and "provisional" not in rows[1]  # experience 30 < 400
    assert all(">new<" in row for row in rows)
    assert pool_url(pool, "ratings:live_csv") in html


def test_live_view_of_a_published_pool_shows_change_since_the_latest_list(client) -> None:
    pool = make_pool()
    rating = make_ratings(pool, 2)
    make_list(pool, JAN, [{"player": rating[0].player, "rating": 1590.0}])
    html = page(client, pool_url(pool) + "?live=1")
    assert "Live ratings</strong>" in html
    assert pool_url(pool, "ratings:list", JAN) in html  # the latest published list
    first, second = body_rows(html)
    assert "+10.00" in first  # 1600 now, 1590 on the list
    assert ">new<" in second


def test_glicko_pool_shows_rd_instead_of_experience(client) -> None:
    pool = make_pool(system=RatingSystem.GLICKO2)
    player = PlayerFactory(federation=pool.rated_discipline.federation)
    make_list(pool, JAN, [{"player": player, "rating": 1600, "rd": 87.654, "experience": 77}])
    html = page(client, pool_url(pool))
    assert '<th class="num">RD</th>' in html and "Experience" not in html
    assert "87.65" in html and ">77<" not in html
    assert "Glicko-2" in html


@pytest.mark.parametrize("size", [5, 50])
def test_current_list_query_count_is_constant(client, django_assert_num_queries, size) -> None:
    pool = make_pool()
    make_list(
        pool, JAN, [{"player": r.player, "rating": r.rating} for r in make_ratings(pool, size)]
    )
    # the discipline with federation and pool, the latest list, its number of
    # entries, the page's entries with players, their clubs
    with django_assert_num_queries(5):
        html = page(client, pool_url(pool))
    assert len(body_rows(html)) == size
    # live: the current ratings, the latest list's ratings, the page's players and
    # their clubs
    with django_assert_num_queries(6):
        html = page(client, pool_url(pool) + "?live=1")
    assert len(body_rows(html)) == size


def test_hidden_or_unknown_pools_are_not_found(client) -> None:
    hidden = make_pool(FederationFactory(is_public=False))
    assert client.get(pool_url(hidden)).status_code == 404
    visible = make_pool()
    slug = visible.rated_discipline.federation.slug
    assert client.get(reverse("ratings:pool", args=[slug, "no-such"])).status_code == 404
    # the hidden federation's admin sees it
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, hidden.rated_discipline.federation)
    client.force_login(admin)
    assert client.get(pool_url(hidden)).status_code == 200


def test_rated_discipline_without_a_pool_yet_says_nobody_is_rated(client) -> None:
    pool = make_pool()
    link = pool.rated_discipline
    pool.delete()
    html = page(client, reverse("ratings:pool", args=[link.federation.slug, link.discipline.code]))
    assert "Nobody is rated in this discipline yet." in html
    assert "archive" not in html


# --- Archive and published lists


def test_archive_lists_published_lists_with_their_size(client) -> None:
    pool = make_pool()
    ratings = make_ratings(pool, 3)
    make_list(pool, JAN, [{"player": r.player, "rating": r.rating} for r in ratings[:2]])
    make_list(pool, FEB, [{"player": r.player, "rating": r.rating} for r in ratings])
    make_list(pool, datetime.date(2024, 3, 31), [], published=False)
    html = page(client, pool_url(pool, "ratings:archive"))
    first, second = body_rows(html)
    assert pool_url(pool, "ratings:list", FEB) in first and '"num">3</td>' in first
    assert pool_url(pool, "ratings:list", JAN) in second and '"num">2</td>' in second
    assert pool_url(pool, "ratings:list_xlsx", JAN) in second
    assert "2024-03-31" not in html


@pytest.mark.parametrize("size", [2, 20])
def test_archive_query_count_is_constant(client, django_assert_num_queries, size) -> None:
    pool = make_pool()
    player = PlayerFactory(federation=pool.rated_discipline.federation)
    for day in range(size):
        make_list(pool, JAN + datetime.timedelta(days=day), [{"player": player, "rating": 1500}])
    with django_assert_num_queries(2):
        html = page(client, pool_url(pool, "ratings:archive"))
    assert len(body_rows(html)) == size


def test_a_published_list_page_shows_that_list(client) -> None:
    pool = make_pool()
    player = PlayerFactory(federation=pool.rated_discipline.federation)
    make_list(pool, JAN, [{"player": player, "rating": 1555.5}])
    make_list(pool, FEB, [{"player": player, "rating": 1666.6}])
    html = page(client, pool_url(pool, "ratings:list", JAN))
    assert "1555.50" in html and "1666.60" not in html
    assert "The list at 01/31/2024." in html
    assert pool_url(pool, "ratings:list_csv", JAN) in html


@pytest.mark.parametrize("date", ["2024-03-31", "2024-04-01", "2024-02-30"])
def test_drafts_missing_and_impossible_dates_are_not_found(client, date: str) -> None:
    pool = make_pool()
    make_list(pool, datetime.date(2024, 3, 31), [], published=False)
    link = pool.rated_discipline
    url = f"/f/{link.federation.slug}/ratings/{link.discipline.code}/{date}/"
    assert client.get(url).status_code == 404


# --- A player's history


def test_history_shows_the_chart_and_the_matches_behind_each_change(client) -> None:
    pool = make_pool()
    player = PlayerFactory(federation=pool.rated_discipline.federation, name_latin="Rashad")
    opponent = PlayerFactory(
        federation=pool.rated_discipline.federation, name_native="Эльчин", name_latin="Elchin"
    )
    changes = make_history(pool, player, 3, opponents=[opponent])
    html = page(client, reverse("ratings:history", args=[player.pk, pool.pk]))
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert 'role="img"' in svg and "<title" in svg and "<desc" in svg
    assert svg.count("<circle") == 3
    for change in changes:
        assert f'href="/matches/{change.match_id}/"' in svg
    rows = body_rows(html)
    assert len(rows) == 3
    first, second = rows[0], rows[1]
    assert "01/06/2024" in first and f'href="/matches/{changes[0].match_id}/"' in first
    assert "Эльчин" in first and reverse("clubs:player", args=[opponent.pk]) in first
    assert ">5<" in first  # the match length
    assert "won 5:1" in first and "1500.00 → 1510.00" in first and "+10.00" in first
    assert "lost 1:5" in second and "1510.00 → 1504.50" in second and "\u22125.50" in second
    assert "1516.50" in html  # the current rating (12 won in the third match)


def test_history_chart_and_table_in_russian(client) -> None:
    pool = make_pool()
    player = PlayerFactory(federation=pool.rated_discipline.federation)
    make_history(pool, player, 2)
    html = page(
        client, reverse("ratings:history", args=[player.pk, pool.pk]), HTTP_ACCEPT_LANGUAGE="ru"
    )
    assert '<html lang="ru">' in html
    assert "1500,00 → 1510,00" in html  # the Russian decimal comma
    assert "06.01.2024" in html


@pytest.mark.parametrize("size", [3, 30])
def test_history_query_count_is_constant(client, django_assert_num_queries, size) -> None:
    pool = make_pool()
    player = PlayerFactory(federation=pool.rated_discipline.federation)
    make_history(pool, player, size)
    # the player, the pool with discipline and federation, the changes with
    # their matches and players, the current rating
    with django_assert_num_queries(4):
        html = page(client, reverse("ratings:history", args=[player.pk, pool.pk]))
    assert len(body_rows(html)) == size
    assert html.count("<circle") == size


def test_history_of_a_merged_player_redirects_and_hidden_ones_are_not_found(client) -> None:
    pool = make_pool()
    survivor = PlayerFactory(federation=pool.rated_discipline.federation)
    duplicate = PlayerFactory(federation=survivor.federation, merged_into=survivor)
    response = client.get(reverse("ratings:history", args=[duplicate.pk, pool.pk]))
    assert response.status_code == 301
    assert response["Location"] == reverse("ratings:history", args=[survivor.pk, pool.pk])
    hidden = make_pool(FederationFactory(is_public=False), code="long-standard")
    url = reverse("ratings:history", args=[survivor.pk, hidden.pk])
    assert client.get(url).status_code == 404
    assert client.get(reverse("ratings:history", args=[10**6, pool.pk])).status_code == 404


def test_history_without_rated_matches_has_no_chart(client) -> None:
    pool = make_pool()
    player = PlayerFactory(federation=pool.rated_discipline.federation)
    html = page(client, reverse("ratings:history", args=[player.pk, pool.pk]))
    assert "No rated matches in this discipline yet." in html
    assert "<svg" not in html


# --- Sections on the federation page and the player profile


def test_federation_page_links_each_rated_discipline(client) -> None:
    pool = make_pool()
    long_pool = make_pool(pool.rated_discipline.federation, code="long-standard", name="Long nardy")
    federation = pool.rated_discipline.federation
    html = page(client, reverse("clubs:federation", args=[federation.slug]))
    section = html[html.index("<h2>Ratings</h2>") :]
    assert pool_url(pool) in section and pool_url(long_pool) in section
    assert "Long nardy" in section


def test_player_profile_shows_current_rating_per_pool(client) -> None:
    pool = make_pool()
    hidden = make_pool(FederationFactory(is_public=False), code="long-standard")
    player = PlayerFactory(federation=pool.rated_discipline.federation)
    PlayerRating.objects.create(pool=pool, player=player, rating=1623.456, matches=14)
    PlayerRating.objects.create(pool=hidden, player=player, rating=1999, matches=3)
    html = page(client, reverse("clubs:player", args=[player.pk]))
    section = html[html.index("<h2>Ratings</h2>") :]
    assert "1623.46" in section and ">14<" in section
    assert reverse("ratings:history", args=[player.pk, pool.pk]) in section
    assert "1999" not in html  # a hidden federation's pool


def test_player_profile_without_ratings_has_no_ratings_section(client) -> None:
    player = PlayerFactory()
    html = page(client, reverse("clubs:player", args=[player.pk]))
    assert "<h2>Ratings</h2>" not in html


# --- Publishing


@pytest.fixture
def staff_pool():  # type: ignore[no-untyped-def]
    pool = make_pool()
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, pool.rated_discipline.federation)
    return pool, admin


def test_only_the_federations_admins_may_publish(client, staff_pool) -> None:
    pool, admin = staff_pool
    other_admin = UserFactory()
    grant(other_admin, Role.FEDERATION_ADMIN, FederationFactory())
    assert permissions.can(admin, "rating_list.publish", pool)
    assert not permissions.can(other_admin, "rating_list.publish", pool)
    assert permissions.can(UserFactory(is_superuser=True), "rating_list.publish", pool)
    assert "Publish a list" not in page(client, pool_url(pool))
    client.force_login(other_admin)
    assert "Publish a list" not in page(client, pool_url(pool))
    response = client.post(pool_url(pool, "ratings:publish"), {"date": "2024-01-31"})
    assert response.status_code == 403
    client.force_login(admin)
    html = page(client, pool_url(pool))
    assert "Publish a list" in html and 'type="date"' in html
    assert not RatingList.objects.exists()


def test_publish_form_rejects_a_malformed_date_and_saves_nothing(client, staff_pool) -> None:
    pool, admin = staff_pool
    client.force_login(admin)
    response = client.post(pool_url(pool, "ratings:publish"), {"date": "31/31/2024"}, **EN)
    assert response.status_code == 302 and response["Location"] == pool_url(pool)
    html = page(client, pool_url(pool))
    assert re.search(r"The list was not published: Enter a valid date\.", html)
    assert not RatingList.objects.exists()


def test_the_federations_admin_publishes_a_list_at_a_date(client, staff_pool) -> None:
    pool, admin = staff_pool
    player = PlayerFactory(federation=pool.rated_discipline.federation)
    changes = make_history(pool, player, 4)  # weekly from 2024-01-06
    client.force_login(admin)
    # Step one shows what would be published, and publishes nothing.
    preview = client.post(pool_url(pool, "ratings:publish"), {"date": "2024-01-21"}, **EN)
    assert preview.status_code == 200
    assert preview.context["preview"].players == 1 and preview.context["preview"].matches == 3
    assert not RatingList.objects.exists()
    confirm = {"step": "confirm", "date": "2024-01-21", "digest": preview.context["preview"].digest}
    response = client.post(pool_url(pool, "ratings:publish"), confirm, **EN)
    assert response.status_code == 302
    assert response["Location"] == pool_url(pool, "ratings:list", datetime.date(2024, 1, 21))
    published = RatingList.objects.get(pool=pool)
    assert published.is_published and published.date == datetime.date(2024, 1, 21)
    (entry,) = published.entries.all()
    # the three matches played before the list's date count, the fourth does not
    assert entry.player_id == player.pk
    assert entry.rating == pytest.approx(changes[2].rating_after)
    html = page(client, response["Location"])
    assert "The list at 2024-01-21 is published: 1 player." in html
    assert "The list at 01/21/2024." in html


@pytest.mark.parametrize(
    ("date", "reason"),
    [
        ("2999-01-01", "cannot be dated in the future"),
        ("2024-01-31", "is published already"),
    ],
)
def test_a_refused_publication_says_why_and_changes_nothing(
    client, staff_pool, date: str, reason: str
) -> None:
    pool, admin = staff_pool
    existing = make_list(pool, JAN, [])
    client.force_login(admin)
    response = client.post(pool_url(pool, "ratings:publish"), {"date": date}, **EN)
    assert response.status_code == 302 and response["Location"] == pool_url(pool)
    html = page(client, pool_url(pool))
    assert "The list was not published: " in html and reason in html
    assert list(RatingList.objects.all()) == [existing]


def test_publishing_needs_a_post(client, staff_pool) -> None:
    pool, admin = staff_pool
    client.force_login(admin)
    assert client.get(pool_url(pool, "ratings:publish")).status_code == 405


def test_glicko_live_list_and_period_rows_in_the_history(client) -> None:
    pool = make_pool(system=RatingSystem.GLICKO2)
    federation = pool.rated_discipline.federation
    settled, newcomer = PlayerFactory(federation=federation), PlayerFactory(federation=federation)
    PlayerRating.objects.create(
        pool=pool, player=settled, rating=1700, rd=80.0, volatility=0.06, matches=30
    )
    PlayerRating.objects.create(
        pool=pool, player=newcomer, rating=1650, rd=240.0, volatility=0.06, matches=2
    )
    first, second = body_rows(page(client, pool_url(pool)))
    assert "80.00" in first and "provisional" not in first  # RD 80 <= 110
    assert "240.00" in second and "provisional" in second
    (change,) = make_history(pool, settled, 1)
    RatingChange.objects.filter(pk=change.pk).update(matches=4, period=650)
    html = page(client, reverse("ratings:history", args=[settled.pk, pool.pk]))
    (row,) = body_rows(html)
    assert "Matches in the rating period: 4" in row
    assert "won" not in row  # a period has no single result
    assert "<dt>RD</dt>" in html
