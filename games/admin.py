"""The web admin for matches and result reports.

As in clubs/admin/, permissions come from clubs.permissions (the
``match.*`` rules, asked with the object) and each list is cut to the
matches of the federations the user administers.  Records are read-only
here: a match is created through ``games.services.create_match``, a result
changed only through ``games.services.override_result`` (the "Override the
result" page), and turns and reports keep their history untouched.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs import permissions
from clubs.admin.base import PolicyAdmin, PolicyForm, ReadOnlyAdminMixin
from games import queries, services
from games.forms import OverrideForm
from games.models import Game, Match, ReportResponse, ResultReport, Turn


def _may_list(user: Any) -> bool:
    """Site admins and federation admins (the ``match.arbitrate`` rule's holders)."""
    if not permissions.is_staff_admin(user):  # also turns away anonymous visitors
        return False
    return bool(permissions.is_site_admin(user) or permissions.admin_federations(user).exists())


def _matches(user: Any) -> models.QuerySet[Match]:
    if not permissions.is_staff_admin(user):
        return Match.objects.none()
    return Match.objects.filter(federation__in=permissions.admin_federations(user))


class ReadOnlyInline(ReadOnlyAdminMixin, admin.TabularInline):
    extra = 0
    can_delete = False

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None or permissions.can(request.user, "match.arbitrate", self.parent(obj))

    def parent(self, obj: Any) -> Match:
        return obj  # type: ignore[no-any-return]


class GameInline(ReadOnlyInline):
    model = Game
    fields = (
        "number",
        "score1_before",
        "score2_before",
        "crawford",
        "winner",
        "result",
        "cube",
        "points",
        "end",
    )
    readonly_fields = fields
    ordering = ("number",)


class MatchAddForm(PolicyForm):
    class Meta:
        model = Match
        fields = (
            "player1",
            "player2",
            "discipline",
            "length",
            "recorded",
            "clock_mode",
            "clock_reserve_seconds",
            "clock_per_point_seconds",
            "clock_move_seconds",
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        managed = permissions.managed_players(self.user).select_related("federation")
        for name in ("player1", "player2"):
            self.fields[name].queryset = managed

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        first, second = cleaned.get("player1"), cleaned.get("player2")
        if first and second and first.federation_id != second.federation_id:
            self.add_error("player2", _("Both players must belong to the same federation."))
        return cleaned


@admin.register(Match)
class MatchAdmin(PolicyAdmin):
    view_action = "match.arbitrate"
    list_display = ("__str__", "discipline", "state", "result_status", "score", "created_at")
    list_filter = ("state", "result_status", "recorded", "discipline")
    search_fields = (
        "player1__name_native",
        "player1__name_latin",
        "player2__name_native",
        "player2__name_latin",
    )
    list_select_related = ("player1", "player2", "discipline", "federation")
    date_hierarchy = "created_at"
    inlines = [GameInline]
    change_form_template = "games/admin/match_change_form.html"
    readonly_fields = (
        "player1",
        "player2",
        "discipline",
        "federation",
        "length",
        "recorded",
        "clock_label",
        "state",
        "result_status",
        "score1",
        "score2",
        "winner",
        "forfeit",
        "lost_on_time",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
        "turns_table",
    )

    def scope(self, user: Any) -> models.QuerySet[Match]:
        return _matches(user).select_related("player1", "player2", "discipline", "federation")

    def may_list(self, user: Any) -> bool:
        return _may_list(user)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _may_list(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return _may_list(request.user) and permissions.managed_players(request.user).exists()

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # read-only: a result changes through the override page

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_inlines(self, request: HttpRequest, obj: Any) -> list[Any]:
        return [] if obj is None else self.inlines

    def get_form(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = MatchAddForm
            kwargs["fields"] = MatchAddForm.Meta.fields
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return MatchAddForm.Meta.fields if obj is None else self.readonly_fields

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return () if obj is None else self.readonly_fields

    @admin.display(description=gettext_lazy("score"))
    def score(self, match: Match) -> str:
        return "" if match.score1 is None else f"{match.score1}–{match.score2}"

    @admin.display(description=gettext_lazy("clock"))
    def clock_label(self, match: Match) -> str:
        return queries.clock_label(match)

    @admin.display(description=gettext_lazy("turns"))
    def turns_table(self, match: Match) -> str:
        turns = (
            Turn.objects.filter(game__match=match)
            .select_related("game")
            .order_by("game__number", "number", "id")
        )
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
            "<td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    turn.game.number,
                    turn.number,
                    turn.side,
                    turn.get_kind_display(),
                    "-".join(map(str, turn.dice)),
                    turn.moves or turn.level,
                    turn.position_id or turn.position_text,
                    f"{queries.clock_reading(turn.clock1_ms)} {queries.clock_reading(turn.clock2_ms)}",
                    _("undone") if turn.undone_at else "",
                )
                for turn in turns
            ),
        )
        if not rows:
            return "—"
        head = format_html(
            "<tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th>"
            "<th>{}</th><th>{}</th><th></th></tr>",
            _("game"),
            _("turn"),
            _("side"),
            _("action"),
            _("dice"),
            _("moves"),
            _("position after"),
            _("clocks"),
        )
        return format_html("<table>{}{}</table>", head, rows)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            raise PermissionDenied  # read-only: results change through the override page
        data = {name: form.cleaned_data[name] for name in MatchAddForm.Meta.fields}
        self.adopt(obj, services.create_match(by=request.user, **data))

    # --- Overriding a result

    def get_urls(self) -> list[Any]:
        view = self.admin_site.admin_view
        return [
            path(
                "<path:object_id>/override/",
                view(self.override_view),
                name="games_match_override",
            ),
            *super().get_urls(),
        ]

    def override_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        match = self.get_object(request, object_id)
        if match is None:
            raise Http404(_("No such match."))
        if not permissions.can(request.user, "match.override", match):
            raise PermissionDenied
        newest = match.reports.order_by("-created_at", "-id").first()
        version = newest.pk if newest else 0
        form = OverrideForm(
            request.POST or None,
            initial={
                "version": version,
                "score1": match.score1,
                "score2": match.score2,
            },
        )
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            if (data.get("version") or 0) != version:
                self.message_user(
                    request,
                    _("The result changed meanwhile; check the current version."),
                    messages.ERROR,
                )
                return redirect("admin:games_match_override", match.pk)
            try:
                services.override_result(
                    match,
                    by=request.user,
                    score1=data["score1"],
                    score2=data["score2"],
                    reason=data["reason"],
                    forfeit=data["forfeit"],
                )
            except ValidationError as error:
                form.add_error(None, error)
            else:
                self.message_user(request, _("The result has been overridden."), messages.SUCCESS)
                return redirect("admin:games_match_change", match.pk)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Override the result: %(match)s") % {"match": match},
            "opts": self.model._meta,
            "original": match,
            "form": form,
            "page_url": reverse("games:match", args=[match.pk]),
        }
        return TemplateResponse(request, "games/admin/match_override.html", context)


