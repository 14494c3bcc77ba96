"""The rating-history chart: pure geometry from points to SVG text.

Nothing here knows Django or the database: the page hands over one point per
rating change (when, the rating after it, the match behind it, a tooltip) and
the already translated title and description; the result is a self-contained
``<svg>`` element (no script, no external style) that scales to the width of
its container.

- ``layout(points)`` does the geometry: the scales from dates and ratings to
  the drawing's coordinates, the ticks of both axes and each point's position.
- ``render(chart, ...)`` writes it out as SVG text, every piece of text escaped.
- ``rating_chart(points, ...)`` is both in one call.

Dates are placed by time (naive wall-clock times; an aware datetime is taken
at its own wall clock, so pass local times); ratings on a "nice" scale whose
ends are tick values (steps of 1, 2 or 5 × 10^k).
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

DateLike = datetime.date | datetime.datetime


@dataclass(frozen=True, slots=True)
class ChartPoint:
    when: DateLike
    rating: float
    match_id: int | None = None
    label: str = ""  # the point's tooltip (plain text)


@dataclass(frozen=True, slots=True)
class LinearScale:
    """Maps ``domain`` linearly onto ``range`` (the range may run backwards)."""

    domain: tuple[float, float]
    range: tuple[float, float]

    def __call__(self, value: float) -> float:
        (d0, d1), (r0, r1) = self.domain, self.range
        if d1 == d0:
            return (r0 + r1) / 2
        return r0 + (value - d0) * (r1 - r0) / (d1 - d0)


@dataclass(frozen=True, slots=True)
class Tick:
    position: float  # in drawing coordinates
    value: float
    label: str


@dataclass(frozen=True, slots=True)
class Chart:
    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    x_scale: LinearScale
    y_scale: LinearScale
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    coordinates: tuple[tuple[float, float], ...]  # one per point, in order


# --- Ratings: "nice" ticks


def nice_step(span: float, count: int = 5) -> float:
    """A step of 1, 2 or 5 × 10^k giving about ``count`` intervals over ``span``."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / max(count, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * magnitude * (1 + 1e-9):
            return factor * magnitude
    return 10 * magnitude


def value_ticks(low: float, high: float, count: int = 5) -> tuple[float, ...]:
    """Tick values covering [low, high], the first at or below ``low``, the last at
    or above ``high``; a single value gets a band of ±10 (at least one step) around it."""
    if high < low:
        low, high = high, low
    if high - low < 1e-9:
        low, high = low - 10, high + 10
    step = nice_step(high - low, count)
    first = math.floor(low / step + 1e-9) * step
    last = math.ceil(high / step - 1e-9) * step
    intervals = round((last - first) / step)
    return tuple(_tidy(first + i * step) for i in range(intervals + 1))


def _tidy(value: float) -> float:
    """Drop the float noise of ``first + i * step`` (0.30000000000000004 -> 0.3)."""
    return float(f"{value:.10g}")


def _value_label(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
    return f"{value:.{decimals}f}"


# --- Dates: ticks on calendar boundaries

_DAY = datetime.timedelta(days=1)
# (unit, multiple, label format), the smallest first.
_TIME_STEPS: tuple[tuple[str, int, str], ...] = (
    ("day", 1, "%Y-%m-%d"),
    ("day", 2, "%Y-%m-%d"),
    ("week", 1, "%Y-%m-%d"),
    ("week", 2, "%Y-%m-%d"),
    ("month", 1, "%Y-%m"),
    ("month", 2, "%Y-%m"),
    ("month", 3, "%Y-%m"),
    ("month", 6, "%Y-%m"),
    ("year", 1, "%Y"),
    ("year", 2, "%Y"),
    ("year", 5, "%Y"),
    ("year", 10, "%Y"),
    ("year", 20, "%Y"),
    ("year", 50, "%Y"),
    ("year", 100, "%Y"),
)


def as_datetime(value: DateLike) -> datetime.datetime:
    """A naive datetime: a date at midnight, an aware datetime at its own wall clock."""
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None)
    return datetime.datetime.combine(value, datetime.time())


def _seconds(value: datetime.datetime) -> float:
    return (value - datetime.datetime(1970, 1, 1)).total_seconds()


