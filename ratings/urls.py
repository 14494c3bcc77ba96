"""Pages of the ratings app: pools' lists, the archive, exports, players' histories."""

from __future__ import annotations

import datetime

from django.urls import path, register_converter

from ratings.views import public, staff


class IsoDateConverter:
    """A YYYY-MM-DD date in a URL (an impossible date such as 2024-02-30 is a 404)."""

    regex = r"\d{4}-\d{2}-\d{2}"

    def to_python(self, value: str) -> datetime.date:
        return datetime.date.fromisoformat(value)  # ValueError: no match

    def to_url(self, value: datetime.date | str) -> str:
        return value.isoformat() if isinstance(value, datetime.date) else str(value)


register_converter(IsoDateConverter, "ratingdate")

app_name = "ratings"

POOL = "f/<slug:slug>/ratings/<slug:code>/"

urlpatterns = [
    # Public
    path(POOL, public.pool_list, name="pool"),
    path(POOL + "archive/", public.archive, name="archive"),
    path(POOL + "live.csv", public.live_export, {"fmt": "csv"}, name="live_csv"),
    path(POOL + "live.xlsx", public.live_export, {"fmt": "xlsx"}, name="live_xlsx"),
    path(POOL + "<ratingdate:date>/", public.list_detail, name="list"),
    path(POOL + "<ratingdate:date>.csv", public.list_export, {"fmt": "csv"}, name="list_csv"),
    path(POOL + "<ratingdate:date>.xlsx", public.list_export, {"fmt": "xlsx"}, name="list_xlsx"),
    path("players/<int:pk>/ratings/<int:pool_id>/", public.history, name="history"),
    # Staff
    path(POOL + "publish/", staff.publish, name="publish"),
    path("archives/<int:pk>/rate/", staff.rate_archive, name="rate_archive"),
]
