"""The web admin for rating pools and their published lists: read-only lists.

Ratings are written only by ``ratings.services`` (the incremental update after a
result, a recomputation, the publication of a list), under the pool's row lock
and with the versions the public pages are keyed by; a published list is
frozen.  Here staff find and read them, with links to the public pages and to
the page that publishes a list (which asks ``rating_list.publish`` itself):
nothing is added, changed or deleted.

As in clubs/admin/, the lists are cut to the pools of the federations the user
administers, and each page asks the policy (``rating_list.publish``: the
federation's admins) with the pool.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy

from clubs import permissions
from clubs.admin.base import PolicyAdmin
from ratings.models import RatingList, RatingListEntry, RatingPool


def _may_list(user: Any) -> bool:
    """Site admins and federation admins (the holders of the ratings rules)."""
    if not permissions.is_staff_admin(user):  # also turns away anonymous visitors
        return False
    return bool(permissions.is_site_admin(user) or permissions.admin_federations(user).exists())


def _pools(user: Any) -> models.QuerySet[RatingPool]:
    if not permissions.is_staff_admin(user):
        return RatingPool.objects.none()
    return RatingPool.objects.filter(
        rated_discipline__federation__in=permissions.admin_federations(user)
    )


class ReadOnlyRatingsAdmin(PolicyAdmin):
    view_action = "rating_list.publish"

    def may_list(self, user: Any) -> bool:
        return _may_list(user)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _may_list(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # pools and lists are made by ratings.services

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # ratings change only through ratings.services

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [field.name for field in self.model._meta.fields if not field.primary_key]


def _pool_link(pool: RatingPool) -> str:
    link = pool.rated_discipline
    return format_html(
        '<a href="{}">{}</a>',
        reverse("ratings:pool", args=[link.federation.slug, link.discipline.code]),
        gettext_lazy("Public page"),
    )


POOL_JOINS = ("rated_discipline__federation", "rated_discipline__discipline")


@admin.register(RatingPool)
class RatingPoolAdmin(ReadOnlyRatingsAdmin):
    list_display = (
        "__str__",
        "system",
        "computed_at",
        "computed_through_at",
        "version",
        "public_page",
        "publish_page",
    )
    list_filter = (("rated_discipline__federation", admin.RelatedOnlyFieldListFilter),)
    search_fields = ("rated_discipline__federation__name", "rated_discipline__discipline__name")
    list_select_related = POOL_JOINS
    raw_id_fields = ("rated_discipline",)

    def scope(self, user: Any) -> models.QuerySet[RatingPool]:
        return _pools(user)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [*super().get_readonly_fields(request, obj), "public_page", "publish_page"]

    @admin.display(description=gettext_lazy("rating system"))
    def system(self, pool: RatingPool) -> str:
        return pool.rated_discipline.get_rating_system_display()

    @admin.display(description=gettext_lazy("public page"))
    def public_page(self, pool: RatingPool) -> str:
        return _pool_link(pool)

    @admin.display(description=gettext_lazy("publish a list"))
    def publish_page(self, pool: RatingPool) -> str:
        link = pool.rated_discipline
        return format_html(
            '<a href="{}">{}</a>',
            reverse("ratings:publish", args=[link.federation.slug, link.discipline.code]),
            gettext_lazy("Publish a list"),
        )


@admin.register(RatingList)
class RatingListAdmin(ReadOnlyRatingsAdmin):
    list_display = ("__str__", "date", "published_at", "players", "public_page")
    list_filter = (
        "date",
        ("pool__rated_discipline__federation", admin.RelatedOnlyFieldListFilter),
    )
    search_fields = (
        "pool__rated_discipline__federation__name",
        "pool__rated_discipline__discipline__name",
    )
    list_select_related = tuple(f"pool__{join}" for join in POOL_JOINS)
    raw_id_fields = ("pool",)
    date_hierarchy = "date"

    def scope(self, user: Any) -> models.QuerySet[RatingList]:
        # The number of players is counted in the list's own query, not once per row.
        return RatingList.objects.filter(pool__in=_pools(user)).annotate(
            player_count=models.Count("entries")
        )

    def subject(self, obj: RatingList) -> RatingPool:
        return obj.pool

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [*super().get_readonly_fields(request, obj), "players", "public_page"]

    @admin.display(description=gettext_lazy("players"), ordering="player_count")
    def players(self, rating_list: RatingList) -> int:
        return rating_list.player_count  # type: ignore[attr-defined,no-any-return]

    @admin.display(description=gettext_lazy("public page"))
    def public_page(self, rating_list: RatingList) -> str:
        if not rating_list.is_published:
            return "—"
        link = rating_list.pool.rated_discipline
        return format_html(
            '<a href="{}">{}</a>',
            reverse(
                "ratings:list", args=[link.federation.slug, link.discipline.code, rating_list.date]
            ),
            gettext_lazy("Public page"),
        )


@admin.register(RatingListEntry)
class RatingListEntryAdmin(ReadOnlyRatingsAdmin):
    list_display = (
        "rank",
        "player",
        "rating",
        "rd",
        "matches",
        "provisional",
        "change",
        "rating_list",
    )
    list_filter = (
        "provisional",
        ("rating_list__pool__rated_discipline__federation", admin.RelatedOnlyFieldListFilter),
    )
    search_fields = ("player__name_native", "player__name_latin")
    list_select_related = ("player", *(f"rating_list__pool__{join}" for join in POOL_JOINS))
    raw_id_fields = ("rating_list", "player")

    def scope(self, user: Any) -> models.QuerySet[RatingListEntry]:
        return RatingListEntry.objects.filter(rating_list__pool__in=_pools(user))

    def subject(self, obj: RatingListEntry) -> RatingPool:
        return obj.rating_list.pool