def _boundaries(
    start: datetime.datetime, end: datetime.datetime, unit: str, multiple: int
) -> list[datetime.datetime]:
    """Calendar boundaries of ``multiple`` units within [start, end]."""
    found: list[datetime.datetime] = []
    if unit in ("day", "week"):
        day = datetime.datetime.combine(start.date(), datetime.time())
        if day < start:
            day += _DAY
        if unit == "week":
            day += datetime.timedelta(days=(7 - day.weekday()) % 7)  # a Monday
            stride = datetime.timedelta(weeks=multiple)
        else:
            while day.toordinal() % multiple:
                day += _DAY
            stride = datetime.timedelta(days=multiple)
        while day <= end:
            found.append(day)
            day += stride
        return found
    if unit == "month":
        year, month = start.year, start.month
        while True:
            moment = datetime.datetime(year, month, 1)
            if moment > end:
                return found
            if moment >= start and (month - 1) % multiple == 0:
                found.append(moment)
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    year = start.year
    while True:
        moment = datetime.datetime(year, 1, 1)
        if moment > end:
            return found
        if moment >= start and year % multiple == 0:
            found.append(moment)
        year += 1


def _unit_days(unit: str, multiple: int) -> float:
    return multiple * {"day": 1, "week": 7, "month": 30.44, "year": 365.25}[unit]


def time_ticks(
    start: datetime.datetime, end: datetime.datetime, count: int = 6
) -> tuple[list[datetime.datetime], str]:
    """Calendar boundaries within [start, end] (at most ``count`` of them when any
    step allows it) and the strftime format of their labels."""
    span_days = (end - start).total_seconds() / 86400
    for unit, multiple, label in _TIME_STEPS:
        if span_days / _unit_days(unit, multiple) > count:
            continue
        ticks = _boundaries(start, end, unit, multiple)
        if len(ticks) <= count:
            return ticks, label
    unit, multiple, label = _TIME_STEPS[-1]
    return _boundaries(start, end, unit, multiple), label


def _format_moment(moment: datetime.datetime, label: str) -> str:
    """strftime with numbers only (month names would follow the server's locale)."""
    return (
        label.replace("%Y", f"{moment.year:04d}")
        .replace("%m", f"{moment.month:02d}")
        .replace("%d", f"{moment.day:02d}")
    )


# --- Geometry

WIDTH = 640
HEIGHT = 300
MARGINS = (56.0, 16.0, 14.0, 34.0)  # left, right, top, bottom


def layout(
    points: Sequence[ChartPoint],
    *,
    width: int = WIDTH,
    height: int = HEIGHT,
    margins: tuple[float, float, float, float] = MARGINS,
    x_tick_count: int = 6,
    y_tick_count: int = 5,
) -> Chart:
    """The geometry of the chart of ``points`` (at least one)."""
    if not points:
        raise ValueError("a rating chart needs at least one point")
    for point in points:
        if not math.isfinite(point.rating):
            raise ValueError(f"rating {point.rating!r} is not a finite number")
    margin_left, margin_right, margin_top, margin_bottom = margins
    left, right = margin_left, width - margin_right
    top, bottom = margin_top, height - margin_bottom
    if right <= left or bottom <= top:
        raise ValueError("the margins leave no room to draw")

    moments = [as_datetime(point.when) for point in points]
    first, last = min(moments), max(moments)
    if last - first < _DAY:
        # One day (or one moment): show that whole day.
        start = datetime.datetime.combine(first.date(), datetime.time())
        end = start + _DAY
        if last > end:
            end = last
    else:
        padding = (last - first) * 0.03
        start, end = first - padding, last + padding
    x_scale = LinearScale((_seconds(start), _seconds(end)), (left, right))
    moments_ticks, label_format = time_ticks(start, end, x_tick_count)
    x_ticks = tuple(
        Tick(x_scale(_seconds(m)), _seconds(m), _format_moment(m, label_format))
        for m in moments_ticks
    )

    ratings = [point.rating for point in points]
    values = value_ticks(min(ratings), max(ratings), y_tick_count)
    y_scale = LinearScale((values[0], values[-1]), (bottom, top))
    step = values[1] - values[0] if len(values) > 1 else 1.0
    y_ticks = tuple(Tick(y_scale(v), v, _value_label(v, step)) for v in values)

    coordinates = tuple(
        (x_scale(_seconds(moment)), y_scale(point.rating))
        for moment, point in zip(moments, points, strict=True)
    )
    return Chart(
        width=width,
        height=height,
        left=left,
        right=right,
        top=top,
        bottom=bottom,
        x_scale=x_scale,
        y_scale=y_scale,
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        coordinates=coordinates,
    )


