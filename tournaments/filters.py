"""Filters of the tournaments API (django-filter)."""

from __future__ import annotations

import django_filters
from django.utils.translation import gettext_lazy as _

from clubs.filters import IntegerFilter
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

    class Meta:
        model = Tournament
        fields: list[str] = []


class EntryFilter(django_filters.FilterSet):
    tournament = IntegerFilter(field_name="tournament_id", help_text=_("Tournament id."))
    player = IntegerFilter(field_name="player_id", help_text=_("Player id."))
    status = django_filters.ChoiceFilter(choices=EntryStatus.choices)

    class Meta:
        model = Entry
        fields: list[str] = []


class RoundFilter(django_filters.FilterSet):
    tournament = IntegerFilter(field_name="tournament_id", help_text=_("Tournament id."))
    flight = django_filters.CharFilter(help_text=_("Flight name."))
    state = django_filters.ChoiceFilter(choices=RoundState.choices)

    class Meta:
        model = Round
        fields: list[str] = []


class PairingFilter(django_filters.FilterSet):
    tournament = IntegerFilter(field_name="round__tournament_id", help_text=_("Tournament id."))
    round = IntegerFilter(field_name="round_id", help_text=_("Round id."))
    flight = django_filters.CharFilter(field_name="round__flight", help_text=_("Flight name."))
    entry = IntegerFilter(method="filter_entry", help_text=_("Either entry (id)."))

    class Meta:
        model = Pairing
        fields: list[str] = []

    def filter_entry(self, queryset, name, value):  # type: ignore[no-untyped-def]
        from django.db.models import Q

        return queryset.filter(Q(entry1_id=value) | Q(entry2_id=value))


class StandingsFilter(django_filters.FilterSet):
    tournament = IntegerFilter(field_name="tournament_id", help_text=_("Tournament id."))

    class Meta:
        model = StandingsSnapshot
        fields: list[str] = []
