"""The web admin for tournaments, their entries, rounds and pairings: read-only lists.

Every change of a tournament goes through ``tournaments.services`` (state,
entries, pairings, results, standings), with its locks, its checks and the
public pages it expires; the organizer console (/organize/) is where those
services are called from.  Here staff find and read the rows and follow a link to
the console (or to a match's page): nothing is added, changed or deleted.

As in clubs/admin/, permissions come from clubs.permissions: the lists are cut
to the tournaments the user manages (``tournament.manage``, as one filter), and
each page asks the rule with the tournament.  The admin site itself stays
staff-only (Django's ``is_staff``).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy

from clubs.admin.base import PolicyAdmin
from tournaments import permissions as tournament_permissions
from tournaments.models import Entry, Pairing, Round, Tournament


def _managed(user: Any) -> models.Q:
    return tournament_permissions.managed_tournaments_q(user)


class ReadOnlyTournamentAdmin(PolicyAdmin):
    """Read-only pages of what a tournament holds, for the users who run tournaments."""

    view_action = "tournament.manage"

    def may_list(self, user: Any) -> bool:
        return tournament_permissions.runs_tournaments(user)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return tournament_permissions.runs_tournaments(request.user)

    def subject(self, obj: Any) -> Tournament:
        return obj  # type: ignore[no-any-return]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # created in the console (tournaments.services.create_tournament)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # every change is a service, called from the console

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [field.name for field in self.model._meta.fields if not field.primary_key]


def console_link(tournament: Tournament) -> str:
    return format_html(
        '<a href="{}">{}</a>',
        reverse("tournaments:console", args=[tournament.pk]),
        gettext_lazy("Open the console"),
    )


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyTournamentAdmin):
    list_display = (
        "name",
        "federation",
        "club",
        "discipline",
        "format",
        "state",
        "starts_on",
        "is_public",
        "console",
    )
    list_filter = (
        "state",
        "format",
        "is_public",
        ("federation", admin.RelatedOnlyFieldListFilter),
        ("discipline", admin.RelatedOnlyFieldListFilter),
    )
    search_fields = ("name", "slug", "federation__name", "club__name")
    list_select_related = ("federation", "club", "discipline")
    raw_id_fields = ("federation", "club", "discipline", "qualifies_from", "created_by")
    date_hierarchy = "starts_on"
    exclude = ("webhook_secret",)

    def scope(self, user: Any) -> models.QuerySet[Tournament]:
        return Tournament.objects.filter(_managed(user))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # The webhook's secret signs deliveries: it is shown nowhere but the console.
        shown = super().get_readonly_fields(request, obj)
        return [name for name in shown if name != "webhook_secret"] + ["console"]

    @admin.display(description=gettext_lazy("console"))
    def console(self, tournament: Tournament) -> str:
        return console_link(tournament)


@admin.register(Entry)
class EntryAdmin(ReadOnlyTournamentAdmin):
    list_display = ("player", "tournament", "seed", "rating", "status", "late", "console")
    list_filter = ("status", "late", ("tournament", admin.RelatedOnlyFieldListFilter))
    search_fields = ("player__name_native", "player__name_latin", "tournament__name")
    list_select_related = ("player", "tournament")
    raw_id_fields = ("tournament", "player")

    def scope(self, user: Any) -> models.QuerySet[Entry]:
        return Entry.objects.filter(tournament__in=Tournament.objects.filter(_managed(user)))

    def subject(self, obj: Entry) -> Tournament:
        return obj.tournament

    @admin.display(description=gettext_lazy("console"))
    def console(self, entry: Entry) -> str:
        return console_link(entry.tournament)


@admin.register(Round)
class RoundAdmin(ReadOnlyTournamentAdmin):
    list_display = (
        "tournament",
        "flight",
        "number",
        "match_length",
        "state",
        "silent",
        "started_at",
        "closed_at",
        "console",
    )
    list_filter = ("state", "flight", "silent", ("tournament", admin.RelatedOnlyFieldListFilter))
    search_fields = ("tournament__name",)
    list_select_related = ("tournament",)
    raw_id_fields = ("tournament",)

    def scope(self, user: Any) -> models.QuerySet[Round]:
        return Round.objects.filter(tournament__in=Tournament.objects.filter(_managed(user)))

    def subject(self, obj: Round) -> Tournament:
        return obj.tournament

    @admin.display(description=gettext_lazy("console"))
    def console(self, round_: Round) -> str:
        return console_link(round_.tournament)


@admin.register(Pairing)
class PairingAdmin(ReadOnlyTournamentAdmin):
    list_display = ("__str__", "player1", "player2", "forfeit_winner", "match_link")
    list_filter = ("round__state", ("round__tournament", admin.RelatedOnlyFieldListFilter))
    search_fields = (
        "round__tournament__name",
        "entry1__player__name_native",
        "entry1__player__name_latin",
        "entry2__player__name_native",
        "entry2__player__name_latin",
    )
    list_select_related = ("round__tournament", "entry1__player", "entry2__player")
    raw_id_fields = ("round", "entry1", "entry2", "match")

    def scope(self, user: Any) -> models.QuerySet[Pairing]:
        return Pairing.objects.filter(
            round__tournament__in=Tournament.objects.filter(_managed(user))
        )

    def subject(self, obj: Pairing) -> Tournament:
        return obj.round.tournament

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [*super().get_readonly_fields(request, obj), "match_link"]

    @admin.display(description=gettext_lazy("player 1"), ordering="entry1__player__name_latin")
    def player1(self, pairing: Pairing) -> str:
        return str(pairing.entry1.player)

    @admin.display(description=gettext_lazy("player 2"))
    def player2(self, pairing: Pairing) -> str:
        return str(pairing.entry2.player) if pairing.entry2_id else "—"

    @admin.display(description=gettext_lazy("match"))
    def match_link(self, pairing: Pairing) -> str:
        if pairing.match_id is None:
            return "—"
        return format_html(
            '<a href="{}">{}</a>',
            reverse("games:match", args=[pairing.match_id]),
            gettext_lazy("Open the match"),
        )
