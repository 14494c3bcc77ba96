from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import path
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from analysis import services, tasks
from analysis.models import MatchAnalysis
from base.tasks import owe
from base.throttles import RateThrottle, limit_posts, retry_message
from clubs import permissions


@admin.register(MatchAnalysis)
class MatchAnalysisAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("match", "state", "refusal", "pr1", "pr2", "decisions", "seconds")
    list_filter = ("state", "analyser", "depth")
    list_select_related = ("match", "match__player1", "match__player2")
    readonly_fields = [f.name for f in MatchAnalysis._meta.fields]
    actions = ["analyse_again"]

    change_list_template = "admin/analysis/matchanalysis/change_list.html"

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        context = {
            **(extra_context or {}),
            "progress": services.progress(),
            "may_queue": permissions.can(request.user, "analysis.queue_backlog"),
        }
        return super().changelist_view(request, extra_context=context)

    def get_urls(self) -> list[Any]:
        return [
            path(
                "backlog/",
                self.admin_site.admin_view(limit_posts("analysis")(self.backlog_view)),
                name="analysis_matchanalysis_backlog",
            ),
            *super().get_urls(),
        ]

    def backlog_view(self, request: HttpRequest) -> HttpResponse:
        """Queue the analysis of every match not analysed yet (a POST from the list)."""
        if request.method != "POST":
            return redirect("admin:analysis_matchanalysis_changelist")
        queued = services.queue_backlog(by=request.user)
        self.message_user(
            request,
            ngettext(
                "%(count)d match will be analysed.",
                "%(count)d matches will be analysed.",
                queued,
            )
            % {"count": queued},
            messages.SUCCESS,
        )
        return redirect("admin:analysis_matchanalysis_changelist")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description=_("Analyse the selected matches again"))
    def analyse_again(self, request: HttpRequest, queryset: QuerySet[MatchAnalysis]) -> None:
        # An analysis request costs a worker's CPU per match: counted like the
        # backlog button (the "analysis" scope), refused with when to try again.
        throttle = RateThrottle("analysis")
        if not throttle.allow_request(request, None):
            self.message_user(request, retry_message(throttle.wait()), messages.ERROR)
            return
        match_ids = list(queryset.values_list("match_id", flat=True))
        # A changed analyser or depth, or a record changed since: the task decides.
        MatchAnalysis.objects.filter(match_id__in=match_ids).update(record_hash="")
        for match_id in match_ids:
            owe(tasks.analyse_match, match_id)
        self.message_user(
            request,
            ngettext(
                "%(count)d match will be analysed again.",
                "%(count)d matches will be analysed again.",
                len(match_ids),
            )
            % {"count": len(match_ids)},
            messages.SUCCESS,
        )
