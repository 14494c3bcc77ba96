"""Failed sign-ins remembered by django-axes (clubs.lockout): a site admin lifts a
lockout by deleting its rows or with the "Lift these lockouts" action, and either
way the audit log says who lifted which."""

from __future__ import annotations

from typing import Any

from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from django.contrib import admin, messages
from django.db import models
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from clubs import lockout

if admin.site.is_registered(AccessAttempt):
    admin.site.unregister(AccessAttempt)


@admin.register(AccessAttempt)
class SignInAttemptAdmin(AccessAttemptAdmin):
    """axes' page of attempts; its permissions are Django's model permissions, which
    only site admins hold here (clubs.admin: staff have none)."""

    actions = ["lift_lockouts"]

    @admin.action(description=_("Lift these lockouts"))
    def lift_lockouts(self, request: HttpRequest, queryset: models.QuerySet[AccessAttempt]) -> None:
        lifted = lockout.lift(queryset, by=request.user, reason="site admin")
        self.message_user(
            request,
            ngettext(
                "%(count)d remembered failure row forgotten.",
                "%(count)d remembered failure rows forgotten.",
                lifted,
            )
            % {"count": lifted},
            messages.SUCCESS,
        )

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        lockout.lift(AccessAttempt.objects.filter(pk=obj.pk), by=request.user, reason="site admin")

    def delete_queryset(
        self, request: HttpRequest, queryset: models.QuerySet[AccessAttempt]
    ) -> None:
        lockout.lift(queryset, by=request.user, reason="site admin")
