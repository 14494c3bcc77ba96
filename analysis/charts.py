"""A player's PR over time as an SVG chart: the rating chart's geometry and drawing
(``ratings.charts``, plain Python), one point per analysed match, PR on the
vertical axis (lower is better, so a player improving draws a falling line)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ratings.charts import ChartPoint, rating_chart

__all__ = ["ChartPoint", "pr_chart"]


def pr_chart(
    points: Sequence[ChartPoint],
    *,
    title: str,
    description: str,
    link: Callable[[int], str] | None,
) -> str:
    """The SVG text of the PR chart (``points``: at least one; ``rating`` holds the PR)."""
    return rating_chart(
        points, title=title, description=description, element_id="pr-chart", link=link
    )
