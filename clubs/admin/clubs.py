"""Clubs: their form, page and CSV export action."""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs import csv_io, imports, permissions, services
from clubs.admin.base import (
    PolicyAdmin,
    PolicyForm,
    csv_response,
    date_stamp,
    is_federation_staff,
    with_import_links,
)
from clubs.models import Club


def _formfield(field: models.Field[Any, Any], **kwargs: Any) -> Any:
    if isinstance(field, models.URLField):
        kwargs.setdefault("assume_scheme", "https")
    return field.formfield(**kwargs)


class ClubForm(PolicyForm):
    class Meta:
        model = Club
        fields = ("federation", *services.CLUB_FIELDS)
        formfield_callback = _formfield

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "federation" in self.fields:
            self.fields["federation"].queryset = permissions.admin_federations(self.user)
        if "slug" in self.fields:
            self.fields["slug"].required = False
            self.fields["slug"].help_text = _("Left empty, it is made from the name.")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        federation = cleaned.get("federation")
        if federation and not permissions.can(self.user, "club.create", federation):
            self.add_error("federation", _("You may not add clubs to this federation."))
        return cleaned


@admin.action(description=gettext_lazy("Export the selected clubs (CSV)"))
def export_clubs_csv(modeladmin: Any, request: HttpRequest, queryset: Any) -> HttpResponse:
    data = csv_io.write_clubs(imports.club_rows(queryset))
    return csv_response(data, f"clubs-{date_stamp()}.csv")


@admin.register(Club)
class ClubAdmin(PolicyAdmin):
    change_action = "club.change"
    delete_action = "club.delete"
    federation_staff_delete = True
    form = ClubForm
    list_display = ("name", "city", "federation", "is_active", "member_count")
    list_filter = (("federation", admin.RelatedOnlyFieldListFilter), "is_active")
    search_fields = ("name", "city")
    list_select_related = ("federation",)
    actions = [export_clubs_csv]
    change_list_template = "admin/clubs/change_list_with_tools.html"

    def scope(self, user: Any) -> models.QuerySet[Club]:
        today = datetime.date.today()
        current = models.Q(memberships__start__lte=today) & (
            models.Q(memberships__end__isnull=True) | models.Q(memberships__end__gte=today)
        )
        return permissions.admin_clubs(user).annotate(
            members=models.Count("memberships", filter=current)
        )

    @admin.display(description=gettext_lazy("members"), ordering="members")
    def member_count(self, club: Club) -> int:
        return int(getattr(club, "members", 0))

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(services.CLUB_FIELDS)
        return fields if obj else ["federation", *fields]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("federation",) if obj else ()

    def get_prepopulated_fields(self, request: HttpRequest, obj: Any = None) -> dict[str, Any]:
        return {} if obj else {"slug": ("name",)}

    def has_add_permission(self, request: HttpRequest) -> bool:
        return is_federation_staff(request.user)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            original = Club.objects.select_related("federation").get(pk=obj.pk)
            values = self.changed_values(form, services.CLUB_FIELDS)
            self.adopt(obj, services.update_club(original, by=request.user, **values))
        else:
            values = {name: form.cleaned_data[name] for name in services.CLUB_FIELDS}
            federation = form.cleaned_data["federation"]
            self.adopt(obj, services.create_club(federation, by=request.user, **values))

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.delete_club(obj, by=request.user)

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> Any:
        return super().changelist_view(request, with_import_links(request, extra_context))
