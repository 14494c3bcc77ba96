"""API tokens (clubs.tokens) for site admins: read-only, and "Revoke these tokens"
for a token that leaked (its owner revokes it on the account page otherwise).  The
secret is nowhere to show: only its prefix and hash are kept."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db import models
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from clubs import permissions, tokens
from clubs.admin.base import ReadOnlyAdminMixin
from clubs.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Read-only: made on the account page, where the token is shown once; revoked, not
    deleted, so that the audit log and last use stay readable."""

    list_display = (
        "name",
        "prefix",
        "user",
        "kind",
        "scope",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked_at",
    )
    list_filter = ("kind", "scope")
    search_fields = ("name", "prefix", "user__username")
    list_select_related = ("user",)
    exclude = ("key_hash",)
    actions = ["revoke"]

    # Site admins only: staff of a federation manage their integration tokens on the
    # account page, where the policy (role.grant) decides.
    def has_module_permission(self, request: HttpRequest) -> bool:
        return permissions.is_site_admin(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return permissions.is_site_admin(request.user)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        if not permissions.is_site_admin(request.user):
            actions.pop("revoke", None)
        return actions

    @admin.action(description=_("Revoke these tokens"))
    def revoke(self, request: HttpRequest, queryset: models.QuerySet[ApiToken]) -> None:
        live = list(queryset.filter(revoked_at__isnull=True))
        for token in live:
            tokens.revoke_token(token, by=request.user)
        self.message_user(
            request,
            ngettext("%(count)d token revoked.", "%(count)d tokens revoked.", len(live))
            % {"count": len(live)},
            messages.SUCCESS,
        )
