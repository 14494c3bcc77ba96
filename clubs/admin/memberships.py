"""Memberships: the row form and inline of a player's page, and their own page."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.utils.translation import gettext as _

from clubs import permissions, services
from clubs.admin.base import PolicyAdmin, PolicyForm, PolicyInline, record_formset
from clubs.admin.filters import ClubFilter, MembershipStateFilter
from clubs.models import Club, Membership, Player

# --- A player's memberships: the row form, its saving, the inline


class MembershipForm(PolicyForm):
    """A membership row: the user must administer its club (before and after the change)."""

    class Meta:
        model = Membership
        fields = ("player", "club", "start", "end")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "club" in self.fields:
            allowed = permissions.admin_clubs(self.user).values("pk")
            clubs = Club.objects.filter(pk__in=allowed)
            if self.instance.pk:
                clubs = Club.objects.filter(
                    models.Q(pk__in=allowed) | models.Q(pk=self.instance.club_id)
                )
            self.fields["club"].queryset = clubs.select_related("federation")
        if "player" in self.fields:
            self.fields["player"].queryset = permissions.admin_players(self.user)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if not self.has_changed():
            return cleaned
        clubs = [cleaned.get("club")]
        if self.instance.pk:
            clubs.append(self.instance.club)
            if "club" in self.changed_data or "player" in self.changed_data:
                self.add_error(
                    None,
                    _("To move a player to another club, end this membership and add a new one."),
                )
        for club in filter(None, clubs):
            if not permissions.can(self.user, "membership.change", club):
                self.add_error(None, _("You do not administer %(club)s.") % {"club": club})
        return cleaned


def save_memberships(request: HttpRequest, player: Player, formset: Any) -> None:
    new, changed, deleted = [], [], []
    for row in formset.forms:
        if not row.has_changed() or not row.cleaned_data:
            continue
        original = (
            Membership.objects.select_related("club__federation", "player").get(pk=row.instance.pk)
            if row.instance.pk
            else None
        )
        if row in formset.deleted_forms:
            if original is not None:
                services.delete_membership(original, by=request.user)
                deleted.append(original)
            continue
        start, end = row.cleaned_data["start"], row.cleaned_data.get("end")
        if original is None:
            club = row.cleaned_data["club"]
            new.append(services.add_membership(player, club, by=request.user, start=start, end=end))
        elif original.end is None and end is not None and start == original.start:
            changed.append((services.end_membership(original, by=request.user, end=end), ["end"]))
        else:
            membership = services.update_membership(original, by=request.user, start=start, end=end)
            changed.append((membership, row.changed_data))
    record_formset(formset, new, changed, deleted)


class MembershipInline(PolicyInline):
    model = Membership
    form = MembershipForm
    parent_action = "player.change"
    fields = ("club", "start", "end")
    ordering = ("-start",)

    def get_queryset(self, request: HttpRequest) -> models.QuerySet[Membership]:
        return super().get_queryset(request).select_related("club")


# --- Memberships on their own page


@admin.register(Membership)
class MembershipAdmin(PolicyAdmin):
    change_action = delete_action = "membership.change"
    form = MembershipForm
    list_display = ("player", "club", "start", "end")
    list_filter = (ClubFilter, MembershipStateFilter)
    search_fields = ("player__name_native", "player__name_latin", "player__membership_number")
    list_select_related = ("player", "club")
    autocomplete_fields = ("player",)
    fields = ("player", "club", "start", "end")

    def scope(self, user: Any) -> models.QuerySet[Membership]:
        return permissions.admin_memberships(user)

    def subject(self, obj: Membership) -> Club:
        return obj.club

    def has_add_permission(self, request: HttpRequest) -> bool:
        return permissions.is_staff_admin(request.user)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        data = form.cleaned_data
        if not change:
            saved = services.add_membership(
                data["player"],
                data["club"],
                by=request.user,
                start=data["start"],
                end=data.get("end"),
            )
        else:
            original = Membership.objects.select_related("club__federation", "player").get(
                pk=obj.pk
            )
            if original.end is None and data.get("end") and data["start"] == original.start:
                saved = services.end_membership(original, by=request.user, end=data["end"])
            else:
                saved = services.update_membership(
                    original, by=request.user, start=data["start"], end=data.get("end")
                )
        self.adopt(obj, saved)

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.delete_membership(obj, by=request.user)
