"""Filters of the tournaments API (django-filter)."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from base.fields import id_field
from clubs.filters import IntegerFilter, date_range
from tournaments.formats import registry
from tournaments.models import (
    Entry,
    EntryStatus,
    Pairing,
    Round,
    RoundState,
    StandingsSnapshot,
    Tournament,
    TournamentState,
)


class TournamentFilter(django_filters.FilterSet):
    federation = IntegerFilter(field_name="federation_id", help_text=_("Federation id."))
    club = IntegerFilter(field_name="club_id", help_text=_("Host club id."))
    state = django_filters.ChoiceFilter(choices=TournamentState.choices)
    format = django_filters.ChoiceFilter(choices=registry.choices())
    discipline = django_filters.CharFilter(
        field_name="discipline__code", help_text=_("Discipline code.")
    )
    starts_from, starts_to = date_range(
        "starts_on", _("Starting on or after this day."), _("Starting on or before this day.")
    )

    class Meta:
        model = Tournament
        fields: list[str] = []


class EntryFilter(django_filters.FilterSet):
    tournament = IntegerFilter(field_name="tournament_id", help_text=_("Tournament id."))
    player = IntegerFilter(field_name="player_id", help_text=_("Player id."))
    status = django_filters.ChoiceFilter(choices=EntryStatus.choices)
    federation = IntegerFilter(
        field_name="player__federation_id", help_text=_("The player's federation (id).")
    )

    class Meta:
        model = Entry
        fields: list[str] = []


class RoundFilter(django_filters.FilterSet):
    tournament = IntegerFilter(field_name="tournament_id", help_text=_("Tournament id."))
    flight = django_filters.CharFilter(help_text=_("Flight name."))
    number = IntegerFilter(help_text=_("Round number."))
    state = django_filters.ChoiceFilter(choices=RoundState.choices)

    class Meta:
        model = Round
        fields: list[str] = []


class PairingFilter(django_filters.FilterSet):
    tournament = IntegerFilter(field_name="round__tournament_id", help_text=_("Tournament id."))
    round = IntegerFilter(field_name="round_id", help_text=_("Round id."))
    flight = django_filters.CharFilter(field_name="round__flight", help_text=_("Flight name."))
    round_number = IntegerFilter(field_name="round__number", help_text=_("Round number."))
    entry = IntegerFilter(method="filter_entry", help_text=_("Either entry (id)."))
    player = IntegerFilter(method="filter_player", help_text=_("Either player (id)."))

    class Meta:
        model = Pairing
        fields: list[str] = []

    def filter_entry(self, queryset: QuerySet[Pairing], name: str, value: int) -> QuerySet[Pairing]:
        return queryset.filter(Q(entry1_id=value) | Q(entry2_id=value))

    def filter_player(
        self, queryset: QuerySet[Pairing], name: str, value: int
    ) -> QuerySet[Pairing]:
        return queryset.filter(Q(entry1__player_id=value) | Q(entry2__player_id=value))


class StandingsFilter(django_filters.FilterSet):
    tournament = IntegerFilter(field_name="tournament_id", help_text=_("Tournament id."))
    after_round = IntegerFilter(help_text=_("After this round."))
    published = django_filters.BooleanFilter(
        field_name="published_at",
        lookup_expr="isnull",
        exclude=True,
        help_text=_("Only published (true) or only unpublished (false) standings."),
    )

    class Meta:
        model = StandingsSnapshot
        fields: list[str] = []


class StandingsRowsQuery(serializers.Serializer):
    """The filters of a standings table's rows (JSON in the snapshot, filtered as read)."""

    flight = serializers.CharField(
        required=False, max_length=20, help_text=_("Rows of this flight only.")
    )
    player = id_field(required=False, help_text=_("The row of this player (id)."))
    entry = id_field(required=False, help_text=_("The row of this entry (id)."))

    def rows(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The rows the query asks for, in their order (call after ``is_valid``)."""
        wanted = self.validated_data
        return [row for row in rows if all(row.get(key) == value for key, value in wanted.items())]
