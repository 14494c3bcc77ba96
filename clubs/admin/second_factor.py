"""Two-step sign-in in the web admin (clubs.second_factor): site admins see who has
an authenticator and reset it for someone who lost their phone.  django-otp's own
pages are taken away: they show each key and let anyone with the model permission
add a device to another account."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.db import models
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from clubs import permissions, second_factor
from clubs.admin.base import ReadOnlyAdminMixin

for model in (TOTPDevice, StaticDevice):
    if admin.site.is_registered(model):
        admin.site.unregister(model)


@admin.register(TOTPDevice)
class AuthenticatorAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Read-only: the list and the reset action (``user.reset_second_factor``)."""

    list_display = ["user", "confirmed", "created_at", "last_used_at"]
    list_filter = ["confirmed"]
    search_fields = ["user__username", "user__email"]
    fields = ["user", "name", "confirmed", "created_at", "last_used_at"]
    readonly_fields = fields
    actions = ["reset_second_factor"]

    def _allowed(self, request: HttpRequest) -> bool:
        return permissions.can(request.user, "user.reset_second_factor", None)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._allowed(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._allowed(request)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    @admin.action(description=_("Reset two-step sign-in (lost phone)"))
    def reset_second_factor(
        self, request: HttpRequest, queryset: models.QuerySet[TOTPDevice]
    ) -> None:
        users = get_user_model()._default_manager.filter(pk__in=queryset.values("user_id"))
        done = sum(second_factor.reset(user, by=request.user) for user in users)
        self.message_user(
            request,
            ngettext(
                "Two-step sign-in reset for %(count)d account: it is set up again at its "
                "next sign-in.",
                "Two-step sign-in reset for %(count)d accounts: each is set up again at its "
                "next sign-in.",
                done,
            )
            % {"count": done},
            messages.SUCCESS,
        )
