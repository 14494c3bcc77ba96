"""Players, with their memberships, the export action and the duplicates page."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from anyascii import anyascii
from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs import csv_io, imports, permissions, queries, services
from clubs.admin.base import (
    PolicyAdmin,
    PolicyForm,
    csv_response,
    date_stamp,
    error_text,
    with_import_links,
)
from clubs.admin.filters import ActiveFilter, ClubFilter, CountryFilter, MembershipStateFilter
from clubs.admin.memberships import MembershipInline, save_memberships
from clubs.models import Club, Federation, Membership, Player


class PlayerForm(PolicyForm):
    club = forms.ModelChoiceField(
        queryset=Club.objects.none(),
        required=False,
        label=gettext_lazy("club"),
        help_text=gettext_lazy("The new player joins this club today."),
    )

    class Meta:
        model = Player
        fields = services.PLAYER_FIELDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        federations = permissions.admin_federations(self.user)
        if not permissions.is_site_admin(self.user):
            clubs = permissions.administered_clubs(self.user)
            federations = Federation.objects.filter(
                models.Q(pk__in=federations.values("pk"))
                | models.Q(pk__in=clubs.values("federation_id"))
                | models.Q(pk=self.instance.federation_id)
            )
        if "federation" in self.fields:
            self.fields["federation"].queryset = federations
        self.fields["club"].queryset = (
            permissions.admin_clubs(self.user).select_related("federation").order_by("name")
        )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        federation, club = cleaned.get("federation"), cleaned.get("club")
        if self.instance.pk is None:
            if club and federation and club.federation_id != federation.pk:
                self.add_error("club", _("This club belongs to another federation."))
            scope = club or federation
            allowed = (
                permissions.can(self.user, "player.create", scope)
                if scope
                else permissions.can(self.user, "federation.create")
            )
            if not allowed:
                self.add_error(
                    "club" if club else "federation",
                    _("You may not add players here: choose a club you administer."),
                )
        elif "federation" in self.changed_data and not (
            permissions.can(self.user, "player.delete", self.instance)
            and (federation is None or permissions.can(self.user, "player.create", federation))
        ):
            self.add_error(
                "federation", _("Only the admins of both federations may move a player.")
            )
        return cleaned


@admin.action(description=gettext_lazy("Export the selected players (CSV)"))
def export_players_csv(modeladmin: Any, request: HttpRequest, queryset: Any) -> HttpResponse:
    data = csv_io.write_players(imports.player_rows(queryset))
    return csv_response(data, f"players-{date_stamp()}.csv")


class MergeForm(forms.Form):
    survivor = forms.IntegerField()
    duplicates = forms.TypedMultipleChoiceField(coerce=int, choices=())

    def __init__(self, group_ids: list[int], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["duplicates"].choices = [(pk, pk) for pk in group_ids]


@admin.register(Player)
class PlayerAdmin(PolicyAdmin):
    view_action = "player.view"
    change_action = "player.change"
    delete_action = "player.delete"
    federation_staff_delete = True
    form = PlayerForm
    inlines = [MembershipInline]
    list_display = (
        "name_native",
        "name_latin",
        "membership_number",
        "federation",
        "current_clubs",
        "birth_year",
        "gender",
        "country",
        "is_active",
    )
    list_filter = (
        ("federation", admin.RelatedOnlyFieldListFilter),
        ClubFilter,
        MembershipStateFilter,
        CountryFilter,
        "gender",
        ActiveFilter,
    )
    search_fields = (
        "name_native",
        "name_latin",
        "membership_number",
        "memberships__club__city",
        "memberships__club__name",
    )
    list_select_related = ("federation",)
    readonly_fields = ("user", "merged_into", "created_at", "updated_at")
    actions = [export_players_csv]
    change_list_template = "admin/clubs/change_list_with_tools.html"

    def scope(self, user: Any) -> models.QuerySet[Player]:
        return permissions.admin_players(user).prefetch_related(
            models.Prefetch(
                "memberships",
                queryset=Membership.objects.current().select_related("club").order_by("-start"),
                to_attr="current_memberships",
            )
        )

    @admin.display(description=gettext_lazy("clubs"))
    def current_clubs(self, player: Player) -> str:
        return ", ".join(m.club.name for m in getattr(player, "current_memberships", []))

    @admin.display(description=gettext_lazy("active"), boolean=True)
    def is_active(self, player: Player) -> bool:
        return player.is_active

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(services.PLAYER_FIELDS)
        return [*fields, *self.readonly_fields] if obj else [*fields, "club"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return self.readonly_fields if obj else ()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return permissions.is_staff_admin(request.user)

    def get_search_results(
        self, request: HttpRequest, queryset: models.QuerySet[Player], search_term: str
    ) -> tuple[models.QuerySet[Player], bool]:
        results, duplicates = super().get_search_results(request, queryset, search_term)
        # "Мамедов" also finds a player entered only as "Mamedov".
        latin = anyascii(search_term).replace("'", "").strip()
        if latin and latin != search_term.strip():
            results = results | queryset.filter(name_latin__icontains=latin)
        return results, duplicates

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            original = Player.objects.select_related("federation").get(pk=obj.pk)
            values = self.changed_values(form, services.PLAYER_FIELDS)
            self.adopt(obj, services.update_player(original, by=request.user, **values))
        else:
            values = {name: form.cleaned_data[name] for name in services.PLAYER_FIELDS}
            club = form.cleaned_data.get("club")
            self.adopt(obj, services.create_player(by=request.user, club=club, **values))

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        save_memberships(request, Player.objects.get(pk=form.instance.pk), formset)

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        services.delete_player(obj, by=request.user)

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> Any:
        return super().changelist_view(request, with_import_links(request, extra_context))

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view(self.duplicates_view)
        return [path("duplicates/", view, name="clubs_player_duplicates"), *super().get_urls()]

    def duplicates_view(self, request: HttpRequest) -> HttpResponse:
        user = request.user
        federations = list(permissions.admin_federations(user))
        if not federations:
            raise PermissionDenied
        chosen = request.POST.get("federation") or request.GET.get("federation")
        federation = next((f for f in federations if str(f.pk) == chosen), federations[0])
        if not permissions.can(user, "player.merge", Player(federation=federation)):
            raise PermissionDenied
        if request.method == "POST":
            self._merge(request, federation)
            url = reverse("admin:clubs_player_duplicates")
            return HttpResponseRedirect(f"{url}?federation={federation.pk}")
        groups = queries.duplicate_groups(federation)
        ids = [player.pk for group in groups for player in group]
        clubs: dict[int, list[str]] = defaultdict(list)
        for membership in (
            Membership.objects.current().filter(player_id__in=ids).select_related("club")
        ):
            clubs[membership.player_id].append(membership.club.name)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Possible duplicates: %(federation)s") % {"federation": federation},
            "opts": self.model._meta,
            "federations": federations,
            "federation": federation,
            "groups": [
                [(player, clubs.get(player.pk, [])) for player in group] for group in groups
            ],
        }
        return TemplateResponse(request, "admin/clubs/player/duplicates.html", context)

    def _merge(self, request: HttpRequest, federation: Federation) -> None:
        group = [  # ids a bigint holds, in ASCII digits ("²" is a digit, not to int())
            int(pk)
            for pk in request.POST.getlist("group")
            if pk.isascii() and pk.isdigit() and len(pk) <= 18
        ]
        form = MergeForm(group, request.POST)
        if not form.is_valid() or form.cleaned_data["survivor"] not in group:
            self.message_user(request, _("Choose the player to keep."), messages.ERROR)
            return
        survivor_id = form.cleaned_data["survivor"]
        others = [pk for pk in form.cleaned_data["duplicates"] if pk != survivor_id]
        if not others:
            self.message_user(request, _("Choose at least one duplicate to merge."), messages.ERROR)
            return
        players = {
            player.pk: player
            for player in permissions.admin_players(request.user).filter(
                federation=federation, pk__in=[survivor_id, *others]
            )
        }
        try:
            with transaction.atomic():
                if len(players) != len(others) + 1:
                    raise ValidationError(_("Some of these players are no longer on the list."))
                survivor = players[survivor_id]
                for pk in others:
                    survivor = services.merge_players(survivor, players[pk], by=request.user)
        except (ValidationError, PermissionDenied) as error:
            text = error_text(error) if isinstance(error, ValidationError) else str(error)
            self.message_user(request, text, messages.ERROR)
            return
        self.message_user(
            request,
            _("Merged %(count)d duplicates into %(player)s.")
            % {"count": len(others), "player": survivor},
            messages.SUCCESS,
        )