# --- SVG text


def _n(value: float) -> str:
    """A coordinate with one decimal, without a trailing ".0"."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _attr(value: str) -> str:
    return escape(value, quote=True)


def match_link(match_id: int) -> str:
    """The games app's match page."""
    return f"/matches/{match_id}/"


def render(
    chart: Chart,
    points: Sequence[ChartPoint],
    *,
    title: str,
    description: str,
    element_id: str = "rating-chart",
    link: Callable[[int], str] | None = match_link,
) -> str:
    """The SVG text of ``chart`` (from ``layout(points)``)."""
    if len(points) != len(chart.coordinates):
        raise ValueError("the chart was laid out for other points")
    ident = _attr(element_id)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rating-chart" id="{ident}"'
        f' viewBox="0 0 {chart.width} {chart.height}" role="img"'
        f' aria-labelledby="{ident}-title {ident}-desc"'
        ' preserveAspectRatio="xMidYMid meet" style="width:100%;height:auto;max-width:'
        f'{chart.width}px" font-family="system-ui, sans-serif" font-size="11">',
        f'<title id="{ident}-title">{escape(title)}</title>',
        f'<desc id="{ident}-desc">{escape(description)}</desc>',
        '<g class="grid" stroke="#e4ddd0" stroke-width="1">',
    ]
    for tick in chart.y_ticks:
        y = _n(tick.position)
        parts.append(f'<line x1="{_n(chart.left)}" y1="{y}" x2="{_n(chart.right)}" y2="{y}"/>')
    parts.append("</g>")

    parts.append('<g class="axis y-axis" fill="#555" text-anchor="end">')
    parts.append(
        f'<line stroke="#888" x1="{_n(chart.left)}" y1="{_n(chart.top)}"'
        f' x2="{_n(chart.left)}" y2="{_n(chart.bottom)}"/>'
    )
    for tick in chart.y_ticks:
        y = _n(tick.position)
        parts.append(
            f'<line stroke="#888" x1="{_n(chart.left - 4)}" y1="{y}" x2="{_n(chart.left)}" y2="{y}"/>'
            f'<text x="{_n(chart.left - 6)}" y="{_n(tick.position + 4)}">{escape(tick.label)}</text>'
        )
    parts.append("</g>")

    parts.append('<g class="axis x-axis" fill="#555" text-anchor="middle">')
    parts.append(
        f'<line stroke="#888" x1="{_n(chart.left)}" y1="{_n(chart.bottom)}"'
        f' x2="{_n(chart.right)}" y2="{_n(chart.bottom)}"/>'
    )
    for tick in chart.x_ticks:
        x = _n(tick.position)
        parts.append(
            f'<line stroke="#888" x1="{x}" y1="{_n(chart.bottom)}" x2="{x}" y2="{_n(chart.bottom + 4)}"/>'
            f'<text x="{x}" y="{_n(chart.bottom + 17)}">{escape(tick.label)}</text>'
        )
    parts.append("</g>")

    polyline = " ".join(f"{_n(x)},{_n(y)}" for x, y in chart.coordinates)
    parts.append(
        f'<polyline class="line" fill="none" stroke="#7a2e0e" stroke-width="2"'
        f' stroke-linejoin="round" points="{polyline}"/>'
    )

    parts.append('<g class="points" fill="#7a2e0e" stroke="#fff" stroke-width="1">')
    for point, (x, y) in zip(points, chart.coordinates, strict=True):
        circle = (
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="4"><title>{escape(point.label)}</title></circle>'
        )
        if link is not None and point.match_id is not None:
            parts.append(
                f'<a href="{_attr(link(point.match_id))}" aria-label="{_attr(point.label)}">'
                f"{circle}</a>"
            )
        else:
            parts.append(circle)
    parts.append("</g></svg>")
    return "".join(parts)


def rating_chart(
    points: Sequence[ChartPoint],
    *,
    title: str,
    description: str,
    element_id: str = "rating-chart",
    link: Callable[[int], str] | None = match_link,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> str:
    """The SVG chart of ``points`` in one call (see ``layout`` and ``render``)."""
    chart = layout(points, width=width, height=height)
    return render(
        chart, points, title=title, description=description, element_id=element_id, link=link
    )
