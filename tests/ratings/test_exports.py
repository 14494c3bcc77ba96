"""CSV and XLSX files of rating lists: headers in the page's language, what
Excel needs (a BOM, ";", numbers), formula-looking names kept as text."""

from __future__ import annotations

import codecs
import csv
import datetime
import io

import pytest
from django.urls import reverse
from django.utils import translation
from openpyxl import load_workbook

from clubs.csv_io import EXPORT_DELIMITER
from clubs.models import RatingSystem
from ratings import exports
from tests.factories import FederationFactory, PlayerFactory
from tests.ratings.pages_data import make_list, make_pool, make_ratings

pytestmark = pytest.mark.django_db

JAN = datetime.date(2024, 1, 31)
EN_HEADERS = [
    "Rank",
    "Player ID",
    "Name",
    "Name (Latin)",
    "Country",
    "Rating",
    "Experience",
    "Rated matches",
    "Provisional",
    "Rating change",
]


def url(pool, name: str, *args) -> str:  # type: ignore[no-untyped-def]
    link = pool.rated_discipline
    return reverse(name, args=[link.federation.slug, link.discipline.code, *args])


def read_csv(content: bytes) -> list[list[str]]:
    assert content.startswith(codecs.BOM_UTF8)
    text = content.decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=EXPORT_DELIMITER))


@pytest.fixture
def published():  # type: ignore[no-untyped-def]
    pool = make_pool()
    federation = pool.rated_discipline.federation
    anna = PlayerFactory(
        federation=federation, name_native="Анна; «Гром»", name_latin="Anna Grom", country="AZ"
    )
    trick = PlayerFactory(federation=federation, name_native="=HYPERLINK(1)", name_latin="-1+2")
    make_list(
        pool,
        JAN,
        [
            {"player": anna, "rating": 1712.345, "experience": 820, "matches": 40, "change": 2.5},
            {
                "player": trick,
                "rating": 1490.0,
                "experience": 35,
                "matches": 7,
                "provisional": True,
                "change": None,
            },
        ],
    )
    return pool, anna, trick


def test_csv_of_a_published_list(client, published) -> None:
    pool, anna, trick = published
    response = client.get(url(pool, "ratings:list_csv", JAN), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    slug = pool.rated_discipline.federation.slug
    assert (
        f'filename="rating-{slug}-short-standard-2024-01-31.csv"' in response["Content-Disposition"]
    )
    header, first, second = read_csv(response.content)
    assert header == EN_HEADERS
    assert first == [
        "1",
        str(anna.pk),
        "Анна; «Гром»",
        "Anna Grom",
        "AZ",
        "1712.35",
        "820",
        "40",
        "",
        "2.50",
    ]
    # formula-looking names are quoted as text; a provisional player; no previous entry
    assert second[1:4] == [str(trick.pk), "'=HYPERLINK(1)", "'-1+2"]
    assert second[8] == "yes" and second[9] == ""


def test_csv_in_russian_has_russian_headers_and_decimal_commas(client, published) -> None:
    pool, _, _ = published
    response = client.get(url(pool, "ratings:list_csv", JAN), HTTP_ACCEPT_LANGUAGE="ru")
    header, first, second = read_csv(response.content)
    assert header[2] == "Имя" and header[4] == "Страна"
    assert header != EN_HEADERS
    assert first[5] == "1712,35" and first[9] == "2,50"
    assert second[8] == "да"


def test_xlsx_of_a_published_list(client, published) -> None:
    pool, anna, trick = published
    response = client.get(url(pool, "ratings:list_xlsx", JAN), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    assert response["Content-Disposition"].endswith('2024-01-31.xlsx"')
    sheet = load_workbook(io.BytesIO(response.content)).active
    rows = list(sheet.iter_rows(values_only=True))
    assert list(rows[0]) == EN_HEADERS
    assert rows[1] == (1, anna.pk, "Анна; «Гром»", "Anna Grom", "AZ", 1712.35, 820, 40, None, 2.5)
    assert rows[2][1:4] == (trick.pk, "=HYPERLINK(1)", "-1+2")
    assert sheet["C3"].data_type == "s"  # text, not a formula
    assert rows[2][8] == "yes" and rows[2][9] is None
    assert sheet["A1"].font.bold
    assert sheet["F2"].number_format == "0.00" and sheet["J2"].number_format.startswith("+0.00")
    assert sheet.freeze_panes == "A2"


def test_glicko_exports_show_rd(client) -> None:
    pool = make_pool(system=RatingSystem.GLICKO2)
    player = PlayerFactory(federation=pool.rated_discipline.federation)
    make_list(pool, JAN, [{"player": player, "rating": 1600, "rd": 92.126}])
    header, row = read_csv(client.get(url(pool, "ratings:list_csv", JAN)).content)
    assert header[6] == "RD" and row[6] == "92.13"
    sheet = load_workbook(
        io.BytesIO(client.get(url(pool, "ratings:list_xlsx", JAN)).content)
    ).active
    assert sheet["G1"].value == "RD" and sheet["G2"].value == 92.13


def test_live_exports_follow_the_live_list(client) -> None:
    pool = make_pool()
    ratings = make_ratings(pool, 3)
    make_list(pool, JAN, [{"player": ratings[1].player, "rating": 1600.0}])
    _, *rows = read_csv(client.get(url(pool, "ratings:live_csv")).content)
    assert [row[1] for row in rows] == [str(r.player_id) for r in ratings]
    assert [row[9] for row in rows] == ["", "-7.50", ""]  # against the published list
    response = client.get(url(pool, "ratings:live_xlsx"))
    assert response["Content-Disposition"].endswith('-live.xlsx"')
    sheet = load_workbook(io.BytesIO(response.content)).active
    assert sheet.max_row == 4


def test_exports_of_hidden_or_unpublished_lists_are_not_found(client) -> None:
    hidden = make_pool(FederationFactory(is_public=False))
    make_list(hidden, JAN, [])
    assert client.get(url(hidden, "ratings:list_csv", JAN)).status_code == 404
    pool = make_pool()
    make_list(pool, JAN, [], published=False)
    assert client.get(url(pool, "ratings:list_xlsx", JAN)).status_code == 404
    link = pool.rated_discipline
    pool.delete()
    bare = reverse("ratings:live_csv", args=[link.federation.slug, link.discipline.code])
    assert client.get(bare).status_code == 404


@pytest.mark.parametrize("size", [5, 50])
def test_export_query_count_is_constant(client, django_assert_num_queries, size) -> None:
    pool = make_pool()
    make_list(
        pool, JAN, [{"player": r.player, "rating": r.rating} for r in make_ratings(pool, size)]
    )
    # the discipline with federation and pool, the list, its entries with players
    with django_assert_num_queries(3):
        content = client.get(url(pool, "ratings:list_csv", JAN)).content
    assert len(read_csv(content)) == size + 1
    with django_assert_num_queries(3):
        content = client.get(url(pool, "ratings:list_xlsx", JAN)).content
    assert load_workbook(io.BytesIO(content)).active.max_row == size + 1


def test_sheet_titles_and_safe_text() -> None:
    assert exports.sheet_title("Nardy 01/31: [A]?") == "Nardy 01-31- -A--"
    assert len(exports.sheet_title("x" * 50)) == 31
    assert exports.safe_text("@SUM(A1)") == "'@SUM(A1)" and exports.safe_text("Ali") == "Ali"
    with translation.override("ru"):
        assert exports.columns(glicko=False)[2].header == "Имя"
