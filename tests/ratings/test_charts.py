"""The rating-history chart: scales, ticks, one point per change, the line
inside the drawing, escaping, and the SVG on the history page."""

from __future__ import annotations

import datetime
import re
import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from ratings import charts
from ratings.charts import ChartPoint
from tests.factories import PlayerFactory
from tests.ratings.pages_data import make_history, make_pool

SVG = "{http://www.w3.org/2000/svg}"


def points(*ratings: float, start: datetime.date = datetime.date(2024, 1, 1), step: int = 7):
    return [
        ChartPoint(start + datetime.timedelta(days=step * i), rating, match_id=100 + i)
        for i, rating in enumerate(ratings)
    ]


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


# --- Scales and ticks


def test_linear_scale_maps_domain_ends_to_range_ends_and_runs_backwards() -> None:
    scale = charts.LinearScale((1400.0, 1600.0), (280.0, 20.0))
    assert scale(1400) == 280 and scale(1600) == 20 and scale(1500) == 150
    assert charts.LinearScale((5.0, 5.0), (0.0, 10.0))(5) == 5  # an empty domain: the middle


@pytest.mark.parametrize(
    ("span", "count", "step"),
    [(100, 5, 20), (1000, 5, 200), (37, 5, 10), (0.9, 5, 0.2), (12, 4, 5), (3, 5, 1)],
)
def test_nice_steps_are_one_two_or_five_times_a_power_of_ten(span, count, step) -> None:
    assert charts.nice_step(span, count) == pytest.approx(step)


def test_value_ticks_cover_the_data_with_nice_ends() -> None:
    assert charts.value_ticks(1487.3, 1612.9) == (1450, 1500, 1550, 1600, 1650)
    ticks = charts.value_ticks(0.12, 0.31)
    assert ticks == (0.1, 0.15, 0.2, 0.25, 0.3, 0.35)  # no float noise
    # one value: a band around it
    assert charts.value_ticks(1500, 1500) == (1490, 1495, 1500, 1505, 1510)


def test_time_ticks_fall_on_calendar_boundaries() -> None:
    start, end = datetime.datetime(2023, 11, 20), datetime.datetime(2024, 9, 3)
    ticks, label = charts.time_ticks(start, end, 6)
    assert label == "%Y-%m" and 2 <= len(ticks) <= 6
    assert all(t.day == 1 and t.hour == 0 and start <= t <= end for t in ticks)
    assert len({t.month % 2 for t in ticks}) == 1  # every other month, aligned

    ticks, label = charts.time_ticks(datetime.datetime(2024, 1, 1), datetime.datetime(2024, 1, 4))
    assert label == "%Y-%m-%d" and [t.day for t in ticks] == [1, 2, 3, 4]

    ticks, label = charts.time_ticks(datetime.datetime(2001, 5, 1), datetime.datetime(2024, 2, 1))
    assert label == "%Y" and [t.year for t in ticks] == [2005, 2010, 2015, 2020]

    ticks, _ = charts.time_ticks(datetime.datetime(2024, 1, 3), datetime.datetime(2024, 2, 20))
    assert all(t.weekday() == 0 for t in ticks)  # weeks start on Mondays


# --- Layout


def test_layout_places_each_point_by_date_and_rating() -> None:
    data = points(1500, 1550, 1450)
    chart = charts.layout(data, width=600, height=300)
    assert len(chart.coordinates) == 3
    xs = [x for x, _ in chart.coordinates]
    ys = [y for _, y in chart.coordinates]
    assert xs[0] < xs[1] < xs[2]
    assert xs[1] - xs[0] == pytest.approx(xs[2] - xs[1])  # a week apart each
    assert ys[1] < ys[0] < ys[2]  # a higher rating is drawn higher (smaller y)
    # the y scale: tick values at their positions, the ends at the plot's edges
    assert chart.y_ticks[0].position == pytest.approx(chart.bottom)
    assert chart.y_ticks[-1].position == pytest.approx(chart.top)
    assert chart.y_scale(1500) == pytest.approx(ys[0])
    assert [t.label for t in chart.y_ticks] == [
        "1440",
        "1460",
        "1480",
        "1500",
        "1520",
        "1540",
        "1560",
    ]


def test_points_of_one_day_are_spread_over_that_day() -> None:
    day = datetime.date(2024, 5, 9)
    data = [
        ChartPoint(datetime.datetime(2024, 5, 9, 10, 0), 1500, 1),
        ChartPoint(datetime.datetime(2024, 5, 9, 18, 0), 1510, 2),
    ]
    chart = charts.layout(data)
    (x1, _), (x2, _) = chart.coordinates
    assert chart.left < x1 < x2 < chart.right
    assert [t.label for t in chart.x_ticks] == [day.isoformat(), "2024-05-10"]