class ResponseInline(ReadOnlyInline):
    model = ReportResponse
    fields = ("kind", "by", "reason", "at")
    readonly_fields = fields

    def parent(self, obj: Any) -> Match:
        return obj.match  # type: ignore[no-any-return]


@admin.register(ResultReport)
class ResultReportAdmin(PolicyAdmin):
    view_action = "match.arbitrate"
    list_display = ("match", "score", "source", "status", "reported_by", "created_at", "deadline")
    list_filter = ("status", "source")
    search_fields = (
        "match__player1__name_native",
        "match__player1__name_latin",
        "match__player2__name_native",
        "match__player2__name_latin",
    )
    list_select_related = ("match__player1", "match__player2", "reported_by")
    inlines = [ResponseInline]
    fields = (
        "match",
        "source",
        "reported_by",
        "reporter_side",
        "score1",
        "score2",
        "games",
        "mat_text",
        "reason",
        "status",
        "deadline",
        "created_at",
        "decided_at",
    )
    readonly_fields = fields

    def scope(self, user: Any) -> models.QuerySet[ResultReport]:
        return ResultReport.objects.filter(match__in=_matches(user))

    def subject(self, obj: ResultReport) -> Match:
        return obj.match

    def may_list(self, user: Any) -> bool:
        return _may_list(user)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _may_list(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # players report on the match page; arbiters decide disputes there

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=gettext_lazy("score"))
    def score(self, report: ResultReport) -> str:
        return f"{report.score1}–{report.score2}"
