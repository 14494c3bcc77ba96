from __future__ import annotations

from datetime import date

import pytest

from ratings.core import RatingError
from ratings.core.periods import day_period, day_period_start


def test_day_windows() -> None:
    assert day_period(date(2000, 1, 3), 30) == 0
    assert day_period(date(2000, 2, 1), 30) == 0
    assert day_period(date(2000, 2, 2), 30) == 1
    assert day_period(date(2000, 1, 2), 7) == -1
    period = day_period(date(2024, 6, 30), 7)
    assert day_period_start(period, 7) <= date(2024, 6, 30) < day_period_start(period + 1, 7)
    assert day_period_start(period, 7).weekday() == 0
    with pytest.raises(RatingError):
        day_period(date(2024, 1, 1), 0)
