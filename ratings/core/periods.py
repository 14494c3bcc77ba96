"""Glicko-2 rating periods as whole numbers, so that idle periods can be counted.

The pool maths only needs each rated match's period as an integer that never
decreases along the match order; RD grows once for every period number a
player skips (a calendar month without games counts, whether or not anyone
in the pool played in it).  The adapter picks one of:

- ``day_period``: fixed windows of N days from an epoch (``FederationDiscipline.glicko_period_days``);
- one period per tournament: the tournament's sequence number in the pool.

Dates, not datetimes: convert ``played_at`` to the federation's local date first.
"""

from __future__ import annotations

from datetime import date, timedelta

from ratings.core.errors import RatingError

EPOCH = date(2000, 1, 3)  # a Monday: 7-day periods run Monday to Sunday


def day_period(day: date, days: int, epoch: date = EPOCH) -> int:
    if days < 1:
        raise RatingError("bad_period_length", "a rating period lasts at least one day", days=days)
    return (day - epoch).days // days


def day_period_start(period: int, days: int, epoch: date = EPOCH) -> date:
    if days < 1:
        raise RatingError("bad_period_length", "a rating period lasts at least one day", days=days)
    return epoch + timedelta(days=period * days)
