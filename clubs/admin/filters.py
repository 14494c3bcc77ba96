"""List filters of the admin's change lists (players, memberships, federations)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django_countries import countries

from clubs import permissions
from clubs.models import Membership, Player


class ClubFilter(admin.SimpleListFilter):
    title = gettext_lazy("club")
    parameter_name = "club"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[Any, str]]:
        clubs = permissions.admin_clubs(request.user).order_by("name")
        return [(pk, name) for pk, name in clubs.values_list("pk", "name")]

    def queryset(self, request: HttpRequest, queryset: models.QuerySet[Any]) -> Any:
        value = self.value()
        if not value:
            return queryset
        if not (value.isascii() and value.isdigit() and len(value) <= 18):
            return queryset.none()  # no club has that id (nor could a bigint hold it)
        if queryset.model is Membership:
            return queryset.filter(club_id=self.value())
        members = Membership.objects.filter(club_id=self.value()).values("player_id")
        return queryset.filter(id__in=members)


class MembershipStateFilter(admin.SimpleListFilter):
    """Current or past membership: of the club chosen in the club filter, else of any club."""

    title = gettext_lazy("membership")
    parameter_name = "membership"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        choices = [("current", _("current member")), ("past", _("past member only"))]
        if model_admin.model is Player:
            choices.append(("none", _("never a member")))
        return choices

    def queryset(self, request: HttpRequest, queryset: models.QuerySet[Any]) -> Any:
        value = self.value()
        if not value:
            return queryset
        current = Membership.objects.current()
        if queryset.model is Membership:
            ids = current.values("id")
            return (
                queryset.filter(id__in=ids) if value == "current" else queryset.exclude(id__in=ids)
            )
        memberships = Membership.objects.all()
        club = request.GET.get(ClubFilter.parameter_name)
        # An id: ASCII digits ("²" is a digit, not to int()) that a bigint column holds.
        if club and club.isascii() and club.isdigit() and len(club) <= 18:
            memberships, current = memberships.filter(club_id=club), current.filter(club_id=club)
        now = queryset.filter(id__in=current.values("player_id"))
        if value == "current":
            return now
        if value == "past":
            return queryset.filter(id__in=memberships.values("player_id")).exclude(
                id__in=current.values("player_id")
            )
        return queryset.exclude(id__in=memberships.values("player_id"))


class CountryFilter(admin.SimpleListFilter):
    title = gettext_lazy("country")
    parameter_name = "country"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        codes = (
            model_admin.get_queryset(request)
            .exclude(country="")
            .order_by()
            .values_list("country", flat=True)
            .distinct()
        )
        return sorted(((code, countries.name(code)) for code in codes), key=lambda c: c[1])

    def queryset(self, request: HttpRequest, queryset: models.QuerySet[Any]) -> Any:
        return queryset.filter(country=self.value()) if self.value() else queryset


class ActiveFilter(admin.SimpleListFilter):
    title = gettext_lazy("status")
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("active", _("active")), ("merged", _("merged into another player"))]

    def queryset(self, request: HttpRequest, queryset: models.QuerySet[Any]) -> Any:
        if self.value() == "active":
            return queryset.filter(merged_into__isnull=True)
        if self.value() == "merged":
            return queryset.filter(merged_into__isnull=False)
        return queryset
