"""Filters of the clubs API (django-filter)."""

from __future__ import annotations

from typing import Any, TypeAlias

import django_filters
from django import forms
from django.db.models import Q, QuerySet
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django_countries.django_filters import CountryFilter
from drf_spectacular.utils import extend_schema_field

from base.fields import BIG
from clubs import permissions, queries
from clubs.models import Club, Federation, Gender, Membership, Player

# Ids and years: none is negative, none is past what a 64-bit column holds (a
# larger one would overflow the database's integer, a 500 on SQLite).
FILTER_RANGE = BIG

StrOrPromise: TypeAlias = str | Promise  # a help text, translated when shown


@extend_schema_field({"type": "integer", "minimum": FILTER_RANGE[0], "maximum": FILTER_RANGE[1]})
class IntegerFilter(django_filters.NumberFilter):
    """A whole number (an id, a year): NumberFilter would accept decimals.  One out
    of FILTER_RANGE is a 400."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", FILTER_RANGE[0])
        kwargs.setdefault("max_value", FILTER_RANGE[1])
        super().__init__(*args, **kwargs)


def date_range(
    field: str, first: StrOrPromise, last: StrOrPromise
) -> tuple[django_filters.DateFilter, django_filters.DateFilter]:
    """Two filters, ``<name>_from`` and ``<name>_to``, both inclusive, on a date (or on the
    day of a moment: ``field`` "created_at__date"), with their help texts."""
    return (
        django_filters.DateFilter(field_name=field, lookup_expr="gte", help_text=first),
        django_filters.DateFilter(field_name=field, lookup_expr="lte", help_text=last),
    )


# One word of a player's name, in either script (the public search asks it too).
name_condition = queries.name_condition


class PlayerFilter(django_filters.FilterSet):
    federation = IntegerFilter(field_name="federation_id", help_text=_("Federation id."))
    club = IntegerFilter(method="filter_club", help_text=_("Current member of this club (id)."))
    country = CountryFilter(help_text=_("ISO 3166 country code, such as RU or AZ."))
    gender = django_filters.ChoiceFilter(choices=Gender.choices)
    birth_year_min = IntegerFilter(method="filter_birth_year_min", help_text=_("Born in or after."))
    birth_year_max = IntegerFilter(
        method="filter_birth_year_max", help_text=_("Born in or before.")
    )
    name = django_filters.CharFilter(
        method="filter_name",
        help_text=_("Words of the name, in Cyrillic or Latin script, in any order."),
    )
    membership_number = django_filters.CharFilter(method="filter_membership_number")

    class Meta:
        model = Player
        fields: list[str] = []

    def filter_club(self, queryset: QuerySet[Player], name: str, value: int) -> QuerySet[Player]:
        current = Membership.objects.current().filter(club_id=value).values("player_id")
        return queryset.filter(id__in=current)

    def filter_name(self, queryset: QuerySet[Player], name: str, value: str) -> QuerySet[Player]:
        for word in value.split():
            queryset = queryset.filter(name_condition(word))
        return queryset

    def _published(self, queryset: QuerySet[Player], flag: str) -> QuerySet[Player]:
        """Only players whose ``flag`` data the user may see: filtering must not
        reveal what the federation does not publish."""
        user = getattr(self.request, "user", None)
        ids = permissions.private_data_federation_ids(user)
        if ids is None:
            return queryset
        allowed = Q(**{f"federation__{flag}": True}) | Q(federation_id__in=ids)
        if user is not None and user.is_authenticated:
            allowed |= Q(user=user)
        return queryset.filter(allowed)

    def filter_birth_year_min(
        self, queryset: QuerySet[Player], name: str, value: int
    ) -> QuerySet[Player]:
        return self._published(queryset, "show_birth_year").filter(birth_year__gte=value)

    def filter_birth_year_max(
        self, queryset: QuerySet[Player], name: str, value: int
    ) -> QuerySet[Player]:
        return self._published(queryset, "show_birth_year").filter(birth_year__lte=value)

    def filter_membership_number(
        self, queryset: QuerySet[Player], name: str, value: str
    ) -> QuerySet[Player]:
        return self._published(queryset, "show_membership_numbers").filter(
            membership_number__iexact=value.strip()
        )


class FederationFilter(django_filters.FilterSet):
    country = CountryFilter(help_text=_("ISO 3166 country code, such as RU or AZ."))
    discipline = django_filters.CharFilter(
        field_name="disciplines__code", help_text=_("Discipline code.")
    )

    class Meta:
        model = Federation
        fields: list[str] = []


class ClubFilter(django_filters.FilterSet):
    federation = IntegerFilter(field_name="federation_id", help_text=_("Federation id."))
    city = django_filters.CharFilter(field_name="city", lookup_expr="iexact")
    is_active = django_filters.BooleanFilter()

    class Meta:
        model = Club
        fields: list[str] = []


class MembershipFilter(django_filters.FilterSet):
    player = IntegerFilter(field_name="player_id", help_text=_("Player id."))
    club = IntegerFilter(field_name="club_id", help_text=_("Club id."))
    federation = IntegerFilter(field_name="club__federation_id", help_text=_("Federation id."))
    started_from, started_to = date_range(
        "start", _("Started on or after this day."), _("Started on or before this day.")
    )
    current = django_filters.BooleanFilter(
        method="filter_current", help_text=_("Only current (true) or only past and future (false).")
    )

    class Meta:
        model = Membership
        fields: list[str] = []

    def filter_current(
        self, queryset: QuerySet[Membership], name: str, value: bool
    ) -> QuerySet[Membership]:
        condition = queries.current_q()
        return queryset.filter(condition) if value else queryset.exclude(condition)
