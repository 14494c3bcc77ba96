"""Demo ratings: the pools of the demo federations, computed from the demo matches.

``load()`` must run after the demo matches exist (after the tournaments demo
in ``manage.py load_demo``).  Safe to run again: the pools are recomputed
from scratch, and a list already published is left as it is.  The history is
dated by the matches' finish times, which the tournaments demo spreads over
the tournaments' days; a list that would be empty is not published.
"""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from clubs.demo import FEDERATIONS
from clubs.models import FederationDiscipline
from ratings import adapters, services
from ratings.models import RatingChange, RatingList


def _month_starts(today: dt.date) -> list[dt.date]:
    """The 1st of last month and of this month: two lists, so the second shows changes."""
    this_month = today.replace(day=1)
    last_month = (this_month - dt.timedelta(days=1)).replace(day=1)
    return [last_month, this_month]


def load() -> list[services.Outcome]:
    slugs = [federation["slug"] for federation in FEDERATIONS]
    outcomes = []
    rated = FederationDiscipline.objects.filter(federation__slug__in=slugs).select_related(
        "federation", "discipline"
    )
    for rated_discipline in rated.order_by("pk"):
        pool = services.ensure_pool(rated_discipline)
        outcomes.append(services.recompute_pool(pool))
        for day in _month_starts(timezone.localdate()):
            if RatingList.objects.filter(pool=pool, date=day).exists():
                continue
            midnight = adapters.local_midnight(day)
            if not RatingChange.objects.filter(pool=pool, played_at__lt=midnight).exists():
                continue
            try:
                services.publish_list(pool, day, by=None)
            except services.EmptyRatingList:
                continue  # Glicko-2: no rating period had ended by then
    return outcomes
