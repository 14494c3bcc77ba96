"""Filters of the ratings API (django-filter), and of a published list's entries."""

from __future__ import annotations

import django_filters
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from base.fields import id_field
from clubs.filters import IntegerFilter, date_range, name_condition
from ratings.models import RatingChange, RatingList, RatingListEntry, RatingPool


class RatingPoolFilter(django_filters.FilterSet):
    federation = IntegerFilter(
        field_name="rated_discipline__federation_id", help_text=_("Federation id.")
    )
    federation_slug = django_filters.CharFilter(
        field_name="rated_discipline__federation__slug", help_text=_("Federation slug.")
    )
    discipline = django_filters.CharFilter(
        field_name="rated_discipline__discipline__code", help_text=_("Discipline code.")
    )

    class Meta:
        model = RatingPool
        fields: list[str] = []


class RatingListFilter(django_filters.FilterSet):
    pool = IntegerFilter(field_name="pool_id", help_text=_("Rating pool id."))
    federation = IntegerFilter(
        field_name="pool__rated_discipline__federation_id", help_text=_("Federation id.")
    )
    discipline = django_filters.CharFilter(
        field_name="pool__rated_discipline__discipline__code", help_text=_("Discipline code.")
    )
    date_from, date_to = date_range(
        "date", _("Lists of this day or later."), _("Lists of this day or earlier.")
    )

    class Meta:
        model = RatingList
        fields: list[str] = []


class RatingHistoryFilter(django_filters.FilterSet):
    pool = IntegerFilter(field_name="pool_id", help_text=_("Rating pool id."))
    played_from, played_to = date_range(
        "played_at__date",
        _("Changes of this day or later."),
        _("Changes of this day or earlier."),
    )

    class Meta:
        model = RatingChange
        fields: list[str] = []


class ListEntriesQuery(serializers.Serializer):
    """The filters of a published list's entries (GET /api/rating-lists/{id}/)."""

    player = id_field(required=False, help_text=_("The entry of this player (id)."))
    name = serializers.CharField(
        required=False,
        max_length=200,
        help_text=_("Words of the name, in Cyrillic or Latin script, in any order."),
    )

    def entries(self, entries: QuerySet[RatingListEntry]) -> QuerySet[RatingListEntry]:
        """The entries the query asks for (call after ``is_valid``)."""
        wanted = self.validated_data
        if "player" in wanted:
            entries = entries.filter(player_id=wanted["player"])
        for word in wanted.get("name", "").split():
            entries = entries.filter(name_condition(word, "player__"))
        return entries