def test_single_point_and_aware_datetimes_are_drawn() -> None:
    moment = datetime.datetime(
        2024, 3, 1, 23, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=3))
    )
    chart = charts.layout([ChartPoint(moment, 1612.5, 7)])
    ((x, y),) = chart.coordinates
    assert chart.left <= x <= chart.right and chart.top <= y <= chart.bottom
    assert chart.x_ticks[0].label == "2024-03-01"  # its own wall clock


def test_layout_refuses_no_points_and_non_numbers() -> None:
    with pytest.raises(ValueError, match="at least one point"):
        charts.layout([])
    with pytest.raises(ValueError, match="not a finite number"):
        charts.layout([ChartPoint(datetime.date(2024, 1, 1), float("nan"))])


# --- SVG


def test_svg_has_one_linked_point_per_change_and_a_line_inside_the_view_box() -> None:
    data = points(1500, 1525.5, 1490.25, 1610, 1580, start=datetime.date(2023, 12, 30), step=40)
    svg = charts.rating_chart(data, title="History", description="Five changes")
    root = parse(svg)
    assert root.tag == f"{SVG}svg" and root.get("role") == "img"
    _, _, width, height = (float(v) for v in root.get("viewBox").split())
    circles = root.findall(f".//{SVG}circle")
    assert len(circles) == len(data)
    links = root.findall(f".//{SVG}a")
    assert [a.get("href") for a in links] == [f"/matches/{p.match_id}/" for p in data]
    (line,) = root.findall(f".//{SVG}polyline")
    vertices = [tuple(map(float, pair.split(","))) for pair in line.get("points").split()]
    assert len(vertices) == len(data)
    assert all(0 <= x <= width and 0 <= y <= height for x, y in vertices)
    assert [(float(c.get("cx")), float(c.get("cy"))) for c in circles] == vertices
    # axes: tick labels on both
    labels = [t.text for t in root.findall(f".//{SVG}g[@class='axis y-axis']/{SVG}text")]
    assert labels[0] == "1450" and labels[-1] == "1650"
    months = [t.text for t in root.findall(f".//{SVG}g[@class='axis x-axis']/{SVG}text")]
    assert months and all(re.fullmatch(r"\d{4}-\d{2}", m) for m in months)


def test_svg_is_accessible_and_escapes_every_text() -> None:
    data = [
        ChartPoint(datetime.date(2024, 1, 1), 1500, 1, label='vs <script>"Ali" & Co'),
        ChartPoint(datetime.date(2024, 2, 1), 1510, None, label="period"),
    ]
    svg = charts.rating_chart(
        data, title="O'Brien <b>", description="a & b", element_id='x" onload="y'
    )
    assert "<script>" not in svg and "<b>" not in svg and 'onload="y"' not in svg
    root = parse(svg)  # well-formed XML
    title = root.find(f"{SVG}title")
    desc = root.find(f"{SVG}desc")
    assert title.text == "O'Brien <b>" and desc.text == "a & b"
    assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    first, second = root.findall(f".//{SVG}circle")
    assert first.find(f"{SVG}title").text == 'vs <script>"Ali" & Co'
    assert second.find(f"{SVG}title").text == "period"
    assert root.find(f".//{SVG}a").get("aria-label") == 'vs <script>"Ali" & Co'
    assert len(root.findall(f".//{SVG}a")) == 1  # a point without a match has no link


def test_render_refuses_a_layout_of_other_points() -> None:
    chart = charts.layout(points(1500, 1510))
    with pytest.raises(ValueError, match="other points"):
        charts.render(chart, points(1500), title="t", description="d")


# --- The page


@pytest.mark.django_db
def test_history_page_renders_the_chart_with_links_to_the_matches(client) -> None:
    pool = make_pool()
    player = PlayerFactory(federation=pool.rated_discipline.federation, name_latin="Ali & <Veli>")
    changes = make_history(pool, player, 4)
    html = client.get(reverse("ratings:history", args=[player.pk, pool.pk])).content.decode()
    svg = html[html.index("<svg") : html.index("</svg>") + len("</svg>")]
    root = parse(svg)
    assert "Ali &amp; &lt;Veli&gt;" in svg
    assert "Rating history of" in root.find(f"{SVG}title").text
    assert "Rating changes: 4, from 01/06/2024 to 01/27/2024." in root.find(f"{SVG}desc").text
    hrefs = [a.get("href") for a in root.findall(f".//{SVG}a")]
    assert hrefs == [reverse("games:match", args=[c.match_id]) for c in changes]
    tips = [c.find(f"{SVG}title").text for c in root.findall(f".//{SVG}circle")]
    assert tips[0].startswith("01/06/2024: 1510.00 (+10.00)")
