"""Filters of the games API (django-filter)."""

from __future__ import annotations

import django_filters
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy as _

from clubs.filters import IntegerFilter, date_range
from games.models import Match, MatchState, ReportStatus, ResultReport, ResultStatus


class MatchFilter(django_filters.FilterSet):
    player = IntegerFilter(method="filter_player", help_text=_("Either player (id)."))
    state = django_filters.ChoiceFilter(choices=MatchState.choices)
    result_status = django_filters.ChoiceFilter(choices=ResultStatus.choices)
    federation = IntegerFilter(field_name="federation_id", help_text=_("Federation id."))
    discipline = django_filters.CharFilter(
        field_name="discipline__code", help_text=_("Discipline code.")
    )
    recorded = django_filters.BooleanFilter()
    tournament = IntegerFilter(
        field_name="pairing__round__tournament_id", help_text=_("Tournament id.")
    )
    created_from, created_to = date_range(
        "created_at__date",
        _("Arranged on or after this day."),
        _("Arranged on or before this day."),
    )
    finished_from, finished_to = date_range(
        "finished_at__date",
        _("Finished on or after this day."),
        _("Finished on or before this day."),
    )

    class Meta:
        model = Match
        fields: list[str] = []

    def filter_player(self, queryset: QuerySet[Match], name: str, value: int) -> QuerySet[Match]:
        return queryset.filter(Q(player1_id=value) | Q(player2_id=value))


class ReportFilter(django_filters.FilterSet):
    match = IntegerFilter(field_name="match_id", help_text=_("Match id."))
    status = django_filters.ChoiceFilter(choices=ReportStatus.choices)
    player = IntegerFilter(method="filter_player", help_text=_("Either player of the match (id)."))
    tournament = IntegerFilter(
        field_name="match__pairing__round__tournament_id", help_text=_("Tournament id.")
    )
    created_from, created_to = date_range(
        "created_at__date",
        _("Reported on or after this day."),
        _("Reported on or before this day."),
    )

    class Meta:
        model = ResultReport
        fields: list[str] = []

    def filter_player(
        self, queryset: QuerySet[ResultReport], name: str, value: int
    ) -> QuerySet[ResultReport]:
        return queryset.filter(Q(match__player1_id=value) | Q(match__player2_id=value))
